"""Index tables over the 72,072 ways to split 13 cards into chi of 5, 5 and 3.

Positions 0..12 name a player's cards. ``FIVES`` (1287 x 5) and ``THREES``
(286 x 3) list every subset of positions in lexicographic order; split ``s``
puts ``FIVES[SPLIT_CHI1[s]]`` in chi 1, ``FIVES[SPLIT_CHI2[s]]`` in chi 2 and
``THREES[SPLIT_CHI3[s]]`` in chi 3. Splits are ordered by chi 1, so the 56
splits sharing a chi 1 are contiguous.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import numpy.typing as npt

from ..cards import Card

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

HAND_SIZE = 13
SPLITS_PER_CHI1 = 56


def _subsets(size: int) -> IntArray:
    return np.array(list(combinations(range(HAND_SIZE), size)), dtype=np.int64)


def _masks(subsets: IntArray) -> IntArray:
    masks: IntArray = np.bitwise_or.reduce(np.left_shift(1, subsets), axis=1)
    return masks


def _build_splits() -> tuple[IntArray, IntArray, IntArray]:
    mask5 = _masks(FIVES)
    mask3 = _masks(THREES)
    three_index = np.full(1 << HAND_SIZE, -1, dtype=np.int64)
    three_index[mask3] = np.arange(len(THREES))
    disjoint = (mask5[:, None] & mask5[None, :]) == 0
    chi1, chi2 = np.nonzero(disjoint)
    rest = ((1 << HAND_SIZE) - 1) ^ mask5[chi1] ^ mask5[chi2]
    return chi1.astype(np.int64), chi2.astype(np.int64), three_index[rest]


FIVES = _subsets(5)
THREES = _subsets(3)
SPLIT_CHI1, SPLIT_CHI2, SPLIT_CHI3 = _build_splits()
SPLIT_COUNT = len(SPLIT_CHI1)

_WHEEL = np.array([0, 1, 2, 3, 12])


def ranks_suits(cards: Sequence[Card]) -> tuple[IntArray, IntArray]:
    hand = np.asarray(cards, dtype=np.int64)
    return hand >> 2, hand & 3


def same_suit(suits: IntArray, subsets: IntArray) -> BoolArray:
    picked = suits[subsets]
    result: BoolArray = picked.min(axis=1) == picked.max(axis=1)
    return result


def straights5(ranks: IntArray) -> BoolArray:
    """Which five-card subsets are straights (A-2-3-4-5 and 10-J-Q-K-A included)."""
    picked = np.sort(ranks[FIVES], axis=1)
    distinct = (np.diff(picked, axis=1) > 0).all(axis=1)
    run = (picked[:, 4] - picked[:, 0]) == 4
    wheel = (picked == _WHEEL).all(axis=1)
    result: BoolArray = distinct & (run | wheel)
    return result


def straights3(ranks: IntArray) -> BoolArray:
    """Three consecutive ranks for the instant wins: A-2-3 and Q-K-A count, K-A-2 does not."""
    picked = np.sort(ranks[THREES], axis=1)
    distinct = (np.diff(picked, axis=1) > 0).all(axis=1)
    run = (picked[:, 2] - picked[:, 0]) == 2
    low_ace = (picked == np.array([0, 1, 12])).all(axis=1)
    result: BoolArray = distinct & (run | low_ace)
    return result


SplitFlags = tuple[BoolArray, BoolArray]


def instant_flags(cards: Sequence[Card]) -> dict[str, SplitFlags]:
    """Per instant type, which five-card and which three-card subsets may serve in it."""
    ranks, suits = ranks_suits(cards)
    straight = (straights5(ranks), straights3(ranks))
    flush = (same_suit(suits, FIVES), same_suit(suits, THREES))
    return {
        "three_straights": straight,
        "three_flushes": flush,
        "three_straight_flushes": (straight[0] & flush[0], straight[1] & flush[1]),
    }


def any_split(flags: SplitFlags) -> bool:
    """Whether some split puts qualifying subsets in all three chi (chi 1 blocks only)."""
    five, three = flags
    chi1 = np.flatnonzero(five)
    if len(chi1) < 2 or not three.any():
        return False
    candidates = (chi1[:, None] * SPLITS_PER_CHI1 + np.arange(SPLITS_PER_CHI1)).ravel()
    return bool((five[SPLIT_CHI2[candidates]] & three[SPLIT_CHI3[candidates]]).any())


def qualifying_splits(cards: Sequence[Card], kind: str) -> BoolArray:
    """The splits that make all three chi straights, flushes or straight flushes."""
    five, three = instant_flags(cards)[kind]
    result: BoolArray = five[SPLIT_CHI1] & five[SPLIT_CHI2] & three[SPLIT_CHI3]
    return result
