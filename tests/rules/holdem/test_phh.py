"""PHH hand histories (docs/rules.md 4: folded hands are never shown, in history either)."""

from __future__ import annotations

import warnings

import pytest
from pokerkit import Automation, HandHistory, Mode, NoLimitTexasHoldem

from games.rules.cards import parse_cards
from games.rules.errors import RulesError
from games.rules.holdem.cli import deck_for
from games.rules.holdem.engine import ENGINE
from games.rules.holdem.phh import export_phh, import_phh
from games.rules.holdem.state import HandState

from .support import RULES


def side_pot_hand() -> HandState:
    hole = [["Ah", "As"], ["Kh", "Ks"], ["Qh", "Qs"], ["7c", "2d"]]
    deck = deck_for([parse_cards(h) for h in hole], parse_cards(["2c", "7d", "9s", "Jc", "3d"]))
    state, _ = ENGINE.start(
        RULES, deck, 4, {"stake": 1, "button": 0, "stacks": [50, 100, 200, 80], "max_raise": None}
    )
    for player, action in [(3, "fold"), (0, "all_in"), (1, "all_in"), (2, "call")]:
        state, _ = ENGINE.apply(state, player, {"type": action})
    return state


EXPECTED = """variant = "NT"
antes = [0, 0, 0, 0]
blinds_or_straddles = [1, 2, 0, 0]
min_bet = 2
starting_stacks = [100, 200, 80, 50]
actions = [
  "d dh p1 KhKs",
  "d dh p2 QhQs",
  "d dh p3 ????",
  "d dh p4 AhAs",
  "p3 f",
  "p4 cbr 50",
  "p1 cbr 100",
  "p2 cc",
  "p1 sm KhKs",
  "p2 sm QhQs",
  "p4 sm AhAs",
  "d db 2c7d9s",
  "d db Jc",
  "d db 3d",
]
hand = 7
seats = [2, 3, 4, 1]
finishing_stacks = [100, 100, 80, 150]
winnings = [100, 0, 0, 150]
time_limit = 20
time_banks = [30, 30, 30, 30]
"""


def test_export_writes_the_public_history() -> None:
    # given a finished hand where player 3 folded and three hands went to showdown
    state = side_pot_hand()
    # when it is exported for the public
    text = export_phh(state, hand=7)
    # then the folded hand stays hidden, shown hands are written before the run-out
    assert text == EXPECTED


def test_export_names_the_players_in_phh_order() -> None:
    text = export_phh(side_pot_hand(), names=["An", "Bình", "Chi", "Dũng"])
    assert 'players = ["Bình", "Chi", "Dũng", "An"]' in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert HandHistory.loads(text).players == ["Bình", "Chi", "Dũng", "An"]


def test_export_for_a_player_adds_only_their_own_cards() -> None:
    state = side_pot_hand()
    assert "d dh p3 7c2d" in export_phh(state, viewer=3)
    assert "d dh p3 ????" in export_phh(state, viewer=0)
    assert "d dh p3 7c2d" in export_phh(state, reveal_all=True)


def test_pokerkit_replays_the_export() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, final = iter(HandHistory.loads(EXPECTED))
    assert list(final.stacks) == [100, 100, 80, 150]


def test_import_replays_a_pokerkit_history() -> None:
    # given a hand played and written by pokerkit (blinds 5/10, three players)
    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    game = NoLimitTexasHoldem(automations, False, 0, (5, 10), 10, mode=Mode.CASH_GAME)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pk = game((500, 400, 300), 3)
        for cards in ("AcAd", "KcKd", "7h2s"):
            pk.deal_hole(cards)
        pk.complete_bet_or_raise_to(30)  # the button raises
        pk.check_or_call()  # small blind calls
        pk.fold()  # big blind folds
        pk.deal_board("2c3c4d")
        pk.complete_bet_or_raise_to(60)
        pk.check_or_call()
        pk.deal_board("9h")
        pk.check_or_call()
        pk.check_or_call()
        pk.deal_board("Td")
        pk.check_or_call()
        pk.check_or_call()
        text = HandHistory.from_game_state(game, pk).dumps()
    # when our engine replays it
    state = import_phh(text)
    # then it ends with pokerkit's stacks (our player k is PHH's p(k+1), button last)
    assert state.finished
    assert state.stacks == list(pk.stacks)
    assert state.button == 2
    assert [r["player"] for r in state.log if r["kind"] == "cards_shown"] == [0, 2]


@pytest.mark.parametrize(
    ("before", "after", "message"),
    [
        ('"NT"', '"PO"', "Only no-limit Texas hold'em (variant NT) is supported"),
        ("antes = [0, 0, 0, 0]", "antes = [1, 1, 1, 1]", "Only the table's small and big blind"),
        ("antes = [0, 0, 0, 0]", "antes = 0", "Only the table's small and big blind"),
        ("blinds_or_straddles = [1, 2, 0, 0]", "blinds_or_straddles = [1, 2, 4, 0]", "Only the"),
        ("min_bet = 2", "min_bet = 4", "min_bet must be the big blind (2)"),
        ("seats = [2, 3, 4, 1]", 'seats = "2341"', "seats must list whole numbers"),
        ("seats = [2, 3, 4, 1]", "seats = [2, 3, 4, 4]", "seats must number the players 1 to n"),
        ("seats = [2, 3, 4, 1]", "seats = [3, 2, 4, 1]", "seats must follow the order of play"),
        ('"p4 cbr 50"', '"p4 cbr 50 60"', "Cannot read the PHH action 'p4 cbr 50 60'"),
        ('"p4 cbr 50"', '"p4 cbr 50.5"', "Unsupported PHH action 'cbr'"),
        ('"d dh p1 KhKs"', '"d dh p1 KhKsKd"', "A hold'em hand has 2 cards, not 'KhKsKd'"),
        ('"p2 cc"', '"p5 cc"', "Unknown PHH player 'p5'"),
        ('"d db Jc"', '"d db Kh"', "The deck must hold each of the 52 cards once"),
    ],
)
def test_import_refuses_what_our_table_cannot_have_played(
    before: str, after: str, message: str
) -> None:
    assert before in EXPECTED
    with pytest.raises(RulesError) as refused:
        import_phh(EXPECTED.replace(before, after))
    assert refused.value.code in {"bad_phh", "bad_deck"}
    assert refused.value.message.startswith(message)
