"""The ``tienlen.play`` op through ``python -m games.rules``."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .support import HANDS, STRAIGHT, run_cli

WIN = [STRAIGHT, "pass", "pass", "pass", ["Kc", "Kd", "Kh"]]


def request(**changes: Any) -> dict[str, Any]:
    return {"op": "tienlen.play", "preset": "vipgame", "hands": HANDS, "first": 0} | changes


def test_illegal_move_exits_2_naming_the_action() -> None:
    # given a request whose third action is not the player's to make
    body = json.dumps(request(actions=[["3s"], "pass", ["3s"]]))
    # when run as a process
    done = subprocess.run(
        [sys.executable, "-m", "games.rules"], input=body, capture_output=True, text=True
    )
    # then it exits 2 with the illegal_move error and the index
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert (error["code"], error["index"]) == ("illegal_move", 2)
    assert error["message"] == "Not in your hand: 3s"


def test_balances_add_the_capped_units() -> None:
    code, answer = run_cli(request(actions=WIN, balances=[0, 10, 100, 100]))
    assert code == 0
    assert answer["units"] == [110, -38, -35, -37]
    assert answer["capped_units"] == [82, -10, -35, -37]


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"hands": HANDS[:1]}, "bad_request"),
        ({"hands": [HANDS[0], HANDS[0]]}, "duplicate_card"),
        ({"hands": [HANDS[0][:12], HANDS[1]]}, "wrong_card_count"),
        ({"first": None}, "bad_request"),
        ({"first": 4}, "bad_setup"),
        ({"actions": [{"play": ["3s"]}]}, "bad_action"),
        ({"actions": "pass"}, "bad_request"),
        ({"options": {"bogus": 1}}, "unknown_option"),
        ({"actions": WIN, "balances": [1, 2]}, "bad_request"),
        ({"balances": "x"}, "bad_request"),
        ({"balances": [1, 2, 3, -4]}, "bad_request"),
        ({"preset": ["vipgame"]}, "unknown_preset"),
        ({"preset": {"name": "vipgame"}}, "unknown_preset"),
        ({"options": None}, "bad_option"),
        ({"options": {"first_lead": ["random"]}}, "bad_option"),
        ({"options": {"cong_penalty": 26.0}}, "bad_option"),
        ({"options": {"chan_ket_final_round_only": 1}}, "bad_option"),
        ({"options": {"chan_ket_final_round_only": "yes"}}, "bad_option"),
        ({"first": True}, "bad_setup"),
        ({"first": "0"}, "bad_setup"),
        ({"hands": "abc"}, "bad_request"),
        ({"hands": [None, None]}, "bad_cards"),
        ({"hands": [HANDS[0], [*HANDS[1][:12], "Zz"]]}, "unknown_card"),
        ({"option": {"cong_penalty": 0}}, "bad_request"),
        ({"balance": [0, 0, 0, 0]}, "bad_request"),
    ],
)
def test_bad_requests_are_refused_with_a_code(changes: dict[str, Any], code: str) -> None:
    status, answer = run_cli(request(**changes))
    assert status == 2
    assert answer["error"]["code"] == code


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (None, "bad_action"),
        ("PASS", "bad_action"),
        ({"type": "pass"}, "bad_action"),
        ([], "illegal_move"),
        (["3s", "3s"], "duplicate_card"),
        ([["3s"]], "unknown_card"),
        ([7], "unknown_card"),
    ],
)
def test_a_bad_action_is_refused_with_its_index(action: Any, code: str) -> None:
    status, answer = run_cli(request(actions=[["Kc", "Kd", "Kh"], "pass", action]))
    assert status == 2
    assert (answer["error"]["code"], answer["error"]["index"]) == (code, 2)
    assert isinstance(answer["error"]["message"], str)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    field=st.sampled_from(["preset", "options", "hands", "first", "actions", "balances"]),
    value=JSON_VALUES
    | st.lists(st.sampled_from([*HANDS[0], *HANDS[1], "pass", "10d", "x"]), max_size=4)
    | st.lists(st.lists(st.sampled_from([*HANDS[0], *HANDS[1]]), max_size=3), max_size=4),
)
def test_any_bad_field_gives_an_error_object_never_a_traceback(field: str, value: Any) -> None:
    # given a valid request with one field replaced by arbitrary JSON
    status, answer = run_cli(request(actions=WIN[:4]) | {field: value})
    # then the op answers, or refuses with a code and a message (not a caught crash)
    assert status in (0, 2)
    if status == 2:
        assert isinstance(answer["error"]["code"], str)
        assert answer["error"]["code"] != "internal_error"
        assert isinstance(answer["error"]["message"], str)
    else:
        assert set(answer) >= {"finished", "winner", "instant", "units", "turn", "payments"}
