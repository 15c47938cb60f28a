"""The docs/rules.md section 2 cases of cases.json: cards in, result out."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from games.rules.cards import ensure_distinct, parse_cards
from games.rules.cli import main, run
from games.rules.errors import RulesError
from games.rules.maubinh.chi import Arrangement, chi_bonus, chi_strength, hand_name
from games.rules.maubinh.engine import ENGINE, HandState
from games.rules.maubinh.instant import compare_instants, declared_instant
from games.rules.maubinh.rules import make_ruleset
from games.rules.maubinh.settle import capped_net, contender, settle
from games.rules.settlement import cap_debts, nets

CASES: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).parent / "cases.json").read_text(encoding="utf-8")
)


def _case_id(c: dict[str, Any]) -> str:
    return f"{c['section']}-{c.get('preset', 'vipgame')}-{c.get('id') or c['note']}"


def _ids(group: str) -> list[str]:
    return [_case_id(c) for c in CASES[group]]


def test_every_case_names_its_rules_section() -> None:
    sections = {"2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9"}
    for group in CASES.values():
        for case in group:
            assert case["section"] in sections
            assert case["note"]
    covered = {case["section"] for group in CASES.values() for case in group}
    assert covered == sections


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
    ensure_distinct(p.arrangement.cards() for p in players if p.arrangement)
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


_STAYED = [c for c in CASES["settle"] if all("left_at" not in p for p in c["players"])]


@pytest.mark.parametrize("case", _STAYED, ids=[_case_id(c) for c in _STAYED])
def test_settle_command_line(case: dict[str, Any]) -> None:
    request = {"op": "maubinh.settle", "preset": _preset(case), "players": case["players"]}
    answer = run({**request, "options": case.get("options")})
    assert answer == {"units": case["units"], "lung": case["lung"], "instant": case["instant"]}


@pytest.mark.parametrize("case", CASES["bonus"], ids=_ids("bonus"))
def test_bonus(case: dict[str, Any]) -> None:
    # given a chi that wins, when its units are counted, then they follow the 2.5 table
    rules = make_ruleset(_preset(case))
    strength = chi_strength(parse_cards(case["cards"]), rules)
    assert chi_bonus(rules, case["chi"], strength) == case["units"]


@pytest.mark.parametrize("case", CASES["instant_table"], ids=_ids("instant_table"))
def test_instant_table(case: dict[str, Any]) -> None:
    rules = make_ruleset(_preset(case))
    assert [name for name, _ in rules.instant_units] == case["order"]
    assert dict(rules.instant_units) == case["units"]
    assert dict(rules.instant_folds) == case["folds"]
    assert rules.six_pairs_tiebreak is case["six_pairs_tiebreak"]
    order = case["order"]
    for i, weak in enumerate(order):
        assert compare_instants(rules, weak, 5, weak, 5) == 0
        for strong in order[i + 1 :]:
            assert compare_instants(rules, strong, 0, weak, 12) == 1
            assert compare_instants(rules, weak, 12, strong, 0) == -1


@pytest.mark.parametrize("case", CASES["cap"], ids=_ids("cap"))
def test_balance_cap(case: dict[str, Any]) -> None:
    # given what each player owes each other one, when capped by the balances
    paid = cap_debts(case["owed"], case["balances"])
    # then each pays exactly the expected amounts, within its balance, zero-sum
    assert paid == case["paid"]
    net = nets(paid)
    assert sum(net) == 0
    assert all(-n <= max(b, 0) for n, b in zip(net, case["balances"], strict=True))


@pytest.mark.parametrize("case", CASES["refused"], ids=_ids("refused"))
def test_refused(case: dict[str, Any]) -> None:
    stdout = io.StringIO()
    assert main(io.StringIO(json.dumps(case["request"])), stdout) == 2
    assert json.loads(stdout.getvalue())["error"]["code"] == case["code"]


@pytest.mark.parametrize("case", CASES["arrange"], ids=_ids("arrange"))
def test_arrange(case: dict[str, Any]) -> None:
    rules = make_ruleset(_preset(case))
    answer = run({"op": "maubinh.arrange", "preset": _preset(case), "cards": case["cards"]})
    arrangement = Arrangement.parse(answer)
    assert sorted(arrangement.cards()) == sorted(parse_cards(case["cards"]))
    assert not arrangement.is_lung(rules)
    assert answer["instant"] == case["instant"]
    if case["hands"] is not None:
        assert [hand_name(s) for s in arrangement.strengths(rules)] == case["hands"]


def _flow_check(state: HandState, step: dict[str, Any]) -> None:
    status = ENGINE.status(state)
    if "phase" in step:
        assert state.phase == step["phase"]
    if "reveal_step" in step:
        assert state.reveal_step == step["reveal_step"]
    if "actors" in step:
        assert list(status.actors) == step["actors"]
    if "auto" in step:
        assert [p.auto for p in state.players] == step["auto"]
    if "left_at" in step:
        assert [p.left_at for p in state.players] == step["left_at"]
    view = ENGINE.view(state, 0)
    if "own_lung" in step:
        assert view["own"]["lung"] is step["own_lung"]
    if "visible" in step:
        shown = [sum(seat.get(f"chi{k}") is not None for k in (1, 2, 3)) for seat in view["seats"]]
        assert shown == step["visible"]


@pytest.mark.parametrize("case", CASES["flow"], ids=_ids("flow"))
def test_flow(case: dict[str, Any]) -> None:
    # given the dealt hands, in seat order, on top of the deck
    hands = [parse_cards(h, count=13) for h in case["hands"]]
    dealt = [c for h in hands for c in h]
    deck = dealt + [c for c in range(52) if c not in dealt]
    state, _ = ENGINE.start(make_ruleset(_preset(case)), deck, len(hands), {})
    # when each step is played, then the hand is where the case says
    for step in case["steps"]:
        if "error" in step:
            before = ENGINE.dumps(state)
            with pytest.raises(RulesError) as err:
                _flow_step(state, step)
            assert err.value.code == step["error"]
            assert ENGINE.dumps(state) == before
            continue
        state = _flow_step(state, step)
        _flow_check(state, step)
    assert list(ENGINE.outcome(state).net) == case["net"]


def _flow_step(state: HandState, step: dict[str, Any]) -> HandState:
    if step["do"] == "submit":
        action = {"type": "submit", **{k: step[k] for k in ("chi1", "chi2", "chi3")}}
        return ENGINE.apply(state, step["player"], action)[0]
    if step["do"] == "leave":
        return ENGINE.leave(state, step["player"])[0]
    return ENGINE.timeout(state)[0]
