"""The data file of cases (``cases.json``), each naming the docs/rules.md section it checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.rules.tienlen.combos import beats, classify, is_chop
from games.rules.tienlen.order import parse_tl, tl_str, tl_strs
from games.rules.tienlen.rules import ruleset
from games.rules.tienlen.scoring import instant_win, leftover

from .support import run_cli

CASES = json.loads((Path(__file__).parent / "cases.json").read_text(encoding="utf-8"))
RULES = ruleset("vipgame", {})


def _ids(cases: list[dict[str, Any]], key: str) -> list[str]:
    return [
        f"{c['section']}:{'-'.join(c[key]) if isinstance(c[key], list) else c[key]}" for c in cases
    ]


@pytest.mark.parametrize("case", CASES["classify"], ids=_ids(CASES["classify"], "cards"))
def test_classify(case: dict[str, Any]) -> None:
    # given the cards / when classified
    combo = classify(parse_tl(case["cards"]))
    # then the kind and top card are as listed (None: not a combination)
    if case["kind"] is None:
        assert combo is None
    else:
        assert combo is not None
        assert (combo.kind, tl_str(combo.top)) == (case["kind"], case["top"])


@pytest.mark.parametrize("case", CASES["beats"], ids=_ids(CASES["beats"], "play"))
def test_beats(case: dict[str, Any]) -> None:
    # given a combination on the table and a play
    table = classify(parse_tl(case["table"]))
    play = classify(parse_tl(case["play"]))
    assert table is not None
    assert play is not None
    # when compared / then it beats (and chops) exactly as listed
    assert beats(play, table, RULES) is case["beats"]
    assert (case["beats"] and is_chop(play, table)) is case["chop"]


@pytest.mark.parametrize("case", CASES["leftover"], ids=_ids(CASES["leftover"], "hand"))
def test_leftover(case: dict[str, Any]) -> None:
    # given cards left in a loser's hand (cóng: ordinary cards count 0)
    per_card = 0 if case["cong"] else 1
    # when grouped to pay the most
    result = leftover(parse_tl(case["hand"]), RULES.thoi_penalties, per_card)
    # then the thối items and the ordinary card count are as listed
    items = [[item.name, tl_strs(item.cards), item.units] for item in result.items]
    assert items == case["items"]
    assert result.ordinary == case["ordinary"]


@pytest.mark.parametrize("case", CASES["instant"], ids=_ids(CASES["instant"], "hand"))
def test_instant_win(case: dict[str, Any]) -> None:
    # given a dealt hand / when checked for tới trắng
    found = instant_win(parse_tl(case["hand"]))
    # then the strongest type and its deciding card are as listed
    if case["type"] is None:
        assert found is None
    else:
        assert found is not None
        assert (found.type, tl_str(found.top)) == (case["type"], case["top"])


@pytest.mark.parametrize(
    "case", CASES["games"], ids=[f"{c['section']}:{c['description'][:50]}" for c in CASES["games"]]
)
def test_game(case: dict[str, Any]) -> None:
    # given dealt hands and actions in turn order / when replayed by tienlen.play
    code, answer = run_cli(case["request"])
    expect = case["expect"]
    # then the answer is exactly as listed (errors: code and index of the action)
    if "error" in expect:
        assert code == 2
        assert {k: answer["error"][k] for k in ("code", "index")} == expect["error"]
        assert isinstance(answer["error"]["message"], str)
    else:
        assert code == 0
        # (each payment's `detail` is the engine's, checked by the engine tests)
        assert {**answer, "payments": [without_detail(p) for p in answer["payments"]]} == expect


def without_detail(payment: dict[str, Any]) -> dict[str, Any]:
    assert isinstance(payment["detail"], dict)
    return {k: v for k, v in payment.items() if k != "detail"}
