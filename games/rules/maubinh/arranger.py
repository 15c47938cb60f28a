"""The auto-arranger (docs/rules.md 2.8): the valid split with the highest expected units.

The expected units are those of a four-player table: three opponents whose
cards come from the other 39 and who arrange with this arranger. They are
estimated against a sample of such opponents, built offline by
``bench/build_maubinh_tables.py`` and shipped as package data (:mod:`.tables`):
thousands of hands dealt at random 4-player tables and arranged by this
arranger, kept as their three chi.

1. **Prefilter.** Every valid split (about 22,000 of the 72,072) is scored
   cheaply with the chi treated as independent: per chi class, the chance to
   win and lose the chi against the sample's distribution of that chi, and
   the units the opponent's bonus costs when losing it.
2. **Joint score.** The best ``CANDIDATES`` distinct chi-class triples, and the
   greedy split, are scored against every sampled opponent at once: per pair,
   the three chi results together give the exact pair total, who sweeps whom
   and the bonuses (docs/rules.md 2.5, 2.6), so sập and the chance to sweep are
   joint, not products of per-chi chances. The four-player rules combine the
   pair results assuming the three opponents independent: "swept by every
   opponent" (maubinh_com x3) uses the chance that all three sweep us and,
   for an opponent we sweep, how often the sample's other hands sweep that
   hand; "sweeps every opponent" (classic x2, maubinh_com four aces 80)
   likewise. Opponents with an instant win settle on it, are never swept and
   block the "every opponent" rules.
3. **Card removal.** Our 13 cards cannot be in an opponent's hand. Each
   sampled hand is weighted by how much likelier or rarer it is once our cards
   are gone, per rank and per suit: the product over ranks of
   C(4 - ours, theirs) / C(4, theirs) and over suits of
   C(13 - ours, theirs) / C(13, theirs) (four aces in our hand gives every
   sampled hand holding an ace weight 0).

The best split and the hints (distinct chi classes) are ordered by that joint
score. ``expected_units`` is the expected result per opponent (the table's
expected net divided by three). A hand with an instant win does not compare
chi: all its splits are worth the same; they are still ordered by the chi
score, so the suggestion is a sensible hand to show.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from ..cards import Card
from ..errors import RulesError
from ..hand5 import ACE, CATEGORY_SHIFT, Category
from .chi import FOUR_ACES, Arrangement
from .classes import (
    ClassTable,
    HandClasses,
    class_table,
    evaluate_hand,
    five_classes,
    three_classes,
)
from .instant import SPLIT_TYPES, compare_instants, declared_instant, top_pair
from .rules import INSTANT_TYPES, Ruleset
from .splits import (
    FIVES,
    SPLIT_CHI1,
    SPLIT_CHI2,
    SPLIT_CHI3,
    SPLITS_PER_CHI1,
    THREES,
    IntArray,
    qualifying_splits,
)
from .tables import preset_data

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
OPPONENTS = 3
HINTS = 3
CANDIDATES = 96
SAMPLE_SIZE = 4096
_POOL = 1024
_BLAS_ONE_THREAD = 65_536 * 4  # OpenBLAS' GEMM_MULTITHREAD_THRESHOLD x 65536


def _log_ratios(size: int) -> FloatArray:
    """log(C(size - ours, theirs) / C(size, theirs)) by [ours, theirs]; -inf where
    they would need more cards than are left (weight exactly 0)."""
    ratio = np.array(
        [
            [comb(size - o, k) / comb(size, k) if k <= size - o else 0.0 for k in range(size + 1)]
            for o in range(size + 1)
        ]
    )
    result: FloatArray = np.full(ratio.shape, -np.inf)
    np.log(ratio, out=result, where=ratio > 0)
    return result


_RANK_LOG = _log_ratios(4)
_SUIT_LOG = _log_ratios(13)


@dataclass(frozen=True)
class ChiOdds:
    """Per chi class in one position: P(win), P(lose), units expected to pay when losing."""

    win: npt.NDArray[np.float32]
    lose: npt.NDArray[np.float32]
    pay: npt.NDArray[np.float32]
    bonus: npt.NDArray[np.float32]


def chi_odds(counts: IntArray, bonus: IntArray) -> ChiOdds:
    """Odds against an opponent whose chi class is distributed as ``counts``."""
    pmf = counts / max(int(counts.sum()), 1)
    below = np.cumsum(pmf) - pmf
    weighted = pmf * bonus
    # float32: the prefilter only ranks splits, and half the memory traffic is faster.
    return ChiOdds(
        win=below.astype(np.float32),
        lose=np.clip(1.0 - below - pmf, 0.0, 1.0).astype(np.float32),
        pay=(weighted.sum() - np.cumsum(weighted)).astype(np.float32),
        bonus=bonus.astype(np.float32),
    )


@dataclass(frozen=True)
class Sample:
    """The sampled opponents of a ruleset (see :mod:`.tables`), in class form.

    ``plain`` indexes the hands without an instant win; ``c1``/``c2``/``c3``,
    ``bonus`` (the chi bonuses summed: what a sweep of us costs before
    multipliers), ``swept2`` and ``sweeps2`` (the squared rates at which the
    hand is swept by / sweeps another sampled hand) are over those hands.
    ``ranks`` and ``suits`` count each sampled hand's cards per rank / suit
    (all hands), ``instant_units`` is what each pays us (0 if no instant win).
    """

    size: int
    plain: IntArray
    c1: npt.NDArray[np.int16]
    c2: npt.NDArray[np.int16]
    c3: npt.NDArray[np.int16]
    bonus: FloatArray
    swept2: FloatArray
    sweeps2: FloatArray
    ranks: IntArray
    suits: IntArray
    instant: IntArray
    instant_units: FloatArray
    top_pair: IntArray
    order: tuple[IntArray, IntArray, IntArray]
    sorted_classes: tuple[IntArray, IntArray, IntArray]
    sorted_bonus: tuple[FloatArray, FloatArray, FloatArray]


def load_sample(
    rules: Ruleset, table: ClassTable, data: Mapping[str, npt.NDArray[Any]] | None = None
) -> Sample:
    """The sample in ``data`` (default: the preset's package data) in ``table``'s classes."""
    if data is None:
        data = preset_data(rules.preset)
    if data is None:
        raise RulesError("no_tables", f"No arranger tables for preset {rules.preset!r}")
    size = min(SAMPLE_SIZE, len(data["opp_cards"]))
    cards = data["opp_cards"][:size].astype(np.int64)
    instant = data["opp_instant"][:size].astype(np.int64)
    plain = np.flatnonzero(instant < 0)
    arranged = cards[plain]
    c1 = five_classes(arranged[:, :5], table)
    c2 = five_classes(arranged[:, 5:10], table)
    c3 = three_classes(arranged[:, 10:], table)
    chi_bonus = (table.bonus_chi1[c1], table.bonus_chi2[c2], table.bonus_chi3[c3])
    units = dict(rules.instant_units)
    instant_units = np.array(
        [units.get(INSTANT_TYPES[i], 0) if i >= 0 else 0 for i in instant], dtype=np.float64
    )
    order = (
        np.argsort(c1, kind="stable"),
        np.argsort(c2, kind="stable"),
        np.argsort(c3, kind="stable"),
    )
    return Sample(
        size=len(cards),
        plain=plain,
        c1=c1.astype(np.int16),
        c2=c2.astype(np.int16),
        c3=c3.astype(np.int16),
        bonus=(chi_bonus[0] + chi_bonus[1] + chi_bonus[2]).astype(np.float64),
        swept2=data["opp_swept"][:size][plain].astype(np.float64) ** 2,
        sweeps2=data["opp_sweeps"][:size][plain].astype(np.float64) ** 2,
        ranks=np.stack([(cards >> 2 == r).sum(axis=1) for r in range(13)], axis=1),
        suits=np.stack([(cards & 3 == s).sum(axis=1) for s in range(4)], axis=1),
        instant=instant,
        instant_units=instant_units,
        top_pair=data["opp_top_pair"][:size].astype(np.int64),
        order=order,
        sorted_classes=(c1[order[0]], c2[order[1]], c3[order[2]]),
        sorted_bonus=(
            chi_bonus[0][order[0]].astype(np.float64),
            chi_bonus[1][order[1]].astype(np.float64),
            chi_bonus[2][order[2]].astype(np.float64),
        ),
    )


@dataclass(frozen=True)
class Suggestion:
    arrangement: Arrangement
    expected_units: float


@dataclass(frozen=True)
class ArrangeResult:
    """The best valid arrangement, up to three distinct hints (best first) and
    the instant win with, for the split-based ones, a split showing it."""

    best: Suggestion
    hints: tuple[Suggestion, ...]
    instant: str | None
    instant_arrangement: Arrangement | None


@dataclass(frozen=True)
class _Hand:
    """One hand being arranged: its classes, valid splits and card-removal weights."""

    cards: Sequence[Card]
    classes: HandClasses
    splits: IntArray
    weights: FloatArray
    instant: str | None


class Arranger:
    """Scores splits of 13 cards for one ruleset (see the module docstring)."""

    def __init__(
        self,
        rules: Ruleset,
        sample: Sample | None = None,
        *,
        table: ClassTable | None = None,
        card_removal: bool = True,
    ):
        self.rules = rules
        self.table: ClassTable = table if table is not None else class_table(rules)
        self.sample = sample if sample is not None else load_sample(rules, self.table)
        self.card_removal = card_removal
        t, s = self.table, self.sample
        counts = (
            np.bincount(s.c1, minlength=t.five_count),
            np.bincount(s.c2, minlength=t.five_count),
            np.bincount(s.c3, minlength=t.three_count),
        )
        self.odds = (
            chi_odds(counts[0], t.bonus_chi1),
            chi_odds(counts[1], t.bonus_chi2),
            chi_odds(counts[2], t.bonus_chi3),
        )
        self.sweep_rate = float(np.sqrt(s.sweeps2).mean()) if len(s.plain) else 0.0
        self.four_aces = four_aces_classes(t.five_strength)

    # -- the hand -------------------------------------------------------------

    def _hand(self, cards: Sequence[Card]) -> _Hand:
        classes = evaluate_hand(cards, self.table)
        return _Hand(
            cards,
            classes,
            self.valid_splits(classes),
            self.weights(cards),
            declared_instant(self.rules, cards),
        )

    def weights(self, cards: Sequence[Card]) -> FloatArray:
        """Card-removal weight of each sampled hand given our cards (sum 1)."""
        s = self.sample
        if not self.card_removal:
            return np.full(s.size, 1.0 / s.size)
        codes = np.asarray(cards, dtype=np.int64)
        ours_r = np.bincount(codes >> 2, minlength=13)
        ours_s = np.bincount(codes & 3, minlength=4)
        log = _RANK_LOG[ours_r[None, :], s.ranks].sum(axis=1)
        log += _SUIT_LOG[ours_s[None, :], s.suits].sum(axis=1)
        w = np.exp(log - log.max())
        result: FloatArray = w / w.sum()
        return result

    def valid_splits(self, hand: HandClasses) -> IntArray:
        """Indices of the splits that are not binh lủng."""
        five_strength = self.table.five_strength[hand.five]
        three_strength = self.table.three_strength[hand.three]
        valid = (hand.five[SPLIT_CHI1] >= hand.five[SPLIT_CHI2]) & (
            five_strength[SPLIT_CHI2] >= three_strength[SPLIT_CHI3]
        )
        result: IntArray = np.flatnonzero(valid)
        return result

    # -- scores ---------------------------------------------------------------

    def marginal_score(self, hand: HandClasses, splits: IntArray) -> npt.NDArray[np.float32]:
        """The prefilter: expected units per opponent with the chi independent."""
        chi_classes = (hand.five, hand.five, hand.three)
        chi_index = (SPLIT_CHI1[splits], SPLIT_CHI2[splits], SPLIT_CHI3[splits])
        win, lose, pay, bonus = [], [], [], []
        for odds, classes, index in zip(self.odds, chi_classes, chi_index, strict=True):
            win.append(odds.win[classes][index])
            lose.append(odds.lose[classes][index])
            pay.append(odds.pay[classes][index])
            bonus.append(odds.bonus[classes][index])
        base = sum(w * b - p for w, b, p in zip(win, bonus, pay, strict=True))
        sweep_won = win[0] * win[1] * win[2] * (bonus[0] + bonus[1] + bonus[2])
        sweep_lost = (
            pay[0] * lose[1] * lose[2] + lose[0] * pay[1] * lose[2] + lose[0] * lose[1] * pay[2]
        )
        rules, others = self.rules, OPPONENTS - 1
        pair = rules.sweep_pair_multiplier
        value: npt.NDArray[np.float32] = base + (pair - 1) * (sweep_won - sweep_lost)
        if rules.sweep_all_loser_multiplier != 1:
            swept_all = (lose[0] * lose[1] * lose[2]) ** others
            value += (
                (rules.sweep_all_loser_multiplier - 1)
                * pair
                * (sweep_won * self.sweep_rate**others - sweep_lost * swept_all)
            )
        if rules.sweep_village_multiplier != 1 and others + 2 >= rules.sweep_village_min_players:
            sweep_all = (win[0] * win[1] * win[2]) ** others
            value += (
                (rules.sweep_village_multiplier - 1)
                * pair
                * (sweep_won * sweep_all - sweep_lost * self.sweep_rate**others)
            )
        return value

    def joint_score(
        self, c1: IntArray, c2: IntArray, c3: IntArray, weights: FloatArray
    ) -> FloatArray:
        """Expected units per opponent of chi-class triples (the module docstring, 2 and 3),
        ignoring our own instant win."""
        t, s, rules = self.table, self.sample, self.rules
        k = len(c1)
        w = weights[s.plain]
        ours = (c1, c2, c3)
        bonus = (t.bonus_chi1[c1], t.bonus_chi2[c2], t.bonus_chi3[c3])
        # The pair total without sweeps: per chi, from the weighted sorted sample.
        total = np.zeros(k)
        for chi in range(3):
            ws = w[s.order[chi]]
            cum = np.concatenate(([0.0], np.cumsum(ws)))
            cum_bonus = np.concatenate(([0.0], np.cumsum(ws * s.sorted_bonus[chi])))
            below = np.searchsorted(s.sorted_classes[chi], ours[chi], side="left")
            above = np.searchsorted(s.sorted_classes[chi], ours[chi], side="right")
            total += bonus[chi] * cum[below] - (cum_bonus[-1] - cum_bonus[above])
        # Sweeps, joint over the three chi.
        a1, a2, a3 = (x.astype(np.int16)[:, None] for x in ours)
        won = np.greater(a1, s.c1)
        won &= np.greater(a2, s.c2)
        won &= np.greater(a3, s.c3)
        lost = np.less(a1, s.c1)
        lost &= np.less(a2, s.c2)
        lost &= np.less(a3, s.c3)
        # Weighted sums over the sampled hands as small matrix products (float32:
        # far faster than gathering the indices of the True entries).
        if_won = np.stack([w, w * s.swept2], axis=1).astype(np.float32)
        if_lost = np.stack([w, w * s.bonus, w * s.bonus * s.sweeps2], axis=1).astype(np.float32)
        won_sums = _weighted_sums(won, if_won)
        lost_sums = _weighted_sums(lost, if_lost)
        p_won, swept_others = won_sums[:, 0], won_sums[:, 1]
        p_lost, paid, sweeps_others = lost_sums[:, 0], lost_sums[:, 1], lost_sums[:, 2]
        ours_total = (bonus[0] + bonus[1] + bonus[2]).astype(np.float64)
        pair = rules.sweep_pair_multiplier
        value: FloatArray = total + (pair - 1) * (ours_total * p_won - paid)
        loser = rules.sweep_all_loser_multiplier
        if loser != 1:
            value += (loser - 1) * pair * (ours_total * swept_others - paid * p_lost**2)
        village = rules.sweep_village_multiplier
        if village != 1 and rules.sweep_village_min_players <= OPPONENTS + 1:
            value += (village - 1) * pair * (ours_total * p_won**3 - sweeps_others)
        if rules.four_aces_village_units:
            aces = self.four_aces[c1]
            extra = np.maximum(0.0, rules.four_aces_village_units - pair * ours_total)
            value += aces * extra * p_won**3
        if getattr(rules, "instant_win_stops_comparison", False):
            value *= (1.0 - weights[s.instant >= 0].sum()) ** 2
        return value

    def instant_value(self, hand: _Hand) -> float:
        """Expected units per opponent from the sample's instant wins (and ours)."""
        s, rules = self.sample, self.rules
        if hand.instant is None:
            return -float((hand.weights * s.instant_units).sum())
        ours = rules.instant_payout(hand.instant)
        ours_top = top_pair(hand.cards)
        listed = dict(rules.instant_units)
        value = ours * float(hand.weights[s.instant < 0].sum())
        for i in np.flatnonzero(s.instant >= 0):
            name = INSTANT_TYPES[int(s.instant[i])]
            if name not in listed:
                value += ours * float(hand.weights[i])
                continue
            result = compare_instants(rules, hand.instant, ours_top, name, int(s.top_pair[i]))
            paid = ours if result > 0 else -float(s.instant_units[i]) if result < 0 else 0.0
            value += paid * float(hand.weights[i])
        return value

    def _triples(self, hand: _Hand, splits: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        return (
            hand.classes.five[SPLIT_CHI1[splits]],
            hand.classes.five[SPLIT_CHI2[splits]],
            hand.classes.three[SPLIT_CHI3[splits]],
        )

    def _candidates(self, hand: _Hand) -> IntArray:
        """One split per distinct chi-class triple among the prefilter's best, plus greedy."""
        splits = hand.splits
        marginal = self.marginal_score(hand.classes, splits)
        pool = min(_POOL, len(splits))
        top = np.argpartition(-marginal, pool - 1)[:pool] if pool < len(splits) else np.arange(pool)
        top = top[np.lexsort((splits[top], -marginal[top]))]
        c1, c2, c3 = self._triples(hand, splits[top])
        key = (c1 * self.table.five_count + c2) * self.table.three_count + c3
        _, first = np.unique(key, return_index=True)
        chosen = splits[top[np.sort(first)[:CANDIDATES]]]
        # Sorted and deduplicated by hand: np.unique without return_index imports
        # numpy.ma (about 10 ms on the command line).
        every = np.sort(np.append(chosen, self._greedy(hand.classes)))
        result: IntArray = every[np.concatenate(([True], every[1:] != every[:-1]))]
        return result

    def scores(self, hand: _Hand, splits: IntArray) -> tuple[FloatArray, FloatArray]:
        """(expected units per opponent, the chi score that orders them) of each split."""
        chi = self.joint_score(*self._triples(hand, splits), hand.weights)
        if hand.instant is None:
            return chi + self.instant_value(hand), chi
        return np.full(len(splits), self.instant_value(hand)), chi

    # -- results --------------------------------------------------------------

    def arrange(self, cards: Sequence[Card]) -> ArrangeResult:
        hand = self._hand(cards)
        candidates = self._candidates(hand)
        value, order_key = self.scores(hand, candidates)
        order = np.lexsort((candidates, -order_key))
        hints: list[Suggestion] = []
        seen: set[tuple[int, int, int]] = set()
        triples = self._triples(hand, candidates)
        for i in order:
            key = (int(triples[0][i]), int(triples[1][i]), int(triples[2][i]))
            if key not in seen:
                seen.add(key)
                hints.append(
                    Suggestion(split_arrangement(cards, int(candidates[i])), float(value[i]))
                )
            if len(hints) == HINTS:
                break
        shown = None
        if hand.instant in SPLIT_TYPES:
            qualifying = np.flatnonzero(qualifying_splits(cards, hand.instant)[hand.splits])
            splits = hand.splits[qualifying]
            marginal = self.marginal_score(hand.classes, splits)
            shown = split_arrangement(cards, int(splits[np.argmax(marginal)]))
        return ArrangeResult(hints[0], tuple(hints), hand.instant, shown)

    def best_split(self, cards: Sequence[Card]) -> int:
        hand = self._hand(cards)
        candidates = self._candidates(hand)
        _, order_key = self.scores(hand, candidates)
        return int(candidates[np.lexsort((candidates, -order_key))[0]])

    def _greedy(self, hand: HandClasses) -> int:
        return greedy_of(hand)

    def greedy_split(self, cards: Sequence[Card]) -> int:
        """The baseline: the strongest chi 1, then the strongest chi 2 of the rest."""
        return greedy_of(evaluate_hand(cards, self.table))

    def random_split(self, cards: Sequence[Card], rng: random.Random) -> int:
        """A uniformly random valid split (the weakest baseline)."""
        splits = self.valid_splits(evaluate_hand(cards, self.table))
        return int(splits[rng.randrange(len(splits))])

    def split_units(self, cards: Sequence[Card], split: int) -> float:
        """The expected units per opponent of one split, as ``arrange`` scores it: among
        ``arrange``'s own candidates. The float32 sums' last bits depend on the batch
        (one row alone goes through another BLAS kernel, summing in another order), so
        a split that is a candidate (the greedy split always is) scores here exactly
        as ``arrange`` saw it."""
        hand = self._hand(cards)
        batch = self._candidates(hand)
        if not (batch == split).any():
            batch = np.append(batch, split)
        value, _ = self.scores(hand, batch)
        return float(value[np.flatnonzero(batch == split)[0]])


def _weighted_sums(rows: BoolArray, weights: npt.NDArray[np.float32]) -> FloatArray:
    """``rows @ weights`` in blocks of rows small enough that OpenBLAS stays on one
    thread (its threads only spin and wait on a busy machine)."""
    block = max(1, _BLAS_ONE_THREAD // (rows.shape[1] * weights.shape[1]))
    parts = [rows[i : i + block].astype(np.float32) @ weights for i in range(0, len(rows), block)]
    return np.concatenate(parts).astype(np.float64)


def four_aces_classes(strengths: IntArray) -> BoolArray:
    """``chi.is_four_aces`` of every strength at once."""
    cat = strengths >> CATEGORY_SHIFT
    top = ((strengths & ((1 << CATEGORY_SHIFT) - 1)) >> 16) - 1
    result: BoolArray = (cat == FOUR_ACES) | ((cat == Category.QUADS) & (top == ACE))
    return result


def greedy_of(hand: HandClasses) -> int:
    """The greedy split: the strongest chi 1, then the strongest chi 2 of the rest."""
    chi1 = int(np.argmax(hand.five))
    block = np.arange(chi1 * SPLITS_PER_CHI1, (chi1 + 1) * SPLITS_PER_CHI1)
    return int(block[np.argmax(hand.five[SPLIT_CHI2[block]])])


def split_arrangement(cards: Sequence[Card], split: int) -> Arrangement:
    """The arrangement of split ``split``, each chi listed high card first."""

    def chi(positions: IntArray) -> tuple[Card, ...]:
        return tuple(sorted((cards[int(p)] for p in positions), reverse=True))

    return Arrangement(
        chi(FIVES[SPLIT_CHI1[split]]), chi(FIVES[SPLIT_CHI2[split]]), chi(THREES[SPLIT_CHI3[split]])
    )


@lru_cache(maxsize=32)  # presets plus a few tables' option overrides
def arranger_for(rules: Ruleset) -> Arranger:
    return Arranger(rules)


def arrange(rules: Ruleset, cards: Sequence[Card]) -> ArrangeResult:
    return arranger_for(rules).arrange(cards)
