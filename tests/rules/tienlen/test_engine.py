"""The hand as the table service drives it: turns, refusals, time-outs, leaving, views."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.cards import parse_cards
from games.rules.errors import RulesError
from games.rules.game import LeaveCost, Status, payment_json
from games.rules.tienlen.engine import ENGINE
from games.rules.tienlen.settle import capped_units
from games.rules.tienlen.state import HandState

from .support import HANDS, STRAIGHT


def start(setup: dict[str, Any] | None = None, **options: Any) -> HandState:
    deck = [c for hand in HANDS for c in parse_cards(hand)]
    state, _ = ENGINE.start(
        ENGINE.ruleset("vipgame", options), deck, 4, setup or {"previous_winner": 0}
    )
    return state


def play(cards: list[str]) -> dict[str, Any]:
    return {"type": "play", "cards": cards}


PASS = {"type": "pass"}


def test_start_deals_blocks_in_deck_order_with_private_events() -> None:
    # given a deck / when the hand starts with no previous winner
    deck = [c for hand in HANDS for c in parse_cards(hand)]
    rules = ENGINE.ruleset("vipgame", {})
    state, events = ENGINE.start(rules, deck, 4, {"previous_winner": None, "random_first": 2})
    # then each player gets their block, privately, and the drawn player leads
    dealt = [e for e in events if e.type == "dealt"]
    assert [(e.seat, e.data["cards"]) for e in dealt] == [(i, HANDS[i]) for i in range(4)]
    assert ENGINE.status(state) == Status("play", (2,), "turn", False)
    started = next(e for e in events if e.type == "hand_dealt")
    assert started.seat is None
    assert started.data == {"players": 4, "first": 2, "must_include": None}


def test_previous_winner_leads_and_setup_is_checked() -> None:
    assert ENGINE.status(start({"previous_winner": 3})).actors == (3,)
    with pytest.raises(RulesError) as err:
        start({"previous_winner": None})
    assert err.value.code == "bad_setup"


def test_three_spades_option_names_the_holder_and_the_card() -> None:
    # given first_lead three_spades and no previous winner
    state = start({"previous_winner": None}, first_lead="three_spades")
    # then the holder of 3♠ leads and must include it (in a straight, up to 3♠-K)
    assert state.turn == 0
    assert ENGINE.view(state, 0)["must_include"] == "3s"
    hints = ENGINE.view(state, 0)["hints"]
    assert hints is not None
    assert (hints["cards"], hints["can_pass"]) == (HANDS[0], False)
    # and every legal play named includes it: the single 3♠ first
    assert hints["plays"][0] == {"cards": ["3s"], "combination": "single"}
    assert all("3s" in p["cards"] for p in hints["plays"])


@pytest.mark.parametrize(
    ("player", "action", "code"),
    [
        (1, play(["3c"]), "not_your_turn"),
        (0, {"type": "fold"}, "bad_action"),
        (0, play(["3c"]), "illegal_move"),
        (0, play(["3s", "5s"]), "illegal_move"),
        (0, PASS, "illegal_move"),
        (0, play(["Zz"]), "unknown_card"),
    ],
)
def test_a_refused_action_changes_nothing(player: int, action: dict[str, Any], code: str) -> None:
    # given a hand where player 0 leads
    state = start()
    before = json.dumps(ENGINE.dumps(state))
    # when a wrong action is submitted / then it is refused with its code
    with pytest.raises(RulesError) as err:
        ENGINE.apply(state, player, action)
    assert err.value.code == code
    # and the state is unchanged
    assert json.dumps(ENGINE.dumps(state)) == before


def test_timeout_plays_the_lowest_single_when_leading_and_passes_otherwise() -> None:
    # given player 0 leads / when the clock runs out
    state, events = ENGINE.timeout(start())
    # then 3♠ is played for them; the next time-out passes
    assert [e.type for e in events] == ["timed_out", "played"]
    assert events[1].data == {"player": 0, "cards": ["3s"], "combination": "single", "chop": False}
    state, events = ENGINE.timeout(state)
    assert [e.type for e in events] == ["timed_out", "passed"]
    assert state.turn == 2


def test_a_player_who_left_is_played_for_at_once() -> None:
    # given player 1 leaves while player 0 is to act
    state, events = ENGINE.leave(start(), 1)
    assert [e.type for e in events] == ["left"]
    # when player 0 plays
    state, events = ENGINE.apply(state, 0, play(STRAIGHT))
    # then player 1's turn is passed by the engine and player 2 is to act
    assert [e.type for e in events] == ["played", "timed_out", "passed"]
    assert ENGINE.status(state).actors == (2,)
    assert ENGINE.view(state, None)["left"] == [False, True, False, False]


def test_when_everyone_leaves_the_engine_finishes_the_hand() -> None:
    state = start()
    for player in (1, 2, 3, 0):
        state, _ = ENGINE.leave(state, player)
    assert ENGINE.status(state) == Status("finished", (), None, True)
    assert sum(ENGINE.outcome(state).net) == 0


def test_view_of_a_player_mid_hand() -> None:
    # given player 0 played the straight and player 1 is to act
    state, _ = ENGINE.apply(start(), 0, play(STRAIGHT))
    # when player 1 looks
    view = ENGINE.view(state, 1)
    # then they see their cards, counts, the table, the history and their hints
    assert view["hand"] == HANDS[1]
    assert view["card_counts"] == [3, 13, 13, 13]
    assert view["table"] == {"player": 0, "cards": STRAIGHT, "combination": "straight"}
    assert view["history"] == [
        {"player": 0, "action": "play", "cards": STRAIGHT, "round": 0, "chop": False}
    ]
    assert view["you"] == 1
    assert ENGINE.status(state).actors == (1,)
    assert view["passed"] == [False, False, False, False]
    hints = view["hints"]
    assert hints is not None
    assert (hints["cards"], hints["can_pass"]) == (HANDS[1][:11], True)
    # (the plays that beat a straight: higher straights of its length)
    assert {p["combination"] for p in hints["plays"]} == {"straight"}
    assert {len(p["cards"]) for p in hints["plays"]} == {len(STRAIGHT)}
    assert view["finished"] is False
    assert "hands" not in view


def test_spectator_and_other_seats_get_no_hand_and_no_hints() -> None:
    state = start()
    spectator = ENGINE.view(state, None)
    assert spectator["hand"] is None
    assert spectator["hints"] is None
    assert ENGINE.view(state, 2)["hints"] is None
    with pytest.raises(RulesError):
        ENGINE.view(state, 4)


def test_view_after_the_hand_shows_everything_and_the_outcome_is_itemised() -> None:
    # given the "cóng" game played to its end
    state = start()
    for player, action in [(0, play(STRAIGHT)), (1, PASS), (2, PASS), (3, PASS)]:
        state, _ = ENGINE.apply(state, player, action)
    state, events = ENGINE.apply(state, 0, play(["Kc", "Kd", "Kh"]))
    # when a spectator looks
    view = ENGINE.view(state, None)
    # then leftover hands are shown, and the outcome is itemised
    assert events[-1].type == "hand_finished"
    assert view["finished"] is True
    assert view["winner"] == 0
    assert view["hands"] == [[], HANDS[1], HANDS[2], HANDS[3]]
    result = ENGINE.outcome(state)
    assert list(result.net) == [110, -38, -35, -37]
    assert [payment_json(p) for p in result.payments[:3]] == [
        {"payer": 1, "payee": 0, "amount": 26, "reason": "cong", "detail": {"count": 13}},
        {
            "payer": 1,
            "payee": 0,
            "amount": 6,
            "reason": "thoi",
            "detail": {"combination": "red_two", "cards": ["2d"]},
        },
        {
            "payer": 1,
            "payee": 0,
            "amount": 6,
            "reason": "thoi",
            "detail": {"combination": "red_two", "cards": ["2h"]},
        },
    ]
    with pytest.raises(RulesError) as err:
        ENGINE.apply(state, 1, PASS)
    assert err.value.code == "hand_finished"


def test_balance_cap_helper_limits_a_loser_to_their_balance() -> None:
    # given the cóng result (P1 owes 38, P2 35, P3 37) and P1 holding only 10 units
    state = start()
    for player, action in [(0, play(STRAIGHT)), (1, PASS), (2, PASS), (3, PASS)]:
        state, _ = ENGINE.apply(state, player, action)
    state, _ = ENGINE.apply(state, 0, play(["Kc", "Kd", "Kh"]))
    # when the cap is applied / then P1 pays 10 and the winner gets 82
    assert capped_units(ENGINE.outcome(state), [0, 10, 100, 100]) == [82, -10, -35, -37]


def test_outcome_before_the_end_is_refused() -> None:
    with pytest.raises(RulesError) as err:
        ENGINE.outcome(start())
    assert err.value.code == "hand_not_finished"


def test_ruleset_options_are_checked() -> None:
    assert ENGINE.ruleset("vipgame", {"cong_penalty": 0}).cong_penalty == 0
    for preset, options, code in [
        ("classic", {}, "unknown_preset"),
        ("vipgame", {"stake": 2}, "unknown_option"),
        ("vipgame", {"first_lead": "lowest"}, "bad_option"),
        ("vipgame", {"cong_penalty": -1}, "bad_option"),
        ("vipgame", {"chan_ket_final_round_only": 0}, "bad_option"),
    ]:
        with pytest.raises(RulesError) as err:
            ENGINE.ruleset(preset, options)  # type: ignore[arg-type]
        assert err.value.code == code


def test_state_round_trips_through_json_with_options() -> None:
    state, _ = ENGINE.apply(start(toi_trang_payout="tiered"), 0, play(STRAIGHT))
    data = json.loads(json.dumps(ENGINE.dumps(state)))
    assert ENGINE.loads(data) == state
    with pytest.raises(RulesError) as err:
        ENGINE.loads({"game": "maubinh"})
    assert err.value.code == "bad_state"


def test_a_player_who_passed_cannot_chop_later_in_the_round() -> None:
    # given P0 leads 2s, P1 passes, P2 passes, P3 plays 2c and P0 plays 2h (docs/rules.md 3.7)
    hands = [
        ["3d", "4s", "4h", "6c", "6d", "9h", "Th", "Jd", "As", "Ac", "2s", "2d", "2h"],
        ["3s", "3c", "5s", "5h", "6s", "6h", "7s", "7h", "8s", "9d", "Td", "Ad", "Ah"],
        ["3h", "4d", "5c", "5d", "7c", "8d", "Qs", "Qc", "Qd", "Qh", "Ks", "Kd", "Kh"],
        ["4c", "7d", "8c", "8h", "9s", "9c", "Ts", "Tc", "Js", "Jc", "Jh", "Kc", "2c"],
    ]
    deck = [c for hand in hands for c in parse_cards(hand)]
    state, _ = ENGINE.start(ENGINE.ruleset("vipgame", {}), deck, 4, {"previous_winner": 0})
    for player, action in [(0, play(["2s"])), (1, PASS), (2, PASS), (3, play(["2c"]))]:
        state, _ = ENGINE.apply(state, player, action)
    state, _ = ENGINE.apply(state, 0, play(["2h"]))
    before = ENGINE.dumps(state)
    # when P1 tries to chop 2h with its 3 đôi thông
    with pytest.raises(RulesError) as err:
        ENGINE.apply(state, 1, play(["5s", "5h", "6s", "6h", "7s", "7h"]))
    # then it is refused (P3 is to act) and nothing changed
    assert err.value.code == "not_your_turn"
    assert err.value.extra == {"turn": 3}
    assert ENGINE.dumps(state) == before


@pytest.mark.parametrize("player", [True, -1, 4, "0", None])
def test_acting_or_leaving_needs_a_player_index(player: Any) -> None:
    state = start()
    for call in (lambda: ENGINE.apply(state, player, PASS), lambda: ENGINE.leave(state, player)):
        with pytest.raises(RulesError) as err:
            call()
        assert err.value.code == "bad_player"


def test_timeout_of_the_first_leader_plays_the_lowest_card_dealt() -> None:
    # given three players, first_lead three_spades, 3s and 3c not dealt: 3d is the lowest card
    deck = [c for hand in (HANDS[2], [*HANDS[0][1:], "Ks"], HANDS[3]) for c in parse_cards(hand)]
    deck += [c for c in range(52) if c not in deck]
    rules = ENGINE.ruleset("vipgame", {"first_lead": "three_spades"})
    state, _ = ENGINE.start(rules, deck, 3, {"previous_winner": None})
    assert (state.turn, ENGINE.view(state, 0)["must_include"]) == (0, "3d")
    # when the clock runs out / then 3d is played for the leader
    state, events = ENGINE.timeout(state)
    assert events[1].data == {"player": 0, "cards": ["3d"], "combination": "single", "chop": False}
    assert state.must_include is None


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 60) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(["play", "pass"]) | JSON_VALUES,
    cards=JSON_VALUES | st.lists(st.sampled_from([*HANDS[0], "10s", "2S", "x"]), max_size=4),
)
def test_any_action_is_applied_or_refused_with_a_rules_error(kind: Any, cards: Any) -> None:
    state = start()
    before = ENGINE.dumps(state)
    try:
        after, _ = ENGINE.apply(state, 0, {"type": kind, "cards": cards})
    except RulesError:
        assert ENGINE.dumps(state) == before
    else:
        assert kind == "play"
        assert sum(len(h) for h in after.hands) == 52 - len(cards)


@settings(max_examples=200, deadline=None)
@given(field=st.sampled_from(sorted(ENGINE.dumps(start()))), value=JSON_VALUES)
def test_a_damaged_stored_state_is_refused_with_a_rules_error(field: str, value: Any) -> None:
    # given a stored state with one field replaced by arbitrary JSON
    data = ENGINE.dumps(start()) | {field: value}
    # then it loads, or is refused with a rules error (never another exception)
    assert _load_error(data) in (None, "bad_state")


def _load_error(data: dict[str, Any]) -> str | None:
    try:
        ENGINE.loads(data)
    except RulesError as err:
        return err.code
    return None


def test_an_instant_win_at_the_deal_names_its_kind_and_ends_the_hand() -> None:
    # given player 1 dealt a dragon (3 to A, one of each) and two 2s
    dragon = ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks", "As", "2s"]
    used = set(dragon)
    rest = [c for c in (r + s for r in "3456789TJQKA2" for s in "scdh") if c not in used]
    deck = parse_cards(rest[:13] + dragon + rest[13:])
    # when the hand starts
    state, events = ENGINE.start(ENGINE.ruleset("vipgame", {}), deck, 2, {"random_first": 0})
    # then the hand is over at once and the event says which tới trắng it was
    instant = next(e for e in events if e.type == "instant_won")
    assert instant.data == {"player": 1, "kind": "dragon", "cards": dragon}
    assert ENGINE.status(state).finished


def test_leave_cost_is_what_the_cards_in_hand_pay_cong_before_any_play() -> None:
    # given player 0 leads and player 1 (holding 2♦ 2♥) has played nothing
    state = start()
    # then leaving now most likely costs cóng 26 plus the red twos, 6 each
    assert ENGINE.leave_cost(state, 1) == LeaveCost(38, "cong", False, {"cards": 13, "thoi": 12})
    # without cóng it is the card count and thối
    plain = start(cong_penalty=0)
    assert ENGINE.leave_cost(plain, 1) == LeaveCost(23, "cards", False, {"cards": 13, "thoi": 12})
    # when player 0 has played its straight, its three cards left count
    state, _ = ENGINE.apply(state, 0, play(STRAIGHT))
    assert ENGINE.leave_cost(state, 0) == LeaveCost(3, "cards", False, {"cards": 3, "thoi": 0})
    with pytest.raises(RulesError):
        ENGINE.leave_cost(state, 4)


def test_a_leaver_who_never_plays_pays_the_leave_cost() -> None:
    # given player 1 leaves at once and the others play it out by time-outs
    state = start()
    cost = ENGINE.leave_cost(state, 1)
    assert cost is not None
    state, _ = ENGINE.leave(state, 1)
    assert ENGINE.leave_cost(state, 1) is None
    while not state.finished:
        state, _ = ENGINE.timeout(state)
    # then it paid exactly that (it never led, so never played a card)
    assert state.winner != 1
    paid = sum(p.amount for p in ENGINE.outcome(state).payments if p.payer == 1)
    assert paid == cost.amount
    assert ENGINE.leave_cost(state, 0) is None
