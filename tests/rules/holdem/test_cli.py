"""The command line: ``python -m games.rules`` with the Hold'em ops."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.cli import main


def run(request: dict[str, object]) -> tuple[int, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "games.rules"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


HAND = {
    "op": "holdem.play",
    "stake": 1,
    "max_raise": None,
    "button": 0,
    "stacks": [100, 100],
    "hole": [["Ah", "Kd"], ["2c", "2d"]],
    "board": ["2h", "7s", "8s", "9d", "Jc"],
}


def test_play_answers_with_exit_zero() -> None:
    code, answer = run({**HAND, "actions": ["call", "check"] + ["check"] * 6})
    assert code == 0
    assert answer == {
        "finished": True,
        "stacks": [98, 102],
        "pots": [{"amount": 4, "eligible": [0, 1], "winners": [1]}],
        "to_act": None,
        "legal": None,
    }


def test_illegal_move_exits_two_with_its_index() -> None:
    code, answer = run({**HAND, "actions": ["call", {"raise_to": 3}]})
    assert code == 2
    assert answer == {
        "error": {
            "code": "illegal_move",
            "message": "A raise must be to 4..100, got 3",
            "index": 1,
            "min": 4,
            "max": 100,
        }
    }


def test_best_answers_category_cards_and_rank() -> None:
    code, answer = run({"op": "holdem.best", "cards": ["Ah", "Kh", "7d", "7c", "2s"]})
    assert code == 0
    assert answer == {"category": "pair", "best": ["7d", "7c", "Ah", "Kh", "2s"], "rank": 2588}


def run_inline(text: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = main(io.StringIO(text), out)
    answer: dict[str, Any] = json.loads(out.getvalue())
    return code, answer


PLAY = {**HAND, "actions": ["call"]}


@pytest.mark.parametrize(
    ("request_", "code", "message"),
    [
        ({**PLAY, "stacks": "100"}, "bad_request", "stacks must be a list of chip counts"),
        ({**PLAY, "stacks": []}, "bad_player_count", "Hold'em needs 2 to 9 players, got 0 stacks"),
        ({**PLAY, "stacks": [100, -1]}, "bad_setup", "stacks must list 2 integers of at least 1"),
        ({**PLAY, "stacks": [100, 1.5]}, "bad_setup", "stacks must list 2 integers of at least 1"),
        ({**PLAY, "stake": True}, "bad_setup", "stake must be a positive integer"),
        ({**PLAY, "max_raise": "4"}, "bad_setup", "max_raise must be a positive integer"),
        ({**PLAY, "button": 2}, "bad_setup", "button must be a player index below 2"),
        ({**PLAY, "hole": [["Ah", "Kd"]]}, "bad_request", "hole must list 2 pairs of cards"),
        ({**PLAY, "hole": [["Ah", "Kd"], "2c2d"]}, "bad_cards", "hole[1] must be a list of cards"),
        ({**PLAY, "hole": [["Ah", "Kd"], ["2c", "1d"]]}, "unknown_card", "Unknown card: '1d'"),
        ({**PLAY, "board": ["2h", "7s"]}, "wrong_card_count", "board needs 5 cards, got 2"),
        (
            {**PLAY, "board": ["2h", "7s", "8s", "9d", "Ah"]},
            "duplicate_card",
            "Card Ah appears twice",
        ),
        ({**PLAY, "actions": "call"}, "bad_request", "actions must be a list"),
        ({**PLAY, "limit": 4}, "bad_request", "Unknown keys for holdem.play: limit"),
        ({"op": "holdem.best", "cards": ["Ah"] * 5}, "duplicate_card", "Card Ah appears twice"),
        (
            {"op": "holdem.best", "cards": "AhKhQhJhTh"},
            "bad_cards",
            "cards must be a list of cards",
        ),
    ],
)
def test_bad_input_exits_two_with_a_clear_error(
    request_: dict[str, Any], code: str, message: str
) -> None:
    exit_code, answer = run_inline(json.dumps(request_))
    assert exit_code == 2
    assert answer["error"]["code"] == code
    assert answer["error"]["message"].startswith(message)


@pytest.mark.parametrize(
    ("action", "index", "code"),
    [
        ("raise", 1, "bad_action"),
        ({"raise_to": "6"}, 1, "bad_action"),
        ({"raise_to": 6, "by": 2}, 1, "bad_action"),
        (None, 1, "bad_action"),
        ("call", 1, "illegal_move"),  # nothing to call after the small blind completed
        ({"raise_to": 101}, 1, "illegal_move"),
    ],
)
def test_bad_action_names_its_index(action: object, index: int, code: str) -> None:
    exit_code, answer = run_inline(json.dumps({**HAND, "actions": ["call", action]}))
    assert exit_code == 2
    assert (answer["error"]["code"], answer["error"]["index"]) == (code, index)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats()
    | st.text(max_size=4)
    | st.sampled_from(["Ah", "10h", "2c", "fold", "check", "call", "all_in"]),
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.sampled_from(["raise_to", "x"]), inner, max_size=2)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(key=st.sampled_from(sorted(PLAY)), value=JSON_VALUES, drop=st.booleans())
def test_any_damaged_request_is_answered_or_refused_never_crashes(
    key: str, value: object, drop: bool
) -> None:
    # given a valid request with one key removed or set to any JSON value
    request_ = {k: v for k, v in PLAY.items() if not (drop and k == key)}
    if not drop:
        request_[key] = value
    # then the command line answers (exit 0) or refuses with an error object (exit 2)
    exit_code, answer = run_inline(json.dumps(request_))
    assert (exit_code, "error" in answer) in {(0, False), (2, True)}
    # ... and a refusal names what was wrong: no unforeseen exception was caught
    assert exit_code == 0 or answer["error"]["code"] != "internal_error"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(cards=JSON_VALUES | st.lists(st.sampled_from(["Ah", "Kh", "Qh", "Jh", "Th", "9h", "2c"])))
def test_any_cards_for_best_are_answered_or_refused_never_crash(cards: object) -> None:
    exit_code, answer = run_inline(json.dumps({"op": "holdem.best", "cards": cards}))
    assert (exit_code, "error" in answer) in {(0, False), (2, True)}
    assert exit_code == 0 or answer["error"]["code"] != "internal_error"
