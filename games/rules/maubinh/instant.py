"""Instant wins (Mậu binh thắng trắng, RULES.md 2.4 and 2.9), found from the 13 dealt cards."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..cards import Card, is_red
from .rules import Ruleset
from .splits import any_split, instant_flags

SPLIT_TYPES = ("three_straights", "three_flushes", "three_straight_flushes")


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


def declared_instant(rules: Ruleset, cards: Sequence[Card]) -> str | None:
    """The strongest instant win in the ruleset's order, under the name it counts as."""
    listed = dict(rules.instant_units)
    folds = dict(rules.instant_folds)
    declared = set()
    for kind in qualifying_types(cards):
        name = kind if kind in listed else folds.get(kind)
        if name in listed:
            declared.add(name)
    return max(declared, key=rules.instant_rank, default=None)


def compare_instants(rules: Ruleset, a: str, a_top_pair: int, b: str, b_top_pair: int) -> int:
    """1 if instant win ``a`` beats ``b``, -1 if it loses, 0 for a tie."""
    rank_a, rank_b = rules.instant_rank(a), rules.instant_rank(b)
    if rank_a != rank_b:
        return 1 if rank_a > rank_b else -1
    if a == "six_pairs" and rules.six_pairs_tiebreak and a_top_pair != b_top_pair:
        return 1 if a_top_pair > b_top_pair else -1
    return 0
