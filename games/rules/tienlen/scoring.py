"""What a hand is worth at the end: thối, cóng, kết 3 bích, tới trắng (docs/rules.md 3.5, 3.7)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from .combos import Play, classify, two_value
from .order import ACE_RANK, RANK_COUNT, THREE_SPADES, TWO_RANK, TlCard, is_red
from .rules import FOUR_PAIR_RUN, INSTANT_TYPES, QUAD, THREE_PAIR_RUN, Penalties

Counts = tuple[int, ...]
_PAIR_RUN_BY_LENGTH = {3: THREE_PAIR_RUN, 4: FOUR_PAIR_RUN}


class Item(NamedTuple):
    """One priced part of a leftover hand: a 2 or a bomb (thối)."""

    name: str
    cards: Play
    units: int


class Leftover(NamedTuple):
    items: tuple[Item, ...]
    ordinary: int


def leftover(hand: Sequence[TlCard], penalties: Penalties, per_card: int) -> Leftover:
    """Group the cards left in hand into 2s, bombs and ordinary cards, paying the most.

    Each 2 is priced on its own, so a tứ quý of 2s pays as four 2s unless the
    penalties price a tứ quý higher. The bombs are chosen among the other cards
    to maximise the total with ordinary cards worth ``per_card`` (0 for a cóng
    hand).
    """
    hand = sorted(hand)
    twos = [c for c in hand if c >> 2 == TWO_RANK]
    items = [
        Item("red_two" if is_red(c) else "black_two", (c,), two_value(c, penalties)) for c in twos
    ]
    if len(twos) == 4 and penalties.quad > sum(item.units for item in items):
        items = [Item(QUAD, tuple(twos), penalties.quad)]
    counts = tuple(sum(1 for c in hand if c >> 2 == r) for r in range(TWO_RANK))
    _, bombs = _best_bombs(counts, 0, penalties, per_card)
    remaining = [c for c in hand if c >> 2 != TWO_RANK]
    for kind, start, width in bombs:
        cards = _take(remaining, start, width, 4 if kind == QUAD else 2)
        items.append(Item(kind, cards, penalties.bomb(kind)))
    return Leftover(tuple(items), len(remaining))


def _take(cards: list[TlCard], start: int, width: int, per_rank: int) -> Play:
    """Remove and return the highest ``per_rank`` cards of each of ``width`` ranks."""
    taken: list[TlCard] = []
    for r in range(start, start + width):
        of_rank = [c for c in cards if c >> 2 == r][-per_rank:]
        taken += of_rank
        for c in of_rank:
            cards.remove(c)
    return tuple(taken)


@lru_cache(maxsize=1 << 16)
def _best_bombs(
    counts: Counts, rank: int, penalties: Penalties, per_card: int
) -> tuple[int, tuple[tuple[str, int, int], ...]]:
    """The largest gain over ordinary pricing from disjoint bombs at ranks >= ``rank``.

    Returns the gain and the bombs as (kind, lowest rank, number of ranks);
    ties take the bomb, so a thối 3 đôi thông is named as such.
    """
    if rank > ACE_RANK:
        return 0, ()
    best = _best_bombs(counts, rank + 1, penalties, per_card)
    options: list[tuple[str, int, int]] = []
    if counts[rank] == 4:
        options.append((QUAD, 1, 4))
    for width, kind in _PAIR_RUN_BY_LENGTH.items():
        if rank + width - 1 <= ACE_RANK and all(counts[rank + i] >= 2 for i in range(width)):
            options.append((kind, width, 2))
    for kind, width, per_rank in options:
        used = list(counts)
        for i in range(width):
            used[rank + i] -= per_rank
        gain, rest = _best_bombs(tuple(used), rank, penalties, per_card)
        gain += penalties.bomb(kind) - per_card * width * per_rank
        if gain >= best[0]:
            best = (gain, ((kind, rank, width), *rest))
    return best


def is_on_ket(hand: Sequence[TlCard]) -> bool:
    """Whether the whole hand is one combination containing 3♠ (chặn kết 3 bích)."""
    return THREE_SPADES in hand and classify(sorted(hand)) is not None


class Instant(NamedTuple):
    """A tới trắng: its type and the card that breaks ties between two of one type."""

    type: str
    top: TlCard

    def strength(self) -> tuple[int, TlCard]:
        return -INSTANT_TYPES.index(self.type), self.top


def instant_win(hand: Sequence[TlCard]) -> Instant | None:
    """The strongest tới trắng the dealt hand qualifies for, or None (docs/rules.md 3.5)."""
    by_rank: list[list[TlCard]] = [[] for _ in range(RANK_COUNT)]
    for card in sorted(hand):
        by_rank[card >> 2].append(card)
    for name in INSTANT_TYPES:
        top = _DETECTORS[name](by_rank, hand)
        if top is not None:
            return Instant(name, top)
    return None


def _highest_with(by_rank: list[list[TlCard]], at_least: int, needed: int) -> TlCard | None:
    """The top card of the highest rank held ``at_least`` times, if ``needed`` such ranks."""
    ranks = [r for r in range(RANK_COUNT) if len(by_rank[r]) >= at_least]
    return by_rank[ranks[-1]][-1] if len(ranks) >= needed else None


def _pair_run_top(length: int) -> Callable[[list[list[TlCard]], Sequence[TlCard]], TlCard | None]:
    def detect(by_rank: list[list[TlCard]], hand: Sequence[TlCard]) -> TlCard | None:
        run = 0
        top = None
        for r in range(ACE_RANK + 1):
            run = run + 1 if len(by_rank[r]) >= 2 else 0
            if run >= length:
                top = by_rank[r][-1]
        return top

    return detect


def _dragon(by_rank: list[list[TlCard]], hand: Sequence[TlCard]) -> TlCard | None:
    return by_rank[ACE_RANK][-1] if all(by_rank[r] for r in range(ACE_RANK + 1)) else None


def _one_suit(by_rank: list[list[TlCard]], hand: Sequence[TlCard]) -> TlCard | None:
    for s in range(4):
        of_suit = [c for c in hand if c & 3 == s]
        if len(of_suit) >= 12:
            return max(of_suit)
    return None


def _six_pairs(by_rank: list[list[TlCard]], hand: Sequence[TlCard]) -> TlCard | None:
    if sum(len(b) // 2 for b in by_rank) < 6:
        return None
    return _highest_with(by_rank, 2, 1)


_DETECTORS: dict[str, Callable[[list[list[TlCard]], Sequence[TlCard]], TlCard | None]] = {
    "dragon": _dragon,
    "six_consecutive_pairs": _pair_run_top(6),
    "four_triples": lambda by_rank, hand: _highest_with(by_rank, 3, 4),
    "two_quads": lambda by_rank, hand: _highest_with(by_rank, 4, 2),
    "twelve_one_suit": _one_suit,
    "five_consecutive_pairs": _pair_run_top(5),
    "four_twos": lambda by_rank, hand: (
        by_rank[TWO_RANK][-1] if len(by_rank[TWO_RANK]) == 4 else None
    ),
    "six_pairs": _six_pairs,
}
