"""The Mậu Binh ops of ``python -m games.rules``: shapes and bad input (exit 2, no traceback)."""

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
from games.rules.maubinh import cli as maubinh_cli

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
    assert answer["instant"] == []
    assert isinstance(answer["expected_units"], float)


def test_arrange_lists_every_instant_win_strongest_first() -> None:
    dragon = ["2s", "3d", "4c", "5h", "6s", "7d", "8c", "9h", "Ts", "Jd", "Qc", "Kh", "Ad"]
    code, answer = _call({"op": "maubinh.arrange", "preset": "maubinh_com", "cards": dragon})
    assert code == 0
    assert answer["instant"] == ["dragon", "three_straights"]


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
        ({"op": "maubinh.compare", "a": ["As", "Ad"], "b": None}, "wrong_card_count"),
        (
            {"op": "maubinh.compare", "a": ["As", "Kd", "2c"], "b": ["As", "Qd", "3c"]},
            "duplicate_card",
        ),
        ({"op": "maubinh.compare", "a": ["As", "Kd", 7], "b": ["Ah", "Qd", "3c"]}, "unknown_card"),
        (
            {"op": "maubinh.compare", "preset": None, "a": HAND[:3], "b": HAND[3:6]},
            "unknown_preset",
        ),
        (
            {"op": "maubinh.compare", "preset": ["vipgame"], "a": HAND[:3], "b": HAND[3:6]},
            "unknown_preset",
        ),
        ({"op": "maubinh.arrange", "options": [], "cards": HAND}, "bad_option"),
        (
            {"op": "maubinh.arrange", "options": {"preset": "classic"}, "cards": HAND},
            "unknown_option",
        ),
        (
            {
                "op": "maubinh.arrange",
                "options": {"four_aces_village_units": 10**30},
                "cards": HAND,
            },
            "bad_option",
        ),
        ({"op": "maubinh.arrange", "options": {"lung_is_swept": 1}, "cards": HAND}, "bad_option"),
        ({"op": "maubinh.settle", "options": {"lung_pays_sap": "on"}, "players": []}, "bad_option"),
        (
            {"op": "maubinh.compare", "options": {"instant_win_stops_comparison": 0}},
            "bad_option",
        ),
        (
            {"op": "maubinh.arrange", "options": {"instant_units": {"dragon": -1}}, "cards": HAND},
            "bad_option",
        ),
        ({"op": "maubinh.arrange", "cards": [*HAND[:12], True]}, "unknown_card"),
        ({"op": "maubinh.settle", "players": {"chi1": HAND[:5]}}, "bad_player_count"),
        ({"op": "maubinh.settle", "players": [[], []]}, "bad_arrangement"),
        (
            {"op": "maubinh.settle", "players": [{"chi1": HAND[:5], "chi2": HAND[5:10]}] * 2},
            "bad_cards",
        ),
        ({"op": 5}, "unknown_op"),
        ({}, "unknown_op"),
        (None, "bad_request"),
        ("maubinh.arrange", "bad_request"),
    ],
)
def test_bad_input_exits_2_with_a_code(request_: Any, code: str) -> None:
    exit_code, answer = _call(request_)
    assert exit_code == 2
    assert answer["error"]["code"] == code
    assert answer["error"]["message"]


@pytest.mark.parametrize("raw", ["{not json", "", '{"op": "deck"} {}', "[" * 100_000, "NaN]"])
def test_malformed_json_exits_2(raw: str) -> None:
    exit_code, answer = _call(None, raw=raw)
    assert exit_code == 2
    assert answer["error"]["code"] in {"bad_json", "bad_request"}
    assert answer["error"]["message"]


def test_undecodable_bytes_exit_2() -> None:
    stdout = io.StringIO()
    stdin = io.TextIOWrapper(io.BytesIO(b"\xff\xfe{"), encoding="utf-8")
    assert main(stdin, stdout) == 2
    assert json.loads(stdout.getvalue())["error"]["code"] == "bad_json"


def test_an_unexpected_failure_is_still_a_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(request: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("boom")

    monkeypatch.setitem(maubinh_cli.OPS, "maubinh.compare", broken)
    assert _call({"op": "maubinh.compare"}) == (
        2,
        {
            "error": {
                "code": "internal_error",
                "message": "Internal error (KeyError); please report the input",
            }
        },
    )


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**40), 10**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.sampled_from([*HAND, "10h", "Zz", "vipgame", "classic", "maubinh_com", "\ud800"]),
    lambda inner: st.lists(inner, max_size=14) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=30,
)
card_lists = st.lists(st.sampled_from([*HAND, "2c", "3h", "Td", "As", "x"]), max_size=14)
arrangements = st.fixed_dictionaries({"chi1": card_lists, "chi2": card_lists, "chi3": card_lists})
requests = st.fixed_dictionaries(
    {"op": st.sampled_from(["maubinh.compare", "maubinh.settle", "maubinh.arrange", "deck"])},
    optional={
        "preset": st.sampled_from(["vipgame", "maubinh_com", "classic", "x"]) | json_values,
        "options": st.dictionaries(
            st.sampled_from(
                [
                    "bonus_trips_chi3",
                    "four_aces_village_units",
                    "lung_is_swept",
                    "instant_units",
                    "instant_win_stops_comparison",
                    "lung_pays_sap",
                    "split_instant_tiebreak",
                    "x",
                ]
            ),
            json_values,
            max_size=2,
        )
        | json_values,
        "a": card_lists | json_values,
        "b": card_lists | json_values,
        "cards": card_lists | json_values,
        "players": st.lists(arrangements | json_values, max_size=5) | json_values,
        "server_seed": st.sampled_from(["00" * 32, "ab" * 31, " " + "00" * 32]) | json_values,
        "hand_id": st.text(max_size=4) | json_values,
        "client_seeds": st.lists(st.text(max_size=4) | json_values, max_size=3) | json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(requests)
def test_any_request_gets_an_answer_or_a_coded_error(request_: dict[str, Any]) -> None:
    exit_code, answer = _call(request_)
    if exit_code == 0:
        assert "error" not in answer
    else:
        assert exit_code == 2
        assert set(answer) == {"error"}
        assert answer["error"]["code"] != "internal_error"
        assert isinstance(answer["error"]["message"], str)


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
