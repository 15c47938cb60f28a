"""The Mậu Binh hand as a state machine (docs/rules.md 2.6, 2.7)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.rules.cards import cards_str, parse_cards
from games.rules.errors import RulesError
from games.rules.game import LeaveCost
from games.rules.maubinh.chi import Arrangement, chi_bonus
from games.rules.maubinh.engine import ENGINE, HandState
from games.rules.maubinh.settle import Contender, capped_net, settle

RULES = ENGINE.ruleset("vipgame", {})


def _deck(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


def _start(players: int = 3, seed: int = 7) -> HandState:
    state, _ = ENGINE.start(RULES, _deck(seed), players, {})
    assert isinstance(state, HandState)
    return state


def _submit(state: HandState, player: int, arrangement: Arrangement) -> tuple[HandState, list[Any]]:
    action = {
        "type": "submit",
        "chi1": cards_str(arrangement.chi1),
        "chi2": cards_str(arrangement.chi2),
        "chi3": cards_str(arrangement.chi3),
    }
    new_state, events = ENGINE.apply(state, player, action)
    return new_state, events


def _best(state: HandState, player: int) -> Arrangement:
    return state.players[player].analysis.best.arrangement


def _lung_arrangement(cards: tuple[int, ...]) -> Arrangement:
    ordered = sorted(cards)
    return Arrangement(tuple(ordered[:5]), tuple(ordered[5:10]), tuple(ordered[10:]))


def test_start_deals_blocks_of_the_deck_in_order() -> None:
    deck = _deck(1)
    state, events = ENGINE.start(RULES, deck, 4, {})
    assert [list(p.cards) for p in state.players] == [deck[13 * i : 13 * i + 13] for i in range(4)]
    assert events[0].type == "hand_dealt"
    assert events[0].seat is None
    assert [(e.type, e.seat) for e in events[1:]] == [("dealt", i) for i in range(4)]
    assert events[2].data["cards"] == cards_str(deck[13:26])
    assert ENGINE.status(state) == ENGINE.status(state).__class__(
        "arrange", (0, 1, 2, 3), "arrange", False
    )


@pytest.mark.parametrize(
    ("deck", "players", "code"),
    [
        (list(range(51)), 2, "bad_deck"),
        ([0, *range(51)], 2, "bad_deck"),
        (list(range(52)), 1, "bad_player_count"),
        (list(range(52)), 5, "bad_player_count"),
    ],
)
def test_start_refuses_bad_input(deck: list[int], players: int, code: str) -> None:
    with pytest.raises(RulesError) as err:
        ENGINE.start(RULES, deck, players, {})
    assert err.value.code == code


def test_resubmission_then_everyone_submitted_goes_to_reveal_step_one() -> None:
    state = _start(2)
    lung = _lung_arrangement(state.players[0].cards)
    state, events = _submit(state, 0, lung)
    assert [e.type for e in events] == ["submitted", "arranged"]
    assert events[1].seat == 0
    assert events[1].data["lung"] is True
    assert ENGINE.view(state, 0)["own"]["lung"] is True
    state, _ = _submit(state, 0, _best(state, 0))
    assert ENGINE.view(state, 0)["own"]["lung"] is False
    assert ENGINE.status(state).actors == (1,)
    state, events = _submit(state, 1, _best(state, 1))
    assert state.phase == "reveal"
    assert state.reveal_step == 1
    assert events[-1].type == "chi_revealed"
    assert events[-1].data["step"] == 1
    assert ENGINE.status(state).clock == "reveal"
    assert ENGINE.status(state).actors == ()


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "fold"}, "bad_action"),
        ({"type": "submit", "chi1": [], "chi2": [], "chi3": []}, "wrong_card_count"),
        ({"type": "submit", "chi1": ["Zz"] * 5, "chi2": [], "chi3": []}, "unknown_card"),
    ],
)
def test_refused_action_changes_nothing(action: dict[str, Any], code: str) -> None:
    state = _start(2)
    before = ENGINE.dumps(state)
    with pytest.raises(RulesError) as err:
        ENGINE.apply(state, 0, action)
    assert err.value.code == code
    assert ENGINE.dumps(state) == before


def test_submitting_someone_elses_cards_is_illegal() -> None:
    state = _start(2)
    with pytest.raises(RulesError) as err:
        _submit(state, 0, _best(state, 1))
    assert err.value.code == "illegal_move"


def test_timeout_auto_arranges_the_missing_players() -> None:
    state = _start(3)
    state, _ = _submit(state, 1, _best(state, 1))
    state, events = ENGINE.timeout(state)
    assert [p.auto for p in state.players] == [True, False, True]
    assert state.players[0].submission == _best(state, 0)
    assert any(e.type == "auto_arranged" and e.data["players"] == [0, 2] for e in events)
    assert state.phase == "reveal"
    assert state.reveal_step == 1


def test_reveal_steps_then_finished_with_the_settlement() -> None:
    state = _start(4, seed=11)
    state, _ = ENGINE.timeout(state)
    for step in (2, 3):
        state, events = ENGINE.timeout(state)
        assert state.reveal_step == step
        assert events[0].data["step"] == step
    state, events = ENGINE.timeout(state)
    assert ENGINE.status(state).finished
    assert events[0].type == "hand_finished"
    outcome = ENGINE.outcome(state)
    expected = settle(RULES, [Contender(p.submission, p.analysis.instant) for p in state.players])
    assert outcome.net == expected.net
    assert sum(outcome.net) == 0
    assert capped_net(outcome, [10**6] * 4) == list(outcome.net)
    assert capped_net(outcome, [0] * 4) == [0] * 4
    with pytest.raises(RulesError) as err:
        ENGINE.apply(state, 0, {"type": "submit"})
    assert err.value.code == "hand_finished"
    with pytest.raises(RulesError):
        ENGINE.timeout(state)


def test_arranging_is_closed_during_the_reveal() -> None:
    state, _ = ENGINE.timeout(_start(2))
    with pytest.raises(RulesError) as err:
        _submit(state, 0, _best(state, 0))
    assert err.value.code == "not_your_turn"


def test_leaving_before_the_reveal_loses_all_three_chi() -> None:
    state = _start(2, seed=3)
    assert [p.analysis.instant for p in state.players] == [None, None]
    state, _ = _submit(state, 0, _best(state, 0))
    state, events = ENGINE.leave(state, 1)
    assert events[0].data == {"player": 1, "reveal_step": 0}
    assert state.phase == "reveal"
    for _ in range(3):
        state, _ = ENGINE.timeout(state)
    outcome = ENGINE.outcome(state)
    reasons = {p.reason for p in outcome.payments}
    assert {p.payer for p in outcome.payments} == {1}
    assert "left" in reasons
    assert "sap" not in reasons
    assert outcome.summary["players"][1]["arrangement"] is None


def test_leaving_during_the_reveal_loses_the_chi_not_yet_revealed() -> None:
    state, _ = ENGINE.timeout(_start(2, seed=4))
    assert [p.analysis.instant for p in state.players] == [None, None]
    state, _ = ENGINE.leave(state, 0)
    assert state.players[0].left_at == 1
    assert ENGINE.leave(state, 0) == (state, [])
    state, _ = ENGINE.timeout(state)
    state, _ = ENGINE.timeout(state)
    state, _ = ENGINE.timeout(state)
    lost = [p for p in ENGINE.outcome(state).payments if p.reason == "left"]
    assert [(p.payer, p.detail["chi"]) for p in lost] == [(0, 2), (0, 3)]


def test_view_shows_own_cards_and_others_only_once_revealed() -> None:
    state = _start(3)
    state, _ = _submit(state, 1, _best(state, 1))
    view = ENGINE.view(state, 0)
    assert view["own"]["cards"] == cards_str(state.players[0].cards)
    assert len(view["own"]["hints"]) == 3
    assert [s["submitted"] for s in view["seats"]] == [False, True, False]
    assert "chi1" not in view["seats"][1]
    state, _ = ENGINE.timeout(state)
    seat = ENGINE.view(state, 0)["seats"][1]
    assert seat["chi1"] == cards_str(state.players[1].submission.chi1)
    assert seat["chi2"] is None
    assert seat["chi3"] is None
    assert "own" not in ENGINE.view(state, None)


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def _hidden_from(state: HandState, viewer: int | None) -> set[str]:
    hidden: set[str] = set()
    for i, p in enumerate(state.players):
        if i == viewer:
            continue
        shown: set[int] = set()
        if p.submission is not None and p.at_reveal:
            for chi in range(state.reveal_step):
                shown.update(p.submission.chis[chi])
        hidden.update(cards_str(c for c in p.cards if c not in shown))
    return hidden


@pytest.mark.parametrize("seed", range(12))
def test_view_never_leaks_hidden_cards(seed: int) -> None:
    rng = random.Random(seed)
    state = _start(rng.choice([2, 3, 4]), seed)
    states = [state]
    while not ENGINE.status(state).finished:
        roll = rng.random()
        actors = ENGINE.status(state).actors
        if roll < 0.15:
            state, _ = ENGINE.leave(state, rng.randrange(len(state.players)))
        elif actors and roll < 0.7:
            player = rng.choice(actors)
            state, _ = ENGINE.apply(state, player, ENGINE.bot_action(ENGINE.view(state, player), 0))
        else:
            state, _ = ENGINE.timeout(state)
        states.append(state)
    for s in states:
        for viewer in [None, *range(len(s.players))]:
            view = ENGINE.view(s, viewer)
            json.dumps(view)
            assert not _strings(view) & _hidden_from(s, viewer)


def test_state_round_trips_through_json() -> None:
    state = _start(4, seed=9)
    state, _ = _submit(state, 2, _lung_arrangement(state.players[2].cards))
    state, _ = ENGINE.leave(state, 3)
    for s in (state, ENGINE.timeout(state)[0]):
        data = json.loads(json.dumps(ENGINE.dumps(s)))
        assert ENGINE.loads(data) == s


def test_loads_refuses_garbage() -> None:
    with pytest.raises(RulesError) as err:
        ENGINE.loads({"game": "maubinh"})
    assert err.value.code == "bad_state"


def test_bot_action_is_the_suggestion_and_refuses_outside_arranging() -> None:
    state = _start(2)
    action = ENGINE.bot_action(ENGINE.view(state, 0), seed=1)
    assert parse_cards(action["chi1"]) == list(_best(state, 0).chi1)
    ENGINE.apply(state, 0, action)
    revealed, _ = ENGINE.timeout(state)
    with pytest.raises(RulesError) as err:
        ENGINE.bot_action(ENGINE.view(revealed, 0), seed=1)
    assert err.value.code == "not_your_turn"


def test_instant_win_is_public_only_from_the_reveal() -> None:
    dragon = parse_cards(
        ["2s", "3d", "4c", "5h", "6s", "7d", "8c", "9h", "Ts", "Jd", "Qc", "Kh", "Ad"]
    )
    deck = dragon + [c for c in range(52) if c not in dragon]
    state, events = ENGINE.start(RULES, deck, 2, {})
    assert events[1].data["instant"] == "dragon"
    assert ENGINE.view(state, 0)["own"]["instant"] == "dragon"
    assert "instant" not in ENGINE.view(state, 1)["seats"][0]
    state, _ = ENGINE.timeout(state)
    assert ENGINE.view(state, 1)["seats"][0]["instant"] == "dragon"


def test_unknown_preset_and_option() -> None:
    with pytest.raises(RulesError) as err:
        ENGINE.ruleset("nope", {})
    assert err.value.code == "unknown_preset"
    with pytest.raises(RulesError) as err:
        ENGINE.ruleset("vipgame", {"colour": 1})
    assert err.value.code == "unknown_option"
    rules = ENGINE.ruleset("classic", {"bonus_quads_chi1": 6, "instant_units": {"dragon": 20}})
    assert rules.bonus_quads_chi1 == 6
    assert rules.instant_payout("dragon") == 20


def test_a_leaver_keeps_the_instant_win_only_with_the_option() -> None:
    dragon = parse_cards(
        ["2s", "3d", "4c", "5h", "6s", "7d", "8c", "9h", "Ts", "Jd", "Qc", "Kh", "Ad"]
    )
    deck = dragon + [c for c in range(52) if c not in dragon]
    for keeps in (False, True):
        rules = ENGINE.ruleset("vipgame", {"leaver_keeps_instant": keeps})
        state, _ = ENGINE.start(rules, deck, 2, {})
        state, _ = ENGINE.leave(state, 0)
        state, _ = ENGINE.timeout(state)
        assert ENGINE.view(state, 1)["seats"][0]["instant"] == ("dragon" if keeps else None)
        assert ENGINE.view(state, 1)["seats"][0]["chi1"] is None
        for _ in range(3):
            state, _ = ENGINE.timeout(state)
        winner = state.players[1].submission
        assert winner is not None
        forfeit = sum(
            chi_bonus(rules, chi, s) for chi, s in enumerate(winner.strengths(rules), start=1)
        )
        assert ENGINE.outcome(state).net == ((12, -12) if keeps else (-forfeit, forfeit))


CONTRACT_2026_11_23 = (
    "instant_win_stops_comparison",
    "lung_pays_sap",
    "four_aces_village_floor",
    "leaver_blocks_swept_by_all",
    "leaver_counts_as_swept",
    "split_instant_tiebreak",
)


def test_a_state_stored_before_the_contract_changes_keeps_its_rules() -> None:
    # given a maubinh_com hand stored with the rules of 2026-11-23 ...
    state, _ = ENGINE.start(ENGINE.ruleset("maubinh_com", {}), _deck(3), 3, {})
    data = json.loads(json.dumps(ENGINE.dumps(state)))
    assert ENGINE.loads(data) == state
    assert all(data["rules"][name] is True for name in CONTRACT_2026_11_23[:-1])
    # when one stored before those switches existed is loaded
    for name in CONTRACT_2026_11_23:
        del data["rules"][name]
    older = ENGINE.loads(data)
    # then it settles under the rules it was dealt with: every switch off
    assert not any(getattr(older.rules, name) for name in CONTRACT_2026_11_23)
    assert older.rules.four_aces_village_units == 80


def test_leave_cost_counts_each_chi_not_yet_revealed_per_opponent() -> None:
    # given three players arranging
    state = _start(3, seed=3)
    # then leaving now loses all three chi to both opponents: at least 6 units
    assert ENGINE.leave_cost(state, 1) == LeaveCost(6, "chi", False, {"chi": 3, "opponents": 2})
    # when player 2 has left before the reveal, it forfeits those chi too
    state, _ = ENGINE.leave(state, 2)
    assert ENGINE.leave_cost(state, 2) is None
    assert ENGINE.leave_cost(state, 1) == LeaveCost(3, "chi", False, {"chi": 3, "opponents": 1})
    # during the reveal only the chi still hidden count
    state, _ = ENGINE.timeout(state)
    assert state.reveal_step == 1
    assert ENGINE.leave_cost(state, 0) == LeaveCost(2, "chi", False, {"chi": 2, "opponents": 1})
    with pytest.raises(RulesError):
        ENGINE.leave_cost(state, 5)


def test_a_leaver_pays_at_least_the_leave_cost() -> None:
    for seed in range(8):
        state = _start(3, seed=seed)
        cost = ENGINE.leave_cost(state, 0)
        assert cost is not None
        state, _ = ENGINE.leave(state, 0)
        while state.phase != "finished":
            state, _ = ENGINE.timeout(state)
        paid = sum(p.amount for p in ENGINE.outcome(state).payments if p.payer == 0)
        assert paid >= cost.amount, seed
    assert ENGINE.leave_cost(state, 1) is None
