"""The ``tienlen.play`` op through ``python -m games.rules``."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

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
    ],
)
def test_bad_requests_are_refused_with_a_code(changes: dict[str, Any], code: str) -> None:
    status, answer = run_cli(request(**changes))
    assert status == 2
    assert answer["error"]["code"] == code
