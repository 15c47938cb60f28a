"""Views (docs/rules.md 4): own cards; others' only when shown at showdown; folded hands never."""

from __future__ import annotations

import pytest

from games.rules.cards import parse_cards
from games.rules.errors import RulesError
from games.rules.holdem.cli import deck_for
from games.rules.holdem.engine import ENGINE
from games.rules.holdem.state import HandState

from .support import RULES

HOLE = [["Ah", "As"], ["Kh", "Ks"], ["7c", "2d"]]
BOARD = ["2c", "7d", "9s", "Jc", "3d"]


def start() -> HandState:
    deck = deck_for([parse_cards(h) for h in HOLE], parse_cards(BOARD))
    state, _ = ENGINE.start(RULES, deck, 3, {"stake": 1, "button": 0, "stacks": [100, 100, 100]})
    return state


def test_a_player_sees_own_cards_only_and_the_legal_actions() -> None:
    view = ENGINE.view(start(), 0)
    assert view["hole"] == ["Ah", "As"]
    assert view["shown"] == [None, None, None]
    assert view["board"] == []
    assert view["you"] == 0
    assert ENGINE.status(start()).actors == (0,)
    assert view["to_call"] == 2
    assert view["legal"] == {
        "fold": True,
        "check": False,
        "call": 2,
        "raise": {"min": 4, "max": 100},
        "all_in": 100,
    }
    assert view["pot"] == 3
    assert view["bets"] == [0, 1, 2]
    assert view["pots"] == []
    assert ENGINE.view(start(), None)["hole"] is None
    # the legal actions are the player to act's own: nobody else is shown them
    assert ENGINE.view(start(), None)["legal"] is None
    assert ENGINE.view(start(), 1)["legal"] is None


def test_showdown_shows_live_hands_and_never_the_folded_one() -> None:
    # given player 2 folds and the others go all-in
    state = start()
    for player, action in [(0, "all_in"), (1, "all_in"), (2, "fold")]:
        state, _ = ENGINE.apply(state, player, {"type": action})
    # then everyone sees both live hands, and no one but player 2 sees 7c 2d
    for viewer in (None, 0, 1):
        view = ENGINE.view(state, viewer)
        assert view["shown"] == [["Ah", "As"], ["Kh", "Ks"], None]
        assert view["board"] == BOARD
        assert "7c" not in str(view)
    assert ENGINE.view(state, 2)["hole"] == ["7c", "2d"]
    assert ENGINE.view(state, 2)["pots"] == [
        {"amount": 202, "eligible": [0, 1], "winners": [0], "shares": [202]}
    ]


def test_a_hand_won_without_showdown_shows_nothing() -> None:
    state = start()
    state, _ = ENGINE.apply(state, 0, {"type": "raise", "to": 10})
    state, _ = ENGINE.apply(state, 1, {"type": "fold"})
    state, _ = ENGINE.apply(state, 2, {"type": "fold"})
    view = ENGINE.view(state, None)
    assert view["finished"] is True
    assert view["shown"] == [None, None, None]
    assert view["board"] == []
    assert not any(card in str(view) for card in ["Ah", "As", "Kh", "Ks", *BOARD])


@pytest.mark.parametrize("player", [-1, 3, True, "0", 1.0])
def test_a_view_for_no_such_player_is_refused(player: object) -> None:
    # a negative index must not become "the last player" and show their cards
    with pytest.raises(RulesError) as refused:
        ENGINE.view(start(), player)  # type: ignore[arg-type]
    assert refused.value.code == "bad_player"
