"""The auto-arranger (RULES.md 2.8): the valid split with the highest expected units.

Every one of the 72,072 splits is scored at once with numpy. The score is the
expected units against one opponent whose chi are drawn from the per-chi
strength distributions in :mod:`.win_tables` (how often each chi class occurs
in each position when players arrange with this arranger; generated offline
by ``bench/build_maubinh_tables.py``). From a distribution come, per chi
class, the chance to win and to lose the chi and the units expected to be paid
when losing it (the opponent's bonuses); the chi are treated as independent,
so the chance to sweep is the product of the three win chances. The score adds
the bonuses (2.5) and every sập rule of the ruleset (2.6 rule 4), with the
"every opponent" rules estimated for ``opponents`` opponents.
"""

from __future__ import annotations

import base64
import random
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ..cards import Card
from ..errors import RulesError
from .chi import Arrangement, is_four_aces
from .classes import ClassTable, HandClasses, class_table, evaluate_hand
from .instant import SPLIT_TYPES, declared_instant
from .rules import Ruleset
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
from .win_tables import TABLES

FloatArray = npt.NDArray[np.float64]
DEFAULT_OPPONENTS = 3
HINTS = 3
_HINT_POOL = 64


@dataclass(frozen=True)
class ChiOdds:
    """Per chi class in one position: P(win), P(lose), units expected to pay when losing."""

    win: FloatArray
    lose: FloatArray
    pay: FloatArray
    bonus: IntArray


def chi_odds(counts: IntArray, bonus: IntArray) -> ChiOdds:
    """Odds against an opponent whose chi class is distributed as ``counts``."""
    pmf = counts / max(int(counts.sum()), 1)
    below = np.cumsum(pmf) - pmf
    weighted = pmf * bonus
    return ChiOdds(
        win=below,
        lose=np.clip(1.0 - below - pmf, 0.0, 1.0),
        pay=weighted.sum() - np.cumsum(weighted),
        bonus=bonus,
    )


@dataclass(frozen=True)
class ChiCounts:
    """How often each chi strength occurred in each position (the offline tables)."""

    chi1: Mapping[int, int]
    chi2: Mapping[int, int]
    chi3: Mapping[int, int]
    sweep_rate: float

    def dense(self, strengths: IntArray, chi: int) -> IntArray:
        counts = (self.chi1, self.chi2, self.chi3)[chi - 1]
        dense = np.zeros(len(strengths), dtype=np.int64)
        keys = np.array(list(counts), dtype=np.int64)
        if len(keys):
            at = np.searchsorted(strengths, keys).clip(0, len(strengths) - 1)
            found = strengths[at] == keys
            np.add.at(dense, at[found], np.array(list(counts.values()))[found])
        return dense


def decode_counts(blob: str) -> dict[int, int]:
    """Counts stored as zlib-compressed base64 of int64 (strength, count) pairs."""
    raw = np.frombuffer(zlib.decompress(base64.b64decode(blob)), dtype="<i8").reshape(-1, 2)
    return {int(s): int(c) for s, c in raw}


def encode_counts(counts: Mapping[int, int]) -> str:
    pairs = np.array(sorted(counts.items()), dtype="<i8").reshape(-1, 2)
    return base64.b64encode(zlib.compress(pairs.tobytes(), 9)).decode("ascii")


def stored_counts(preset: str) -> ChiCounts:
    if preset not in TABLES:
        raise RulesError("no_tables", f"No arranger tables for preset {preset!r}")
    entry = TABLES[preset]
    rate = entry["sweep_rate"]
    assert isinstance(rate, float)
    return ChiCounts(
        chi1=decode_counts(str(entry["chi1"])),
        chi2=decode_counts(str(entry["chi2"])),
        chi3=decode_counts(str(entry["chi3"])),
        sweep_rate=rate,
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


class Arranger:
    """Scores splits of 13 cards for one ruleset (see the module docstring)."""

    def __init__(self, rules: Ruleset, counts: ChiCounts, opponents: int = DEFAULT_OPPONENTS):
        self.rules = rules
        self.table: ClassTable = class_table(rules)
        self.opponents = opponents
        self.sweep_rate = counts.sweep_rate
        t = self.table
        self.odds = (
            chi_odds(counts.dense(t.five_strength, 1), t.bonus_chi1),
            chi_odds(counts.dense(t.five_strength, 2), t.bonus_chi2),
            chi_odds(counts.dense(t.three_strength, 3), t.bonus_chi3),
        )
        four_aces = [is_four_aces(int(s)) for s in t.five_strength]
        self.four_aces = np.array(four_aces, dtype=np.bool_)

    def valid_splits(self, hand: HandClasses) -> IntArray:
        """Indices of the splits that are not binh lủng."""
        five_strength = self.table.five_strength[hand.five]
        three_strength = self.table.three_strength[hand.three]
        valid = (hand.five[SPLIT_CHI1] >= hand.five[SPLIT_CHI2]) & (
            five_strength[SPLIT_CHI2] >= three_strength[SPLIT_CHI3]
        )
        result: IntArray = np.flatnonzero(valid)
        return result

    def score(self, hand: HandClasses, splits: IntArray) -> FloatArray:
        """Expected units per opponent of each given split."""
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
        rules, others = self.rules, self.opponents - 1
        pair = rules.sweep_pair_multiplier
        value: FloatArray = base + (pair - 1) * (sweep_won - sweep_lost)
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
        if rules.four_aces_village_units:
            four_aces = self.four_aces[hand.five][chi_index[0]]
            sweep_all = (win[0] * win[1] * win[2]) ** self.opponents
            plain_total = pair * (bonus[0] + bonus[1] + bonus[2])
            value += four_aces * sweep_all * (rules.four_aces_village_units - plain_total)
        return value

    def arrange(self, cards: Sequence[Card]) -> ArrangeResult:
        hand = evaluate_hand(cards, self.table)
        splits = self.valid_splits(hand)
        scores = self.score(hand, splits)
        hints = self._hints(cards, hand, splits, scores)
        instant = declared_instant(self.rules, cards)
        shown = None
        if instant in SPLIT_TYPES:
            qualifying = qualifying_splits(cards, instant)[splits]
            best_shown = int(np.argmax(np.where(qualifying, scores, -np.inf)))
            shown = split_arrangement(cards, int(splits[best_shown]))
        return ArrangeResult(hints[0], hints, instant, shown)

    def _hints(
        self, cards: Sequence[Card], hand: HandClasses, splits: IntArray, scores: FloatArray
    ) -> tuple[Suggestion, ...]:
        """The best splits with distinct chi classes, best first (ties: lower split index)."""
        pool = min(_HINT_POOL, len(splits))
        for size in (pool, len(splits)):
            top = np.argpartition(-scores, size - 1)[:size] if size < len(splits) else None
            candidates = np.arange(len(splits)) if top is None else top
            order = candidates[np.lexsort((splits[candidates], -scores[candidates]))]
            picked: list[Suggestion] = []
            seen: set[tuple[int, int, int]] = set()
            for i in order:
                s = int(splits[i])
                key = (
                    int(hand.five[SPLIT_CHI1[s]]),
                    int(hand.five[SPLIT_CHI2[s]]),
                    int(hand.three[SPLIT_CHI3[s]]),
                )
                if key not in seen:
                    seen.add(key)
                    picked.append(Suggestion(split_arrangement(cards, s), float(scores[i])))
                if len(picked) == HINTS:
                    return tuple(picked)
        return tuple(picked)

    def best_split(self, cards: Sequence[Card]) -> int:
        hand = evaluate_hand(cards, self.table)
        splits = self.valid_splits(hand)
        return int(splits[np.argmax(self.score(hand, splits))])

    def greedy_split(self, cards: Sequence[Card]) -> int:
        """The baseline: the strongest chi 1, then the strongest chi 2 of the rest."""
        hand = evaluate_hand(cards, self.table)
        chi1 = int(np.argmax(hand.five))
        block = np.arange(chi1 * SPLITS_PER_CHI1, (chi1 + 1) * SPLITS_PER_CHI1)
        return int(block[np.argmax(hand.five[SPLIT_CHI2[block]])])

    def random_split(self, cards: Sequence[Card], rng: random.Random) -> int:
        """A uniformly random valid split (the weakest baseline)."""
        splits = self.valid_splits(evaluate_hand(cards, self.table))
        return int(splits[rng.randrange(len(splits))])

    def split_units(self, cards: Sequence[Card], split: int) -> float:
        hand = evaluate_hand(cards, self.table)
        return float(self.score(hand, np.array([split]))[0])


def split_arrangement(cards: Sequence[Card], split: int) -> Arrangement:
    """The arrangement of split ``split``, each chi listed high card first."""

    def chi(positions: IntArray) -> tuple[Card, ...]:
        return tuple(sorted((cards[int(p)] for p in positions), reverse=True))

    return Arrangement(
        chi(FIVES[SPLIT_CHI1[split]]), chi(FIVES[SPLIT_CHI2[split]]), chi(THREES[SPLIT_CHI3[split]])
    )


@lru_cache(maxsize=32)  # presets plus a few tables' option overrides
def arranger_for(rules: Ruleset) -> Arranger:
    return Arranger(rules, stored_counts(rules.preset))


def arrange(rules: Ruleset, cards: Sequence[Card]) -> ArrangeResult:
    return arranger_for(rules).arrange(cards)
