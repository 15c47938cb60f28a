"""The Mậu Binh ops of ``python -m games.rules``: shapes and bad input (exit 2, no traceback)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

import pytest

from games.rules.cli import main

HAND = ["As", "Ad", "Ac", "Ah", "Ks", "Kd", "Qs", "Qd", "Js", "9c", "8c", "7c", "2d"]


def _call(request: Any, raw: str | None = None) -> tuple[int, dict[str, Any]]:
    stdout = io.StringIO()
    code = main(io.StringIO(raw if raw is not None else json.dumps(request)), stdout)
    return code, json.loads(stdout.getvalue())


def test_arrange_shape() -> None:
    code, answer = _call({"op": "maubinh.arrange", "preset": "vipgame", "cards": HAND})
    assert code == 0
    assert set(answer) == {"chi1", "chi2", "chi3", "instant", "expected_units"}
    assert sorted(answer["chi1"] + answer["chi2"] + answer["chi3"]) == sorted(HAND)
    assert answer["chi1"][:4] == ["Ah", "Ad", "Ac", "As"]
    assert answer["instant"] is None
    assert isinstance(answer["expected_units"], float)


def test_arrange_reports_the_instant_win() -> None:
    dragon = ["2s", "3d", "4c", "5h", "6s", "7d", "8c", "9h", "Ts", "Jd", "Qc", "Kh", "Ad"]
    code, answer = _call({"op": "maubinh.arrange", "preset": "maubinh_com", "cards": dragon})
    assert code == 0
    assert answer["instant"] == "dragon"


def test_compare_accepts_ten_as_10() -> None:
    request = {
        "op": "maubinh.compare",
        "a": ["10h", "Jd", "Qc", "Ks", "Ad"],
        "b": ["9s", "Tc", "Jh", "Qd", "Kh"],
    }
    assert _call(request) == (0, {"result": 1})


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"op": "maubinh.arrange", "cards": HAND[:12]}, "wrong_card_count"),
        ({"op": "maubinh.arrange", "cards": [*HAND[:12], "As"]}, "duplicate_card"),
        ({"op": "maubinh.arrange", "cards": [*HAND[:12], "1x"]}, "unknown_card"),
        ({"op": "maubinh.arrange", "cards": "As Ad"}, "bad_cards"),
        ({"op": "maubinh.arrange", "preset": "poker", "cards": HAND}, "unknown_preset"),
        ({"op": "maubinh.arrange", "options": {"x": 1}, "cards": HAND}, "unknown_option"),
        (
            {"op": "maubinh.arrange", "options": {"bonus_trips_chi3": "3"}, "cards": HAND},
            "bad_option",
        ),
        ({"op": "maubinh.compare", "a": ["As", "Ad"], "b": ["Ks", "Kd", "Kc"]}, "wrong_card_count"),
        ({"op": "maubinh.settle", "players": []}, "bad_player_count"),
        ({"op": "maubinh.settle", "players": [1, 2]}, "bad_arrangement"),
        (
            {
                "op": "maubinh.settle",
                "players": [
                    {"chi1": HAND[:5], "chi2": HAND[5:10], "chi3": HAND[10:]},
                    {"chi1": HAND[:5], "chi2": HAND[5:10], "chi3": HAND[10:]},
                ],
            },
            "duplicate_card",
        ),
        ({"op": "maubinh.nothing"}, "unknown_op"),
        ([1, 2], "bad_request"),
    ],
)
def test_bad_input_exits_2_with_a_code(request_: Any, code: str) -> None:
    exit_code, answer = _call(request_)
    assert exit_code == 2
    assert answer["error"]["code"] == code
    assert answer["error"]["message"]


def test_malformed_json_exits_2() -> None:
    exit_code, answer = _call(None, raw="{not json")
    assert exit_code == 2
    assert answer["error"]["code"] == "bad_json"


def test_the_module_runs_as_a_process() -> None:
    request = json.dumps({"op": "maubinh.arrange", "cards": HAND[:3]})
    done = subprocess.run(
        [sys.executable, "-m", "games.rules"],
        input=request,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "wrong_card_count"
