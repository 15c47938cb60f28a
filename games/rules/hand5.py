"""Suit-blind ranking of five-card (and three-card) poker hands.

Shared by Mậu Binh (docs/rules.md 2.2, 2.3) and Hold'em (docs/rules.md 4). A hand's
strength is one integer: ``category << 20`` plus the tie-break ranks packed
four bits each, high to low, so stronger hands compare greater and equal
ranks tie whatever the suits. Straight order: 10-J-Q-K-A highest, then
K-high down to 6-high, and A-2-3-4-5 the lowest (its top card counts as 5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import IntEnum

from .cards import Card

ACE = 12


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8


CATEGORY_NAMES: dict[Category, str] = {
    Category.HIGH_CARD: "high_card",
    Category.PAIR: "pair",
    Category.TWO_PAIR: "two_pair",
    Category.TRIPS: "trips",
    Category.STRAIGHT: "straight",
    Category.FLUSH: "flush",
    Category.FULL_HOUSE: "full_house",
    Category.QUADS: "quads",
    Category.STRAIGHT_FLUSH: "straight_flush",
}

CATEGORY_SHIFT = 20


def pack(category: int, ranks: Sequence[int]) -> int:
    value = 0
    for i in range(5):
        value = (value << 4) | (ranks[i] + 1 if i < len(ranks) else 0)
    return (category << CATEGORY_SHIFT) | value


def category_of(strength: int) -> Category:
    return Category(strength >> CATEGORY_SHIFT)


def straight_top(ranks: Sequence[int]) -> int | None:
    """The top rank of five distinct ranks that form a straight, else None."""
    ordered = sorted(set(ranks))
    if len(ordered) != 5:
        return None
    if ordered[4] - ordered[0] == 4:
        return ordered[4]
    if ordered == [0, 1, 2, 3, ACE]:
        return 3  # A-2-3-4-5: the five is the top card
    return None


def evaluate5(cards: Sequence[Card]) -> tuple[Category, tuple[int, ...]]:
    """The category and its tie-break ranks (high to low) of exactly five cards."""
    ranks = [c >> 2 for c in cards]
    counts = Counter(ranks)
    # Ranks ordered by (count, rank) descending: the tie-break order of every category.
    grouped = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    flush = len({c & 3 for c in cards}) == 1
    top = straight_top(ranks)
    shape = sorted(counts.values(), reverse=True)
    if top is not None:
        return (Category.STRAIGHT_FLUSH if flush else Category.STRAIGHT), (top,)
    if shape[0] == 4:
        return Category.QUADS, tuple(grouped)
    if shape == [3, 2]:
        return Category.FULL_HOUSE, tuple(grouped)
    if flush:
        return Category.FLUSH, tuple(sorted(ranks, reverse=True))
    if shape[0] == 3:
        return Category.TRIPS, tuple(grouped)
    if shape == [2, 2, 1]:
        return Category.TWO_PAIR, tuple(grouped)
    if shape[0] == 2:
        return Category.PAIR, tuple(grouped)
    return Category.HIGH_CARD, tuple(grouped)


def evaluate3(cards: Sequence[Card]) -> tuple[Category, tuple[int, ...]]:
    """Three cards: only high card, pair and trips count (docs/rules.md 2.3)."""
    ranks = [c >> 2 for c in cards]
    counts = Counter(ranks)
    grouped = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    top = max(counts.values())
    category = Category.TRIPS if top == 3 else Category.PAIR if top == 2 else Category.HIGH_CARD
    return category, tuple(grouped)


def strength5(cards: Sequence[Card]) -> int:
    category, ranks = evaluate5(cards)
    return pack(category, ranks)


def strength3(cards: Sequence[Card]) -> int:
    """Comparable with ``strength5``: category first, then the ranks both have."""
    category, ranks = evaluate3(cards)
    return pack(category, ranks)
