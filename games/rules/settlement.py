"""Settling pairwise debts under the balance cap (docs/rules.md 2.6 rule 6, 3.5).

Debts are a square matrix: ``owed[i][j]`` is what player i owes player j.
Pairs are netted first. A player whose net loss exceeds their balance pays
all they can: what they still pay is shared among their creditors in
proportion to what each is owed (largest-remainder rounding, ties by seat
order). A creditor who then receives less may in turn be unable
to pay, so the cut is repeated until nobody pays more than they hold.
"""

from __future__ import annotations

from collections.abc import Sequence


def net_pairs(owed: Sequence[Sequence[int]]) -> list[list[int]]:
    n = len(owed)
    out = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            d = owed[i][j] - owed[j][i]
            if d > 0:
                out[i][j] = d
            elif d < 0:
                out[j][i] = -d
    return out


def nets(owed: Sequence[Sequence[int]]) -> list[int]:
    n = len(owed)
    return [sum(owed[j][i] for j in range(n)) - sum(owed[i]) for i in range(n)]


def share_largest_remainder(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` in proportion to ``weights``; leftovers by largest
    remainder, ties to the lower index (seat order)."""
    whole = sum(weights)
    if whole <= 0 or total <= 0:
        return [0] * len(weights)
    base = [total * w // whole for w in weights]
    rest = total - sum(base)
    order = sorted(range(len(weights)), key=lambda i: (-((total * weights[i]) % whole), i))
    for i in order[:rest]:
        base[i] += 1
    return base


def cap_debts(owed: Sequence[Sequence[int]], balances: Sequence[int]) -> list[list[int]]:
    """Net the pairs, then cut debts so nobody's net loss exceeds their balance.

    A player pays at most their balance plus what they receive. A cut payment
    is always shared in proportion to the full (netted) debts, not to an
    earlier cut, so repeated cuts do not compound their rounding. Each pass
    only lowers what a player pays, so the loop ends.
    """
    if len(balances) != len(owed):
        raise ValueError("one balance per player")
    full = net_pairs(owed)
    n = len(full)
    debts = [row[:] for row in full]
    changed = True
    while changed:
        changed = False
        for i in range(n):
            received = sum(debts[j][i] for j in range(n))
            can_pay = received + max(balances[i], 0)
            if sum(debts[i]) > can_pay:
                debts[i] = share_largest_remainder(can_pay, full[i])
                changed = True
    return debts
