"""The engine interface (docs/rules.md 4): turns, refusals, time banks, time-outs,
leaving, outcome."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.rules.cards import parse_cards
from games.rules.errors import RulesError
from games.rules.game import LeaveCost, Payment, Status
from games.rules.holdem.cli import deck_for
from games.rules.holdem.engine import ENGINE
from games.rules.holdem.state import HandState

from .support import RULES

HOLE = [["Ah", "Kd"], ["2c", "2d"], ["3c", "3d"]]
BOARD = ["2h", "7s", "8s", "9d", "Jc"]


def deal(
    setup: dict[str, Any], hole: list[list[str]] = HOLE, board: list[str] = BOARD
) -> HandState:
    deck = deck_for([parse_cards(h) for h in hole], parse_cards(board))
    state, _ = ENGINE.start(RULES, deck, len(hole), setup)
    return state


def three_handed(**extra: Any) -> HandState:
    return deal({"stake": 1, "button": 0, "stacks": [100, 100, 100], **extra})


def test_start_deals_posts_blinds_and_hides_cards_in_private_events() -> None:
    deck = deck_for([parse_cards(h) for h in HOLE], parse_cards(BOARD))
    state, events = ENGINE.start(RULES, deck, 3, {"stake": 2, "button": 1, "stacks": [50, 60, 70]})
    assert [(e.type, e.seat) for e in events] == [
        ("hand_dealt", None),
        ("dealt", 0),
        ("dealt", 1),
        ("dealt", 2),
        ("blind_posted", None),
        ("blind_posted", None),
    ]
    assert events[2].data == {"cards": ["2c", "2d"]}
    assert state.stacks == [46, 60, 68]
    assert ENGINE.status(state) == Status("preflop", (1,), "turn", False)


def test_refused_actions_change_nothing() -> None:
    state = three_handed()
    before = json.dumps(ENGINE.dumps(state), sort_keys=True)
    cases = [
        (1, {"type": "call"}, "not_your_turn"),
        (0, {"type": "check"}, "illegal_move"),
        (0, {"type": "raise", "to": 3}, "illegal_move"),
        (0, {"type": "raise"}, "bad_action"),
        (0, {"type": "bet", "to": 5}, "bad_action"),
    ]
    for player, action, code in cases:
        with pytest.raises(RulesError) as refused:
            ENGINE.apply(state, player, action)  # type: ignore[arg-type]
        assert refused.value.code == code
    assert json.dumps(ENGINE.dumps(state), sort_keys=True) == before


def test_time_banks_top_up_and_spend_after_the_action_clock() -> None:
    # given banks carried in below, at and near the maximum
    state = three_handed(time_banks_ms=[10_000, 30_000, 28_000])
    # then each gets 5 s more, up to 30 s
    assert state.time_banks == [15_000, 30_000, 30_000]
    # when player 0 takes 26 s (6 s past the 20 s clock)
    state, _ = ENGINE.apply(state, 0, {"type": "call"}, elapsed_ms=26_000)
    # then 6 s came out of their bank
    assert state.time_banks == [9_000, 30_000, 30_000]


def test_timeout_checks_if_it_can_else_folds_and_counts() -> None:
    state = three_handed(timeouts=[1, 0, 0])
    # when player 0 (facing the big blind) times out
    state, events = ENGINE.timeout(state)
    # then they fold, lose their bank and have two time-outs in a row
    assert events[0].data["action"] == "fold"
    assert events[0].data["timeout"] is True
    assert state.time_banks[0] == 0
    assert state.timeouts == [2, 0, 0]
    # when the small blind calls and the big blind times out with nothing to call
    state, _ = ENGINE.apply(state, 1, {"type": "call"})
    state, events = ENGINE.timeout(state)
    # then the big blind checks
    assert events[0].data["action"] == "check"
    assert state.timeouts == [2, 0, 1]
    # when the big blind later acts in time, their count starts again
    state, _ = ENGINE.apply(state, 1, {"type": "check"})
    state, _ = ENGINE.apply(state, 2, {"type": "check"})
    assert state.timeouts == [2, 0, 0]


def test_outcome_reports_timeouts_and_who_sits_out() -> None:
    state = three_handed(timeouts=[1, 1, 0])
    state, _ = ENGINE.timeout(state)
    state, _ = ENGINE.timeout(state)
    result = ENGINE.outcome(state)
    assert result.summary["timeouts"] == [2, 2, 0]
    assert result.summary["sit_out"] == [0, 1]
    assert result.net == (0, -1, 1)


def test_leave_out_of_turn_folds_at_once_and_the_hand_goes_on() -> None:
    state = three_handed()
    state, events = ENGINE.leave(state, 2)
    assert [e.data.get("out_of_turn") for e in events] == [True]
    assert state.folded == [False, False, True]
    assert ENGINE.status(state).actors == (0,)
    # when the next to act leaves too, the last player takes the pot
    state, _ = ENGINE.leave(state, 0)
    assert state.finished
    assert state.stacks == [100, 102, 98]


def test_when_both_blinds_leave_the_last_player_takes_the_blinds() -> None:
    # given three players where the button, first to act, has put nothing in
    state = three_handed()
    # when the small and then the big blind leave before the button acts
    state, _ = ENGINE.leave(state, 1)
    state, events = ENGINE.leave(state, 2)
    # then the button wins the 3 chips of blinds: none vanish
    assert state.finished
    assert state.stacks == [103, 99, 98]
    assert [e.data for e in events if e.type == "pot_awarded"] == [
        {"index": 0, "amount": 3, "eligible": [0], "winners": [0], "shares": [3]}
    ]
    result = ENGINE.outcome(state)
    assert result.net == (3, -1, -2)
    assert result.payments == (
        Payment(1, 0, 1, "main_pot", {"pot": 0}),
        Payment(2, 0, 2, "main_pot", {"pot": 0}),
    )


def test_an_all_in_player_who_leaves_stays_in_the_hand() -> None:
    # given the button all in and called by the small blind
    state = three_handed()
    state, _ = ENGINE.apply(state, 0, {"type": "all_in"})
    state, _ = ENGINE.apply(state, 1, {"type": "call"})
    # when the all-in player leaves before the showdown
    left, events = ENGINE.leave(state, 0)
    # then nothing is left for them to decide: the hand plays on with them in it
    assert events == []
    assert ENGINE.dumps(left) == ENGINE.dumps(state)
    assert not left.folded[0]


def test_leaving_twice_changes_nothing_the_second_time() -> None:
    state, _ = ENGINE.leave(three_handed(), 2)
    again, events = ENGINE.leave(state, 2)
    assert events == []
    assert ENGINE.dumps(again) == ENGINE.dumps(state)


def test_actions_after_the_end_are_refused() -> None:
    state, _ = ENGINE.apply(three_handed(), 0, {"type": "fold"})
    state, _ = ENGINE.apply(state, 1, {"type": "fold"})
    assert ENGINE.status(state) == Status("finished", (), None, True)
    for attempt in (
        lambda: ENGINE.apply(state, 2, {"type": "check"}),
        lambda: ENGINE.timeout(state),
        lambda: ENGINE.leave(state, 2),
    ):
        with pytest.raises(RulesError) as refused:
            attempt()
        assert refused.value.code == "hand_finished"


def test_outcome_itemises_each_pot() -> None:
    # given the side-pot hand: AA all-in for 50, KK all-in for 100, QQ calls
    hole = [["Ah", "As"], ["Kh", "Ks"], ["Qh", "Qs"]]
    state = deal(
        {"stake": 1, "button": 0, "stacks": [50, 100, 200]}, hole, ["2c", "7d", "9s", "Jc", "3d"]
    )
    for player in (0, 1):
        state, _ = ENGINE.apply(state, player, {"type": "all_in"})
    state, _ = ENGINE.apply(state, 2, {"type": "call"})
    result = ENGINE.outcome(state)
    # then the net is zero-sum and each pot says who paid whom
    assert result.net == (100, 0, -100)
    assert result.payments == (
        Payment(1, 0, 50, "main_pot", {"pot": 0}),
        Payment(2, 0, 50, "main_pot", {"pot": 0}),
        Payment(2, 1, 50, "side_pot", {"pot": 1}),
    )
    assert result.summary["winners"] == [0, 1]
    assert [s["player"] for s in result.summary["shown"]] == [1, 2, 0]
    assert [s["category"] for s in result.summary["shown"]] == ["pair", "pair", "pair"]


def test_outcome_before_the_end_is_refused() -> None:
    with pytest.raises(RulesError) as refused:
        ENGINE.outcome(three_handed())
    assert refused.value.code == "hand_not_finished"


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        ({"stake": 0, "button": 0, "stacks": [100, 100, 100]}, "bad_setup"),
        ({"stake": 1, "button": 3, "stacks": [100, 100, 100]}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 0, 100]}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100]}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "max_raise": 1}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "straddle": 4}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "ante": -1}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "ante": True}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "blinds": [2, 1]}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "blinds": [0, 2]}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "blinds": [1, 2, 4]}, "bad_setup"),
        ({"stake": 1, "button": 0, "stacks": [100, 100, 100], "blinds": 2}, "bad_setup"),
        (
            {"stake": 1, "button": 0, "stacks": [100] * 3, "blinds": [5, 10], "max_raise": 9},
            "bad_setup",
        ),
    ],
)
def test_bad_setups_are_refused(setup: dict[str, Any], code: str) -> None:
    with pytest.raises(RulesError) as refused:
        deal(setup)
    assert refused.value.code == code


def test_rulesets_are_presets_with_named_options() -> None:
    rules = ENGINE.ruleset("vipgame", {"time_bank_max_ms": 60_000})
    assert rules.time_bank_max_ms == 60_000
    assert rules.action_clock_ms == 20_000
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("casino", {}, "unknown_preset"),
        ("vipgame", {"rake": 5}, "unknown_option"),
        ("vipgame", {"max_players": 12}, "bad_option"),
        ("vipgame", {"short_blind_full_call": 1}, "bad_option"),
        ("vipgame", {"short_blind_full_call": None}, "bad_option"),
    ]
    for preset, options, code in cases:
        with pytest.raises(RulesError) as refused:
            ENGINE.ruleset(preset, options)
        assert refused.value.code == code


def test_state_round_trips_through_json() -> None:
    state, _ = ENGINE.apply(three_handed(), 0, {"type": "raise", "to": 7})
    data = json.loads(json.dumps(ENGINE.dumps(state)))
    again = ENGINE.loads(data)
    assert ENGINE.dumps(again) == ENGINE.dumps(state)
    assert ENGINE.view(again, 1) == ENGINE.view(state, 1)


def test_a_state_stored_before_short_blind_full_call_keeps_the_short_call() -> None:
    # given a hand whose big blind (1 chip of 2) is posted short, stored with the option on
    state = deal({"stake": 1, "button": 0, "stacks": [100, 100, 1]})
    legal = ENGINE.view(state, 0)["legal"]
    assert legal is not None
    assert legal["call"] == 2
    data = json.loads(json.dumps(ENGINE.dumps(state)))
    assert data["rules"]["short_blind_full_call"] is True
    assert ENGINE.loads(data).rules.short_blind_full_call is True
    # when a state stored before the option existed is loaded
    del data["rules"]["short_blind_full_call"]
    older = ENGINE.loads(data)
    # then it keeps the rule it was dealt under: the short amount is the call
    assert older.rules.short_blind_full_call is False
    legal = ENGINE.view(older, 0)["legal"]
    assert legal is not None
    assert legal["call"] == 1


def test_leave_cost_is_the_chips_already_bet_and_what_leaving_loses() -> None:
    # given three players: the small blind (1) and the big blind (2) have bet
    state = three_handed()
    # then leaving costs each what they put in, exactly; the button has bet nothing
    assert ENGINE.leave_cost(state, 2) == LeaveCost(2, "fold", True)
    assert ENGINE.leave_cost(state, 1) == LeaveCost(1, "fold", True)
    assert ENGINE.leave_cost(state, 0) is None
    # when the big blind leaves and the others play it out, it lost exactly that
    state, _ = ENGINE.leave(state, 2)
    assert ENGINE.leave_cost(state, 2) is None
    state, _ = ENGINE.apply(state, 0, {"type": "fold"})
    assert ENGINE.outcome(state).net[2] == -2
    with pytest.raises(RulesError):
        ENGINE.leave_cost(state, 3)


def test_an_all_in_or_finished_hand_costs_nothing_more_to_leave() -> None:
    state = three_handed()
    state, _ = ENGINE.apply(state, 0, {"type": "all_in"})
    assert ENGINE.leave_cost(state, 0) is None
    state, _ = ENGINE.apply(state, 1, {"type": "fold"})
    state, _ = ENGINE.apply(state, 2, {"type": "fold"})
    assert state.finished
    assert [ENGINE.leave_cost(state, p) for p in range(3)] == [None, None, None]
