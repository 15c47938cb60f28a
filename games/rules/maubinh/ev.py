"""Exact four-player results of many candidate arrangements at once (numpy).

``table_net`` gives our net units (before the balance cap) for every
candidate chi-class triple against each of many tables of three arranged
opponents, with the rules of :mod:`.settle` (docs/rules.md 2.4 to 2.6, 2.9):
pair totals with bonuses, pairwise sập, "swept by every opponent",
"sweeps every opponent" (sập làng) and four aces, instant-win holders settling
on their instant win, never swept and blocking the "every opponent" rules.
Every player stays and nobody is lủng (arrangers never are). It is the
benchmark's exhaustive scorer; ``tests/rules/maubinh/test_ev.py`` checks it
against :func:`.settle.settle` on random tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .classes import ClassTable
from .instant import compare_instants
from .rules import Ruleset

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Chis:
    """Chi classes of players (any common shape) and whether chi 1 is four aces."""

    c1: IntArray
    c2: IntArray
    c3: IntArray
    four_aces: BoolArray

    def bonus(self, table: ClassTable) -> tuple[IntArray, IntArray, IntArray]:
        return table.bonus_chi1[self.c1], table.bonus_chi2[self.c2], table.bonus_chi3[self.c3]


def _pair(table: ClassTable, a: Chis, b: Chis) -> tuple[FloatArray, BoolArray, BoolArray]:
    """Pair total for ``a`` (before sập), whether ``a`` sweeps ``b``, whether ``b`` sweeps ``a``."""
    ba, bb = a.bonus(table), b.bonus(table)
    total = np.zeros(np.broadcast_shapes(a.c1.shape, b.c1.shape))
    won = np.ones(total.shape, dtype=np.bool_)
    lost = np.ones(total.shape, dtype=np.bool_)
    for x, y, bx, by in zip((a.c1, a.c2, a.c3), (b.c1, b.c2, b.c3), ba, bb, strict=True):
        win, lose = x > y, x < y
        total = total + win * bx - lose * by
        won &= win
        lost &= lose
    return total, won, lost


def table_net(
    rules: Ruleset,
    table: ClassTable,
    ours: Chis,
    opponents: Sequence[Chis],
    instants: Sequence[Sequence[str | None]],
) -> FloatArray:
    """Our net units, shape (candidates, tables): ``ours`` has shape (candidates, 1),
    each of the three opponents' arrays shape (tables,); ``instants`` per opponent
    and table (we hold none: see ``instant_net``)."""
    if len(opponents) != 3 or len(instants) != 3:
        raise ValueError("table_net settles tables of four: three opponents")
    tables = len(opponents[0].c1)
    pair_m = rules.sweep_pair_multiplier
    loser_k = rules.sweep_all_loser_multiplier
    village_v = rules.sweep_village_multiplier if rules.sweep_village_min_players <= 4 else 1
    aces_units = rules.four_aces_village_units
    inst = [np.array([bool(x) for x in instants[j]]) for j in range(3)]
    units = [
        np.array([rules.instant_payout(x) if x else 0 for x in instants[j]], dtype=np.float64)
        for j in range(3)
    ]
    stop = np.zeros(tables, dtype=np.bool_)
    if getattr(rules, "instant_win_stops_comparison", False):
        stop = inst[0] | inst[1] | inst[2]
    # Opponent against opponent: who sweeps whom (instant holders never).
    sweeps = np.zeros((3, 3, tables), dtype=np.bool_)
    for j in range(3):
        for k in range(3):
            if j != k:
                _, won, _ = _pair(table, opponents[j], opponents[k])
                sweeps[j, k] = won & ~inst[j] & ~inst[k]
    totals, won_by_us, lost_by_us = [], [], []
    for j in range(3):
        total, won, lost = _pair(table, ours, opponents[j])
        totals.append(total)
        won_by_us.append(won & ~inst[j])
        lost_by_us.append(lost & ~inst[j])
    we_sweep_all = won_by_us[0] & won_by_us[1] & won_by_us[2]
    all_sweep_us = lost_by_us[0] & lost_by_us[1] & lost_by_us[2]
    net = np.zeros(np.broadcast_shapes(ours.c1.shape, (tables,)))
    for j in range(3):
        others = [k for k in range(3) if k != j]
        swept_by_all_j = won_by_us[j] & sweeps[others[0], j] & sweeps[others[1], j]
        j_sweeps_all = lost_by_us[j] & sweeps[j, others[0]] & sweeps[j, others[1]]
        total = totals[j]
        win_mult = (
            pair_m * np.where(swept_by_all_j, loser_k, 1) * np.where(we_sweep_all, village_v, 1)
        )
        won_value = total * win_mult
        lose_mult = (
            pair_m * np.where(all_sweep_us, loser_k, 1) * np.where(j_sweeps_all, village_v, 1)
        )
        lost_value = total * lose_mult
        if aces_units:
            ours_aces = we_sweep_all & ours.four_aces
            won_value = np.where(ours_aces, np.maximum(aces_units, won_value), won_value)
            theirs_aces = j_sweeps_all & opponents[j].four_aces
            lost_value = np.where(theirs_aces, np.minimum(-aces_units, lost_value), lost_value)
        value = np.where(won_by_us[j], won_value, np.where(lost_by_us[j], lost_value, total))
        value = np.where(inst[j], -units[j], np.where(stop, 0.0, value))
        net = net + value
    return net


def instant_net(
    rules: Ruleset, ours: str, our_top: int, opponents: list[tuple[str | None, int]]
) -> float:
    """Our net at a table when we hold an instant win (chi do not matter)."""
    total = 0.0
    for theirs, their_top in opponents:
        if not theirs:
            total += rules.instant_payout(ours)
            continue
        result = compare_instants(rules, ours, our_top, theirs, their_top)
        if result > 0:
            total += rules.instant_payout(ours)
        elif result < 0:
            total -= rules.instant_payout(theirs)
    return total
