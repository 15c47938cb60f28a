"""Dense strength classes of every chi, for vectorised evaluation.

Suits only matter through "all five suited", so a five-card chi is fixed by
its rank multiset and whether it is a flush, a three-card chi by its rank
multiset. A multiset is keyed by ``sum(5 ** rank)``. The distinct strengths of
a ruleset, sorted, give class indices 0..n-1 (stronger = higher), which index
the win-probability tables. ``evaluate_hand`` classifies all 1287 five-card and
286 three-card subsets of a hand with a few array operations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np

from ..cards import Card
from .chi import chi_bonus, chi_strength
from .rules import Ruleset
from .splits import FIVES, THREES, IntArray, ranks_suits, same_suit
from .tables import preset_data

RANK_WEIGHTS = 5 ** np.arange(13, dtype=np.int64)


def _multisets(size: int) -> list[tuple[int, ...]]:
    return [
        ranks
        for ranks in combinations_with_replacement(range(13), size)
        if max(ranks.count(r) for r in ranks) <= 4
    ]


def _cards(ranks: Sequence[int], flush: bool) -> list[Card]:
    """Cards with these ranks: all spades if ``flush``, else never suited."""
    cards = []
    for i, r in enumerate(ranks):
        ranks_before = len(set(ranks[:i]) - {r})
        suit = (ranks[:i].count(r) + ranks_before) % 4
        cards.append(r * 4 + (0 if flush else suit))
    return cards


CLASS_ARRAYS = (
    "five_keys",
    "five_plain",
    "five_flush",
    "three_keys",
    "three_class",
    "five_strength",
    "three_strength",
    "bonus_chi1",
    "bonus_chi2",
    "bonus_chi3",
)


@dataclass(frozen=True)
class ClassTable:
    """Class indices of a ruleset (see the module docstring)."""

    five_keys: IntArray
    five_plain: IntArray
    five_flush: IntArray
    three_keys: IntArray
    three_class: IntArray
    five_strength: IntArray
    three_strength: IntArray
    bonus_chi1: IntArray
    bonus_chi2: IntArray
    bonus_chi3: IntArray

    @property
    def five_count(self) -> int:
        return len(self.five_strength)

    @property
    def three_count(self) -> int:
        return len(self.three_strength)


CLASS_FIELDS = (
    "four_aces_top",
    "straight_flush_order",
    "bonus_full_house_chi2",
    "bonus_trips_chi3",
    "bonus_quads_chi1",
    "bonus_quads_chi2",
    "bonus_straight_flush_chi1",
    "bonus_straight_flush_chi2",
    "bonus_wheel_straight_flush_chi1",
    "bonus_wheel_straight_flush_chi2",
    "bonus_royal_straight_flush_chi1",
    "bonus_royal_straight_flush_chi2",
    "bonus_four_aces_chi1",
)


def class_signature(rules: Ruleset) -> str:
    """The ruleset fields a class table depends on, as text (stored with the package data)."""
    return ";".join(f"{name}={getattr(rules, name)}" for name in CLASS_FIELDS)


@lru_cache(maxsize=32)  # presets plus a few tables' option overrides
def class_table(rules: Ruleset) -> ClassTable:
    """The ruleset's class table: loaded from the package data when it was built for
    the same strengths and bonuses (the presets), else computed (about 0.2 s)."""
    data = preset_data(rules.preset)
    if data is not None and str(data["class_signature"]) == class_signature(rules):
        return ClassTable(**{name: data[f"class_{name}"] for name in CLASS_ARRAYS})
    return build_class_table(rules)


def build_class_table(rules: Ruleset) -> ClassTable:
    fives = _multisets(5)
    plain = [chi_strength(_cards(r, False), rules) for r in fives]
    flush = [chi_strength(_cards(r, True), rules) if len(set(r)) == 5 else -1 for r in fives]
    five_strength = np.unique(np.array([s for s in plain + flush if s >= 0], dtype=np.int64))
    threes = _multisets(3)
    three_strength = np.array([chi_strength(_cards(r, False), rules) for r in threes])
    five_keys = np.array([RANK_WEIGHTS[list(r)].sum() for r in fives], dtype=np.int64)
    three_keys = np.array([RANK_WEIGHTS[list(r)].sum() for r in threes], dtype=np.int64)
    five_order = np.argsort(five_keys)
    three_order = np.argsort(three_keys)
    flush_class = np.where(
        np.array(flush) >= 0, np.searchsorted(five_strength, np.array(flush)), -1
    )
    sorted_three = np.unique(three_strength)
    return ClassTable(
        five_keys=five_keys[five_order],
        five_plain=np.searchsorted(five_strength, np.array(plain))[five_order],
        five_flush=flush_class[five_order],
        three_keys=three_keys[three_order],
        three_class=np.searchsorted(sorted_three, three_strength)[three_order],
        five_strength=five_strength,
        three_strength=sorted_three,
        bonus_chi1=np.array([chi_bonus(rules, 1, int(s)) for s in five_strength]),
        bonus_chi2=np.array([chi_bonus(rules, 2, int(s)) for s in five_strength]),
        bonus_chi3=np.array([chi_bonus(rules, 3, int(s)) for s in sorted_three]),
    )


@dataclass(frozen=True)
class HandClasses:
    """Class index of each five-card and three-card subset of one 13-card hand."""

    five: IntArray
    three: IntArray


def evaluate_hand(cards: Sequence[Card], table: ClassTable) -> HandClasses:
    ranks, suits = ranks_suits(cards)
    weights = RANK_WEIGHTS[ranks]
    multiset5 = np.searchsorted(table.five_keys, weights[FIVES].sum(axis=1))
    flush = same_suit(suits, FIVES)
    five = np.where(flush, table.five_flush[multiset5], table.five_plain[multiset5])
    multiset3 = np.searchsorted(table.three_keys, weights[THREES].sum(axis=1))
    return HandClasses(five=five, three=table.three_class[multiset3])


def five_classes(cards: IntArray, table: ClassTable) -> IntArray:
    """Class of each row of five card codes (any number of rows)."""
    ranks, suits = cards >> 2, cards & 3
    key = RANK_WEIGHTS[ranks].sum(axis=1)
    multiset = np.searchsorted(table.five_keys, key)
    flush = suits.min(axis=1) == suits.max(axis=1)
    result: IntArray = np.where(flush, table.five_flush[multiset], table.five_plain[multiset])
    return result


def three_classes(cards: IntArray, table: ClassTable) -> IntArray:
    """Class of each row of three card codes."""
    key = RANK_WEIGHTS[cards >> 2].sum(axis=1)
    result: IntArray = table.three_class[np.searchsorted(table.three_keys, key)]
    return result
