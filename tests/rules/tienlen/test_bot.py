"""The bot policy: legal, deterministic, computed from the bot's own view only."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.errors import RulesError
from games.rules.tienlen.bot import plan
from games.rules.tienlen.cli import play_hand
from games.rules.tienlen.engine import ENGINE
from games.rules.tienlen.order import parse_tl

from .support import deal, random_action

FILLER = [
    ["3d", "4s", "4h", "6c", "6d", "9h", "Th", "Jd", "As", "Ac", "2s", "2d", "2h"],
    ["3s", "3c", "5s", "5h", "6s", "6h", "7s", "7h", "8s", "9d", "Td", "Ad", "Ah"],
    ["3h", "4d", "5c", "5d", "7c", "8d", "Qs", "Qc", "Qd", "Qh", "Ks", "Kd", "Kh"],
    ["4c", "7d", "8c", "8h", "9s", "9c", "Ts", "Tc", "Js", "Jc", "Jh", "Kc", "2c"],
]


def bot_view(first: int, actions: list[Any], hands: list[list[str]] = FILLER) -> dict[str, Any]:
    state = play_hand({"hands": hands, "first": first, "actions": actions})
    assert state.turn is not None
    return dict(ENGINE.view(state, state.turn))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), bots=st.integers(1, 15))
def test_bot_actions_are_always_legal(seed: int, players: int, bots: int) -> None:
    # given a game where some seats are bots and the others play at random
    state, _ = deal(seed, players)
    rng = random.Random(seed)
    while not state.finished:
        assert state.turn is not None
        seat = state.turn
        if bots >> seat & 1:
            # when a bot acts from its own view / then the engine accepts the action
            action = ENGINE.bot_action(ENGINE.view(state, seat), seed)
        else:
            action = random_action(state, rng)
        state, _ = ENGINE.apply(state, seat, action)


def test_bot_is_deterministic_and_only_acts_on_its_turn() -> None:
    state, _ = deal(7)
    assert state.turn is not None
    view = ENGINE.view(state, state.turn)
    assert ENGINE.bot_action(view, 1) == ENGINE.bot_action(view, 1)
    with pytest.raises(RulesError) as err:
        ENGINE.bot_action(ENGINE.view(state, (state.turn + 1) % 4), 1)
    assert err.value.code == "not_your_turn"


def test_plan_uses_few_groups_and_keeps_twos_apart() -> None:
    # 3-4-5-6-7 straight, a pair of 9s, a triple of Js, and two 2s kept as a pair
    hand = parse_tl(["3s", "4d", "5h", "6c", "7h", "9s", "9d", "Js", "Jc", "Jd", "Kh", "2s", "2h"])
    assert plan(hand) == [(0, 1, 2, 3, 4), (6, 6), (8, 8, 8), (10,), (12, 12)]


def test_bot_finishes_when_one_play_empties_its_hand() -> None:
    # given player 0 played its straight, everyone passed, and it holds K K K
    hands = [
        ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Kc", "Kd", "Kh"],
        *FILLER[1:],
    ]
    hands[1] = ["2h", "2d", "3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc", "Qc", "Ad"]
    hands[2] = ["2s", "3d", "3h", "4d", "4h", "5d", "5h", "6d", "7d", "8d", "9d", "Td", "Jd"]
    hands[3] = ["2c", "6h", "7h", "8h", "9h", "Th", "Jh", "Qd", "Qh", "Ah", "Ac", "As", "Ks"]
    view = bot_view(0, [hands[0][:10], "pass", "pass", "pass"], hands)
    # when it leads / then it plays the triple and wins
    assert ENGINE.bot_action(view, 0) == {"type": "play", "cards": ["Kc", "Kd", "Kh"]}


def test_bot_chops_a_two_when_it_can() -> None:
    # given player 0 played 2♥ and player 1 holds 3 đôi thông 5-6-7
    view = bot_view(0, [["2h"]])
    # then player 1 chops
    assert ENGINE.bot_action(view, 0) == {
        "type": "play",
        "cards": ["5s", "5h", "6s", "6h", "7s", "7h"],
    }


def test_bot_keeps_its_twos_early_and_does_not_break_pairs() -> None:
    # given player 3 leads 4♣ and player 0 holds 3♦, pairs of 4s and 6s, 9-T-J, A A and three 2s
    view = bot_view(3, [["4c"]])
    # then player 0 passes: no single of its plan beats 4♣ and it is too early for a 2
    assert ENGINE.bot_action(view, 0) == {"type": "pass"}


def test_bot_leads_its_weakest_group_long_ones_first() -> None:
    # given player 0 leads with the same hand / then it sheds the pair of 4s (3♦ scores higher)
    assert ENGINE.bot_action(bot_view(0, []), 0) == {"type": "play", "cards": ["4s", "4h"]}
