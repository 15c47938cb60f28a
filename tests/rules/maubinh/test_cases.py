"""The RULES.md section 2 cases of cases.json: cards in, result out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.rules.cards import parse_cards
from games.rules.cli import run
from games.rules.maubinh.chi import Arrangement
from games.rules.maubinh.instant import declared_instant
from games.rules.maubinh.rules import make_ruleset
from games.rules.maubinh.settle import capped_net, contender, settle

CASES: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parent / "cases.json").read_text(encoding="utf-8")
)


def _ids(group: str) -> list[str]:
    return [f"{c['section']}-{c.get('preset', 'vipgame')}-{c['note']}" for c in CASES[group]]


def _preset(case: dict[str, Any]) -> str:
    return str(case.get("preset", "vipgame"))


@pytest.mark.parametrize("case", CASES["compare"], ids=_ids("compare"))
def test_compare(case: dict[str, Any]) -> None:
    # given two chi, when compared both ways through the command line
    forward = run(
        {"op": "maubinh.compare", "preset": _preset(case), "a": case["a"], "b": case["b"]}
    )
    backward = run(
        {"op": "maubinh.compare", "preset": _preset(case), "a": case["b"], "b": case["a"]}
    )
    # then the result is the expected one, and antisymmetric
    assert forward == {"result": case["result"]}
    assert backward == {"result": -case["result"]}


@pytest.mark.parametrize("case", CASES["lung"], ids=_ids("lung"))
def test_lung(case: dict[str, Any]) -> None:
    rules = make_ruleset(_preset(case))
    arrangement = Arrangement.parse(case)
    assert declared_instant(rules, arrangement.cards()) is None
    assert arrangement.is_lung(rules) is case["lung"]


@pytest.mark.parametrize("case", CASES["instant"], ids=_ids("instant"))
def test_instant(case: dict[str, Any]) -> None:
    rules = make_ruleset(_preset(case))
    cards = parse_cards(case["cards"], count=13)
    assert declared_instant(rules, cards) == case["instant"]


@pytest.mark.parametrize("case", CASES["settle"], ids=_ids("settle"))
def test_settle(case: dict[str, Any]) -> None:
    # given the players' arrangements (and who left when)
    rules = make_ruleset(_preset(case), case.get("options"))
    players = [contender(rules, Arrangement.parse(p), p.get("left_at")) for p in case["players"]]
    # when the hand is settled
    result = settle(rules, players)
    # then each player's units, lủng flag and instant win are as expected
    assert list(result.net) == case["units"]
    assert sum(result.net) == 0
    assert list(result.lung) == case["lung"]
    assert [p.instant for p in players] == case["instant"]
    if "sweeps" in case:
        assert [list(s) for s in result.sweeps] == case["sweeps"]
    if "payments" in case:
        items = [[p.payer, p.payee, p.amount, p.reason] for p in result.payments]
        assert items == case["payments"]
    if "balances" in case:
        assert capped_net(result, case["balances"]) == case["capped"]


@pytest.mark.parametrize(
    "case",
    [c for c in CASES["settle"] if all("left_at" not in p for p in c["players"])],
)
def test_settle_command_line(case: dict[str, Any]) -> None:
    request = {"op": "maubinh.settle", "preset": _preset(case), "players": case["players"]}
    answer = run({**request, "options": case.get("options")})
    assert answer == {"units": case["units"], "lung": case["lung"], "instant": case["instant"]}
