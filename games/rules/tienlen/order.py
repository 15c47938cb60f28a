"""Cards in Tiến Lên order, so that "higher card" is ``>``.

A Tiến Lên code is ``tl_rank * 4 + suit`` with ``tl_rank`` 0..12 standing
for 3, 4, ..., K, A, 2: 3♠ is 0 and 2♥ is 51. The shared codes of
:mod:`games.rules.cards` (2 lowest) are mapped on the way in and out.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import Card, card_str, parse_cards

TlCard = int

THREE_SPADES: TlCard = 0
ACE_RANK = 11
TWO_RANK = 12
RANK_COUNT = 13


def to_tl(card: Card) -> TlCard:
    return ((card >> 2) + 12) % 13 * 4 + (card & 3)


def from_tl(card: TlCard) -> Card:
    return ((card >> 2) + 1) % 13 * 4 + (card & 3)


def tl_rank(card: TlCard) -> int:
    return card >> 2


def is_red(card: TlCard) -> bool:
    return card & 3 >= 2


def tl_str(card: TlCard) -> str:
    return _TL_STR[card]


def tl_strs(cards: Iterable[TlCard]) -> list[str]:
    names = _TL_STR
    return [names[c] for c in cards]


def parse_tl(items: object, *, field: str = "cards") -> tuple[TlCard, ...]:
    """Parse card strings into a sorted tuple of Tiến Lên codes (refusing repeats)."""
    return tuple(sorted(to_tl(c) for c in parse_cards(items, field=field)))


def parse_saved_tl(items: object) -> tuple[TlCard, ...]:
    """``parse_tl`` for the card names a saved state holds: the names
    ``tl_strs`` writes are looked up; anything else goes through ``parse_tl``
    (the same cards, or the same error)."""
    if not isinstance(items, list):
        return parse_tl(items)
    try:
        cards = tuple(sorted([_TL_OF[name] for name in items]))
    except (KeyError, TypeError):
        return parse_tl(items)
    if len(set(cards)) != len(cards):
        return parse_tl(items)
    return cards


# Views and saved states spell out every card of the hand's history: looked up.
_TL_STR: tuple[str, ...] = tuple(card_str(from_tl(c)) for c in range(52))
_TL_OF: dict[str, TlCard] = {name: c for c, name in enumerate(_TL_STR)}
