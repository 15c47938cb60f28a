"""Cards as integers: ``rank * 4 + suit``.

Ranks 0..12 stand for 2, 3, ..., K, A and suits 0..3 for spades, clubs,
diamonds, hearts (the Tiến Lên suit order). So ``Card`` 0 is 2♠ and 51 is A♥.
Games that order ranks differently (Tiến Lên puts 2 on top) map these codes
with their own table; the text form is shared.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import RulesError

Card = int

RANKS = "23456789TJQKA"
SUITS = "scdh"
SUIT_SYMBOLS = "♠♣♦♥"
RED_SUITS = frozenset({2, 3})
DECK: tuple[Card, ...] = tuple(range(52))

_PARSE: dict[str, Card] = {}
for _r, _rc in enumerate(RANKS):
    for _s, _sc in enumerate(SUITS):
        _code = _r * 4 + _s
        _PARSE[_rc + _sc] = _code
        _PARSE[_rc.lower() + _sc] = _code
        _PARSE[_rc + SUIT_SYMBOLS[_s]] = _code
        _PARSE[_rc.lower() + SUIT_SYMBOLS[_s]] = _code
        if _rc == "T":
            _PARSE["10" + _sc] = _code
            _PARSE["10" + SUIT_SYMBOLS[_s]] = _code
for _k in list(_PARSE):
    _PARSE[_k[:-1] + _k[-1].upper()] = _PARSE[_k]


def rank(card: Card) -> int:
    return card >> 2


def suit(card: Card) -> int:
    return card & 3


def make(rank_index: int, suit_index: int) -> Card:
    return rank_index * 4 + suit_index


def is_red(card: Card) -> bool:
    return (card & 3) in RED_SUITS


def parse_card(text: object) -> Card:
    if not isinstance(text, str) or text.strip() not in _PARSE:
        shown = repr(text) if len(repr(text)) <= 20 else repr(text)[:17] + "..."
        raise RulesError("unknown_card", f"Unknown card: {shown}", card=str(text)[:20])
    return _PARSE[text.strip()]


def parse_cards(
    items: object, *, count: int | Sequence[int] | None = None, field: str = "cards"
) -> list[Card]:
    """Parse a list of card strings, refusing unknown and repeated cards.

    ``count`` is the required number of cards (or the allowed numbers).
    """
    if not isinstance(items, list):
        raise RulesError("bad_cards", f"{field} must be a list of cards", field=field)
    cards = [parse_card(item) for item in items]
    if len(set(cards)) != len(cards):
        seen: set[Card] = set()
        for c in cards:
            if c in seen:
                raise RulesError(
                    "duplicate_card", f"Card {card_str(c)} appears twice", card=card_str(c)
                )
            seen.add(c)
    if count is not None:
        allowed = (count,) if isinstance(count, int) else tuple(count)
        if len(cards) not in allowed:
            wanted = " or ".join(str(n) for n in allowed)
            raise RulesError(
                "wrong_card_count",
                f"{field} needs {wanted} cards, got {len(cards)}",
                field=field,
            )
    return cards


def ensure_distinct(groups: Iterable[Sequence[Card]]) -> None:
    """Refuse a card that appears in more than one group (or twice in one)."""
    seen: set[Card] = set()
    for group in groups:
        for c in group:
            if c in seen:
                raise RulesError(
                    "duplicate_card", f"Card {card_str(c)} appears twice", card=card_str(c)
                )
            seen.add(c)


def card_str(card: Card) -> str:
    return RANKS[card >> 2] + SUITS[card & 3]


# Every view and saved state spells cards out: looked up, not rebuilt.
_CARD_STR: tuple[str, ...] = tuple(card_str(c) for c in range(52))


def cards_str(cards: Iterable[Card]) -> list[str]:
    names = _CARD_STR
    return [names[c] for c in cards]


def card_display(card: Card) -> str:
    """Human form with the suit symbol: ``10♦``, ``A♥``."""
    r = RANKS[card >> 2]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[card & 3]
