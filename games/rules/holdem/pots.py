"""Main and side pots, and how a pot is shared (docs/rules.md 4).

Pots are built from each player's total contribution to the hand. Every
distinct contribution of a player still in the hand closes a pot; chips of
folded players count in the pots they reach and are never paid back to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pot:
    """A pot, the live players who may win it and each player's chips in it."""

    eligible: tuple[int, ...]
    paid_in: tuple[int, ...]

    @property
    def amount(self) -> int:
        return sum(self.paid_in)


def build_pots(contributions: Sequence[int], live: Sequence[bool]) -> list[Pot]:
    """The main pot first, then the side pots.

    Chips above the largest live contribution (a player who left the table
    after out-betting everyone) go to the last pot. When no live player has
    put anything in (both blinds left before anyone else acted), every chip
    forms one pot for the live players.
    """
    levels = sorted({c for c, alive in zip(contributions, live, strict=True) if alive and c > 0})
    if not levels:
        if not any(contributions):
            return []
        return [Pot(tuple(p for p, alive in enumerate(live) if alive), tuple(contributions))]
    pots: list[Pot] = []
    previous = 0
    for index, level in enumerate(levels):
        ceiling = None if index == len(levels) - 1 else level
        paid_in = tuple(
            max(0, (c if ceiling is None else min(c, ceiling)) - previous) for c in contributions
        )
        eligible = tuple(
            p
            for p, (c, alive) in enumerate(zip(contributions, live, strict=True))
            if alive and c >= level
        )
        pots.append(Pot(eligible, paid_in))
        previous = level
    return pots


def seat_order(players: int, button: int) -> list[int]:
    """Players from the first seat after the button round to the button."""
    return [(button + 1 + k) % players for k in range(players)]


def split(amount: int, winners: Sequence[int], players: int, button: int) -> dict[int, int]:
    """Equal shares; the odd chips go one at a time from the first seat after the button."""
    ordered = [p for p in seat_order(players, button) if p in winners]
    share, odd = divmod(amount, len(ordered))
    return {p: share + (1 if i < odd else 0) for i, p in enumerate(ordered)}


def transfers(
    contributions: Sequence[int], shares: dict[int, int], order: Sequence[int]
) -> list[tuple[int, int, int]]:
    """Who paid whom in one pot: ``(payer, payee, amount)``, a player's own chips left out.

    ``contributions`` are each player's chips in this pot; they are matched to
    the winners' shares in seat ``order``, so the itemisation is deterministic.
    """
    owed = [(p, contributions[p]) for p in order if contributions[p] > 0]
    due = [(p, shares[p]) for p in order if shares.get(p, 0) > 0]
    result: list[tuple[int, int, int]] = []
    i = j = 0
    left_owed = owed[0][1] if owed else 0
    left_due = due[0][1] if due else 0
    while i < len(owed) and j < len(due):
        amount = min(left_owed, left_due)
        if owed[i][0] != due[j][0]:
            result.append((owed[i][0], due[j][0], amount))
        left_owed -= amount
        left_due -= amount
        if left_owed == 0:
            i += 1
            left_owed = owed[i][1] if i < len(owed) else 0
        if left_due == 0:
            j += 1
            left_due = due[j][1] if j < len(due) else 0
    return result
