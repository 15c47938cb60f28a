"""Pairwise settlement of a Mậu Binh hand (docs/rules.md 2.4 to 2.6 and 2.9), in units.

Each pair of players is settled on its own and itemised as payments with a
reason: ``chi1``/``chi2``/``chi3`` (chi won on strength), ``lung`` or ``left``
(chi won because the other side is lủng or left), ``bonus`` (the extra units
of a special hand, docs/rules.md 2.5), ``sap`` (the extra of a sweep, or of a
pair a lủng player lost under ``lung_pays_sap``; its detail lists the rules
applied) and ``instant`` (an instant win). With
``instant_win_stops_comparison`` (maubinh_com) an instant win anywhere at the
table leaves only the pairs with an instant-win holder. Net results are
zero-sum before the balance cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..game import Outcome, Payment
from ..settlement import cap_debts, nets
from .chi import Arrangement, chi_bonus, hand_name, is_four_aces
from .instant import compare_instants, declared_instant, split_tiebreak, top_pair
from .rules import Ruleset

CHIS = (1, 2, 3)


@dataclass(frozen=True)
class Contender:
    """One player at settlement.

    ``left_at`` is the number of chi already revealed when the player left
    (0 = before the reveal: loses all three chi, forfeits any instant win and
    is never swept), or None if the player stayed. ``arrangement`` may be
    None only for a player who left before the reveal. ``top_pair`` and
    ``split_key`` break ties between instant wins of the same type
    (``instant.top_pair``, ``instant.split_tiebreak``).
    """

    arrangement: Arrangement | None
    instant: str | None = None
    top_pair: int = -1
    left_at: int | None = None
    split_key: tuple[int, ...] = ()

    @property
    def left_before_reveal(self) -> bool:
        return self.left_at == 0


def contender(rules: Ruleset, arrangement: Arrangement, left_at: int | None = None) -> Contender:
    cards = arrangement.cards()
    forfeits = left_at == 0 and not rules.leaver_keeps_instant
    instant = None if forfeits else declared_instant(rules, cards)
    split_key = split_tiebreak(rules, cards, instant)
    return Contender(arrangement, instant, top_pair(cards), left_at, split_key)


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
        result = compare_instants(
            rules, x.instant, x.top_pair, y.instant, y.top_pair, x.split_key, y.split_key
        )
    else:
        result = 1 if x.instant else -1
    if result == 0:
        return []
    winner, loser, kind = (a, b, x.instant) if result > 0 else (b, a, y.instant)
    assert kind is not None
    units = rules.instant_payout(kind)
    return [Payment(loser, winner, units, "instant", {"type": kind})] if units else []


def settle(rules: Ruleset, players: Sequence[Contender]) -> Settlement:
    """Settle every pair (docs/rules.md 2.6). A player who left before the reveal
    forfeits any instant win unless ``rules.leaver_keeps_instant``; with
    ``rules.instant_win_stops_comparison`` an instant win anywhere at the table
    leaves only the pairs with an instant-win holder to settle."""
    if not rules.leaver_keeps_instant:
        players = [
            Contender(p.arrangement, None, p.top_pair, 0) if p.left_before_reveal else p
            for p in players
        ]
    hands = [_Hand(rules, p) for p in players]
    n = len(players)
    stopped = rules.instant_win_stops_comparison and any(p.instant for p in players)
    payments: list[Payment] = []
    pair_totals: dict[tuple[int, int], int] = {}
    lung_totals: dict[tuple[int, int], int] = {}
    for a in range(n):
        for b in range(a + 1, n):
            if players[a].instant or players[b].instant:
                payments += _instant_payment(rules, players[a], players[b], a, b)
                continue
            if stopped:
                continue
            chi_items, sweeper = _chi_payments(rules, hands, a, b)
            payments += chi_items
            if sweeper is not None:
                loser = b if sweeper == a else a
                pair_totals[(sweeper, loser)] = sum(p.amount for p in chi_items)
            for winner, loser in ((a, b), (b, a)):
                if hands[loser].lung and not hands[winner].lung:
                    lung_totals[(winner, loser)] = sum(
                        p.amount for p in chi_items if p.payer == loser
                    )
    payments += _sweep_payments(rules, hands, pair_totals, lung_totals)
    owed = [[0] * n for _ in range(n)]
    for p in payments:
        owed[p.payer][p.payee] += p.amount
    return Settlement(
        net=tuple(nets(owed)),
        payments=tuple(payments),
        lung=tuple(h.lung for h in hands),
        sweeps=tuple(sorted(pair_totals)),
    )


def _every_opponent(
    rules: Ruleset, players: Sequence[Contender], pair_totals: dict[tuple[int, int], int]
) -> tuple[list[bool], list[bool], list[int]]:
    """Per player: swept every opponent, swept by every opponent, and how many
    players the sweeping-every-opponent rules count (docs/rules.md 2.6 rules 4, 5).

    A player who left before the reveal is never swept and sweeps nobody. For
    "sweeps every opponent" it is left out (and not counted in the hand), or
    with ``leaver_counts_as_swept`` counts as swept; with
    ``left_blocks_every_opponent`` it blocks the rule. For "swept by every
    opponent" it is left out, or with ``leaver_blocks_swept_by_all`` it blocks
    the rule for everyone.
    """
    n = len(players)
    left = [p.left_before_reveal for p in players]
    sweeps_all, swept_by_all, counted = [], [], []
    for me in range(n):
        others = [q for q in range(n) if q != me]
        stayed = [q for q in others if not left[q]]
        if rules.left_blocks_every_opponent:
            sweeps = bool(others) and all((me, q) in pair_totals for q in others)
            hand_size = n
        elif rules.leaver_counts_as_swept:
            sweeps = bool(stayed) and all((me, q) in pair_totals for q in stayed)
            hand_size = n
        else:
            sweeps = bool(stayed) and all((me, q) in pair_totals for q in stayed)
            hand_size = 1 + len(stayed)
        blockers = (
            others
            if rules.left_blocks_every_opponent or rules.leaver_blocks_swept_by_all
            else stayed
        )
        swept = bool(blockers) and all((q, me) in pair_totals for q in blockers)
        sweeps_all.append(sweeps)
        swept_by_all.append(swept)
        counted.append(hand_size)
    return sweeps_all, swept_by_all, counted


def _sweep_payments(
    rules: Ruleset,
    hands: Sequence[_Hand],
    pair_totals: dict[tuple[int, int], int],
    lung_totals: dict[tuple[int, int], int],
) -> list[Payment]:
    """The sập extras of each swept pair, and of each pair a lủng player lost
    (``lung_pays_sap``), as one ``sap`` payment per pair."""
    players = [h.player for h in hands]
    sweeps_all, swept_by_all, counted = _every_opponent(rules, players, pair_totals)
    lung_pairs = lung_totals if rules.lung_pays_sap else {}
    payments: list[Payment] = []
    for winner, loser in sorted(set(pair_totals) | set(lung_pairs)):
        swept = (winner, loser) in pair_totals
        total = pair_totals[(winner, loser)] if swept else lung_pairs[(winner, loser)]
        applied: list[str] = []
        multiplier = 1
        if swept:
            multiplier *= rules.sweep_pair_multiplier
            applied.append("pair")
        all_loser = (swept and swept_by_all[loser]) or (winner, loser) in lung_pairs
        if all_loser and rules.sweep_all_loser_multiplier != 1:
            multiplier *= rules.sweep_all_loser_multiplier
            applied.append("all_loser" if swept and swept_by_all[loser] else "lung")
        village = (
            swept and sweeps_all[winner] and counted[winner] >= rules.sweep_village_min_players
        )
        if village and rules.sweep_village_multiplier != 1:
            multiplier *= rules.sweep_village_multiplier
            applied.append("village")
        final = total * multiplier
        four_aces = (
            rules.four_aces_village_units > 0
            and swept
            and sweeps_all[winner]
            and is_four_aces(_strength(hands[winner], 1))
        )
        if four_aces and (
            not rules.four_aces_village_floor or rules.four_aces_village_units > final
        ):
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
    (docs/rules.md 2.6 rule 6); balances in units."""
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
