"""Pairwise settlement of a Mậu Binh hand (RULES.md 2.4 to 2.6 and 2.9), in units.

Each pair of players is settled on its own and itemised as payments with a
reason: ``chi1``/``chi2``/``chi3`` (chi won on strength), ``lung`` or ``left``
(chi won because the other side is lủng or left), ``bonus`` (the extra units
of a special hand, RULES.md 2.5), ``sap`` (the extra of a sweep) and
``instant`` (an instant win). Net results are zero-sum before the balance cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..game import Outcome, Payment
from ..settlement import cap_debts, nets
from .chi import Arrangement, chi_bonus, hand_name, is_four_aces
from .instant import compare_instants, declared_instant, top_pair
from .rules import Ruleset

CHIS = (1, 2, 3)


@dataclass(frozen=True)
class Contender:
    """One player at settlement.

    ``left_at`` is the number of chi already revealed when the player left
    (0 = before the reveal: loses all three chi, forfeits any instant win and
    is never swept), or None if the player stayed. ``arrangement`` may be
    None only for a player who left before the reveal.
    """

    arrangement: Arrangement | None
    instant: str | None = None
    top_pair: int = -1
    left_at: int | None = None

    @property
    def left_before_reveal(self) -> bool:
        return self.left_at == 0


def contender(rules: Ruleset, arrangement: Arrangement, left_at: int | None = None) -> Contender:
    cards = arrangement.cards()
    forfeits = left_at == 0 and not rules.leaver_keeps_instant
    instant = None if forfeits else declared_instant(rules, cards)
    return Contender(arrangement, instant, top_pair(cards), left_at)


@dataclass(frozen=True)
class Settlement:
    net: tuple[int, ...]
    payments: tuple[Payment, ...]
    lung: tuple[bool, ...]
    sweeps: tuple[tuple[int, int], ...]


class _Hand:
    """Settlement view of one contender: strengths and the chi it forfeits."""

    def __init__(self, rules: Ruleset, player: Contender) -> None:
        self.player = player
        arrangement = player.arrangement
        self.strengths = arrangement.strengths(rules) if arrangement is not None else None
        self.lung = (
            player.instant is None
            and not player.left_before_reveal
            and self.strengths is not None
            and (self.strengths[1] > self.strengths[0] or self.strengths[2] > self.strengths[1])
        )

    def forfeit_reason(self, chi: int) -> str | None:
        if self.lung:
            return "lung"
        left_at = self.player.left_at
        if left_at is not None and chi > left_at:
            return "left"
        return None


def _chi_payments(
    rules: Ruleset, hands: Sequence[_Hand], a: int, b: int
) -> tuple[list[Payment], int | None]:
    """The chi payments of pair (a, b), and who won all three chi (if anyone)."""
    payments: list[Payment] = []
    wins = {a: 0, b: 0}
    won_on_lung = False
    for chi in CHIS:
        lost = {p: hands[p].forfeit_reason(chi) for p in (a, b)}
        if lost[a] and lost[b]:
            continue
        if lost[a] or lost[b]:
            winner = b if lost[a] else a
            reason = str(lost[a] or lost[b])
        else:
            sa, sb = _strength(hands[a], chi), _strength(hands[b], chi)
            if sa == sb:
                continue
            winner = a if sa > sb else b
            reason = f"chi{chi}"
        loser = b if winner == a else a
        strength = _strength(hands[winner], chi)
        units = chi_bonus(rules, chi, strength)
        detail = {"chi": chi, "hand": hand_name(strength)}
        payments.append(Payment(loser, winner, 1, reason, detail))
        if units > 1:
            payments.append(Payment(loser, winner, units - 1, "bonus", {**detail, "units": units}))
        wins[winner] += 1
        won_on_lung |= reason == "lung"
    sweeper = next((p for p in (a, b) if wins[p] == 3), None)
    if sweeper is not None and (
        hands[b if sweeper == a else a].player.left_before_reveal
        or (won_on_lung and not rules.lung_is_swept)
    ):
        sweeper = None
    return payments, sweeper


def _strength(hand: _Hand, chi: int) -> int:
    assert hand.strengths is not None
    return hand.strengths[chi - 1]


def _instant_payment(rules: Ruleset, x: Contender, y: Contender, a: int, b: int) -> list[Payment]:
    if x.instant and y.instant:
        result = compare_instants(rules, x.instant, x.top_pair, y.instant, y.top_pair)
    else:
        result = 1 if x.instant else -1
    if result == 0:
        return []
    winner, loser, kind = (a, b, x.instant) if result > 0 else (b, a, y.instant)
    assert kind is not None
    units = rules.instant_payout(kind)
    return [Payment(loser, winner, units, "instant", {"type": kind})] if units else []


def settle(rules: Ruleset, players: Sequence[Contender]) -> Settlement:
    """Settle every pair (RULES.md 2.6). A player who left before the reveal
    forfeits any instant win unless ``rules.leaver_keeps_instant``."""
    if not rules.leaver_keeps_instant:
        players = [
            Contender(p.arrangement, None, p.top_pair, 0) if p.left_before_reveal else p
            for p in players
        ]
    hands = [_Hand(rules, p) for p in players]
    n = len(players)
    payments: list[Payment] = []
    pair_totals: dict[tuple[int, int], int] = {}
    for a in range(n):
        for b in range(a + 1, n):
            if players[a].instant or players[b].instant:
                payments += _instant_payment(rules, players[a], players[b], a, b)
                continue
            chi_items, sweeper = _chi_payments(rules, hands, a, b)
            payments += chi_items
            if sweeper is not None:
                loser = b if sweeper == a else a
                pair_totals[(sweeper, loser)] = sum(p.amount for p in chi_items)
    payments += _sweep_payments(rules, hands, pair_totals)
    owed = [[0] * n for _ in range(n)]
    for p in payments:
        owed[p.payer][p.payee] += p.amount
    return Settlement(
        net=tuple(nets(owed)),
        payments=tuple(payments),
        lung=tuple(h.lung for h in hands),
        sweeps=tuple(sorted(pair_totals)),
    )


def _counted_opponents(rules: Ruleset, players: Sequence[Contender], me: int) -> list[int]:
    """Opponents that "every opponent" rules look at (RULES.md 2.6 rule 4)."""
    return [
        q
        for q, p in enumerate(players)
        if q != me and (rules.left_blocks_every_opponent or not p.left_before_reveal)
    ]


def _sweep_payments(
    rules: Ruleset, hands: Sequence[_Hand], pair_totals: dict[tuple[int, int], int]
) -> list[Payment]:
    players = [h.player for h in hands]
    n = len(players)
    counted = [_counted_opponents(rules, players, p) for p in range(n)]
    sweeps_all = [bool(c) and all((p, q) in pair_totals for q in c) for p, c in enumerate(counted)]
    swept_by_all = [
        bool(c) and all((q, p) in pair_totals for q in c) for p, c in enumerate(counted)
    ]
    payments: list[Payment] = []
    for (winner, loser), total in sorted(pair_totals.items()):
        village = sweeps_all[winner] and 1 + len(counted[winner]) >= rules.sweep_village_min_players
        four_aces = (
            rules.four_aces_village_units > 0
            and sweeps_all[winner]
            and is_four_aces(_strength(hands[winner], 1))
        )
        applied = ["pair"]
        multiplier = rules.sweep_pair_multiplier
        if swept_by_all[loser] and rules.sweep_all_loser_multiplier != 1:
            multiplier *= rules.sweep_all_loser_multiplier
            applied.append("all_loser")
        if village and rules.sweep_village_multiplier != 1:
            multiplier *= rules.sweep_village_multiplier
            applied.append("village")
        final = total * multiplier
        if four_aces:
            final, applied = rules.four_aces_village_units, ["four_aces_village"]
        extra = final - total
        detail = {"pair_total": total, "total": final, "rules": applied}
        if extra > 0:
            payments.append(Payment(loser, winner, extra, "sap", detail))
        elif extra < 0:
            payments.append(Payment(winner, loser, -extra, "sap", detail))
    return payments


def settle_arrangements(rules: Ruleset, arrangements: Sequence[Arrangement]) -> Settlement:
    """Settle players who all stayed, instant wins found from their cards."""
    return settle(rules, [contender(rules, a) for a in arrangements])


def capped_net(settlement: Settlement | Outcome, balances: Sequence[int]) -> list[int]:
    """Net units of a settlement or an engine outcome after the balance cap
    (RULES.md 2.6 rule 6); balances in units."""
    n = len(settlement.net)
    owed = [[0] * n for _ in range(n)]
    for p in settlement.payments:
        owed[p.payer][p.payee] += p.amount
    return nets(cap_debts(owed, balances))


def chi_units(settlement: Settlement, players: int, chi: int) -> list[int]:
    """Each player's net on one chi (its chi, lủng, left and bonus items), for the reveal."""
    net = [0] * players
    for p in settlement.payments:
        if p.detail.get("chi") == chi:
            net[p.payer] -= p.amount
            net[p.payee] += p.amount
    return net
