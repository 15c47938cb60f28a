"""Card codes in Tiến Lên order (docs/rules.md 3.1): rank * 4 + suit, so "higher" is ``>``."""

from __future__ import annotations

from games.rules.cards import parse_card
from games.rules.tienlen.order import from_tl, parse_tl, tl_str, to_tl

ORDER = [rank + suit for rank in "3456789TJQKA2" for suit in "scdh"]


def test_codes_follow_rank_then_suit_with_3s_lowest_and_2h_highest() -> None:
    # given the 52 cards from 3♠ up to 2♥ / when encoded
    codes = [to_tl(parse_card(card)) for card in ORDER]
    # then they are 0..51 in that order, and decode back
    assert codes == list(range(52))
    assert [tl_str(code) for code in codes] == ORDER
    assert [from_tl(to_tl(c)) for c in range(52)] == list(range(52))


def test_parsing_sorts_by_strength() -> None:
    assert parse_tl(["2s", "Ah", "3h", "3s", "10d"]) == (0, 3, 30, 47, 48)
