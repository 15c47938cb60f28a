"""Instant wins (Mậu binh thắng trắng, docs/rules.md 2.4 and 2.9), found from the 13 dealt cards."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..cards import Card, is_red
from ..hand5 import strength3
from .chi import chi_strength
from .rules import Ruleset
from .splits import (
    FIVES,
    SPLIT_CHI1,
    SPLIT_CHI2,
    SPLIT_CHI3,
    THREES,
    any_split,
    instant_flags,
    qualifying_splits,
)

SPLIT_TYPES = ("three_straights", "three_flushes", "three_straight_flushes")
SPLIT_TIEBREAK_TYPES = ("three_straights", "three_flushes")


def pair_count(cards: Sequence[Card]) -> int:
    """Pairs as the instant wins count them: a rank held 2 times is one, 4 times two."""
    counts = Counter(c >> 2 for c in cards)
    return sum(n // 2 for n in counts.values() if n in (2, 4))


def top_pair(cards: Sequence[Card]) -> int:
    """The highest rank held exactly 2 or 4 times (-1 if none): classic six pairs tie-break."""
    counts = Counter(c >> 2 for c in cards)
    return max((r for r, n in counts.items() if n in (2, 4)), default=-1)


def qualifying_types(cards: Sequence[Card]) -> frozenset[str]:
    """Every instant-win type the 13 cards qualify for, whatever the ruleset."""
    found: set[str] = set()
    counts = Counter(c >> 2 for c in cards)
    if len(counts) == 13:
        found.add("dragon")
        if len({c & 3 for c in cards}) == 1:
            found.add("flush_dragon")
    pairs = pair_count(cards)
    if pairs == 6:
        found.add("six_pairs")
    if pairs == 5 and sorted(counts.values()).count(3) == 1:
        found.add("five_pairs_trips")
    reds = sum(1 for c in cards if is_red(c))
    if reds in (0, 13):
        found.add("thirteen_one_colour")
    if reds in (1, 12):
        found.add("twelve_one_colour")
    found.update(kind for kind, flags in instant_flags(cards).items() if any_split(flags))
    return frozenset(found)


def qualifying_instants(rules: Ruleset, cards: Sequence[Card]) -> list[str]:
    """Every instant win of the ruleset the cards qualify for, under the names
    they count as, strongest first (docs/rules.md 2.8); the first is the declared one."""
    listed = dict(rules.instant_units)
    folds = dict(rules.instant_folds)
    found = set()
    for kind in qualifying_types(cards):
        name = kind if kind in listed else folds.get(kind)
        if name in listed:
            found.add(name)
    return sorted(found, key=rules.instant_rank, reverse=True)


def declared_instant(rules: Ruleset, cards: Sequence[Card]) -> str | None:
    """The strongest instant win in the ruleset's order, under the name it counts as."""
    found = qualifying_instants(rules, cards)
    return found[0] if found else None


def _three_straight_key(cards: Sequence[Card]) -> int:
    """A three-card straight's strength: its top card, A-2-3 the lowest (docs/rules.md 2.2)."""
    ranks = sorted(c >> 2 for c in cards)
    return 1 if ranks == [0, 1, 12] else ranks[2]


def split_tiebreak(rules: Ruleset, cards: Sequence[Card], kind: str | None) -> tuple[int, ...]:
    """The strongest split of ``kind`` (three straights or three flushes) the
    cards make, as the strengths of chi 1, 2 and 3 (docs/rules.md 2.9); ``()`` when
    the ruleset does not break such ties or ``kind`` is another type."""
    if not rules.split_instant_tiebreak or kind not in SPLIT_TIEBREAK_TYPES:
        return ()
    return _split_tiebreak(rules, tuple(sorted(cards)), kind)


@lru_cache(maxsize=256)
def _split_tiebreak(rules: Ruleset, cards: tuple[Card, ...], kind: str) -> tuple[int, ...]:
    splits = np.flatnonzero(qualifying_splits(cards, kind))
    if not len(splits):
        return ()
    fives: dict[int, int] = {}
    threes: dict[int, int] = {}

    def five(index: int) -> int:
        if index not in fives:
            fives[index] = chi_strength([cards[int(p)] for p in FIVES[index]], rules)
        return fives[index]

    def three(index: int) -> int:
        if index not in threes:
            chi = [cards[int(p)] for p in THREES[index]]
            threes[index] = (
                _three_straight_key(chi) if kind == "three_straights" else strength3(chi)
            )
        return threes[index]

    return max(
        (five(int(SPLIT_CHI1[s])), five(int(SPLIT_CHI2[s])), three(int(SPLIT_CHI3[s])))
        for s in splits
    )


def compare_instants(
    rules: Ruleset,
    a: str,
    a_top_pair: int,
    b: str,
    b_top_pair: int,
    a_split: tuple[int, ...] = (),
    b_split: tuple[int, ...] = (),
) -> int:
    """1 if instant win ``a`` beats ``b``, -1 if it loses, 0 for a tie.

    Same type: classic six pairs by the top pair; with
    ``rules.split_instant_tiebreak``, three straights and three flushes by
    their strongest splits (``split_tiebreak``), chi 1 first, then chi 2, then
    chi 3.
    """
    rank_a, rank_b = rules.instant_rank(a), rules.instant_rank(b)
    if rank_a != rank_b:
        return 1 if rank_a > rank_b else -1
    if a == "six_pairs" and rules.six_pairs_tiebreak and a_top_pair != b_top_pair:
        return 1 if a_top_pair > b_top_pair else -1
    if rules.split_instant_tiebreak and a in SPLIT_TIEBREAK_TYPES and a_split != b_split:
        return 1 if a_split > b_split else -1
    return 0
