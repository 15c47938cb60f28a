"""The command line: ``python -m games.rules`` with the Hold'em ops."""

from __future__ import annotations

import json
import subprocess
import sys


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
