"""Cards (docs/rules.md 1): parsing, printing and the errors for bad input."""

from __future__ import annotations

import pytest

from games.rules.cards import (
    DECK,
    card_display,
    card_str,
    cards_str,
    ensure_distinct,
    is_red,
    make,
    parse_card,
    parse_cards,
    rank,
    suit,
)
from games.rules.errors import RulesError


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("2s", 0),
        ("2c", 1),
        ("3s", 4),
        ("Td", 34),
        ("10d", 34),
        ("td", 34),
        ("Ah", 51),
        ("A♥", 51),
        ("10♦", 34),
        (" Kc ", 45),
    ],
)
def test_parse_card(text: str, code: int) -> None:
    assert parse_card(text) == code


def test_every_card_prints_and_parses_back() -> None:
    assert len(DECK) == 52
    assert [parse_card(card_str(c)) for c in DECK] == list(DECK)
    assert [parse_card(card_display(c)) for c in DECK] == list(DECK)


def test_text_forms() -> None:
    assert card_str(34) == "Td"
    assert card_display(34) == "10♦"
    assert card_display(51) == "A♥"
    assert cards_str([0, 51]) == ["2s", "Ah"]


def test_rank_suit_colour() -> None:
    assert (rank(51), suit(51)) == (12, 3)
    assert make(12, 3) == 51
    assert [is_red(make(0, s)) for s in range(4)] == [False, False, True, True]


@pytest.mark.parametrize("text", ["1s", "Ax", "", "AAs", "11h", None, 5])
def test_unknown_card(text: object) -> None:
    with pytest.raises(RulesError) as err:
        parse_card(text)
    assert err.value.code == "unknown_card"


def test_parse_cards_errors() -> None:
    assert parse_cards(["As", "10h"], count=2) == [48, 35]
    with pytest.raises(RulesError) as err:
        parse_cards(["As", "as"])
    assert err.value.code == "duplicate_card"
    assert err.value.extra == {"card": "As"}
    with pytest.raises(RulesError) as err:
        parse_cards(["As"], count=(5, 3))
    assert err.value.code == "wrong_card_count"
    assert "5 or 3" in err.value.message
    with pytest.raises(RulesError) as err:
        parse_cards("As Ks")
    assert err.value.code == "bad_cards"


def test_ensure_distinct_across_groups() -> None:
    ensure_distinct([[0, 1], [2]])
    with pytest.raises(RulesError) as err:
        ensure_distinct([[0, 1], [1]])
    assert err.value.code == "duplicate_card"


def test_an_unknown_card_error_does_not_repeat_a_long_input() -> None:
    with pytest.raises(RulesError) as err:
        parse_card("x" * 300)
    assert err.value.code == "unknown_card"
    assert err.value.message == "Unknown card: 'xxxxxxxxxxxxxxxx..."
    assert err.value.extra["card"] == "x" * 20
