"""The bot policy: legal, deterministic, from its own view only."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.rules.cards import parse_cards
from games.rules.errors import RulesError
from games.rules.holdem import betting
from games.rules.holdem.bot import equity
from games.rules.holdem.cli import deck_for
from games.rules.holdem.engine import ENGINE
from games.rules.holdem.state import HandState

from .support import RULES, random_spec


def is_legal(state: HandState, action: dict[str, Any]) -> bool:
    player = state.to_act
    assert player is not None
    try:
        ENGINE.apply(state, player, action)
    except RulesError:
        return False
    return True


def test_bot_plays_only_legal_actions_from_its_view() -> None:
    rng = random.Random(2024)
    decisions = 0
    for hand in range(60):
        spec = random_spec(rng, capped=hand % 3 == 0)
        state, _ = ENGINE.start(RULES, spec.deck, spec.players, spec.setup())
        while not state.finished:
            player = state.to_act
            assert player is not None
            view = json.loads(json.dumps(ENGINE.view(state, player)))
            action = ENGINE.bot_action(view, seed=hand * 1000 + decisions)
            assert is_legal(state, action), (hand, action, view["legal"])
            assert ENGINE.bot_action(view, seed=hand * 1000 + decisions) == action
            state, _ = ENGINE.apply(state, player, action)
            decisions += 1
    assert decisions > 200


def test_bot_refuses_a_view_where_it_is_not_to_act() -> None:
    state, _ = ENGINE.start(
        RULES, list(range(52)), 3, {"stake": 1, "button": 0, "stacks": [100, 100, 100]}
    )
    with pytest.raises(RulesError) as refused:
        ENGINE.bot_action(ENGINE.view(state, 1), seed=1)
    assert refused.value.code == "not_your_turn"


def heads_up_facing_all_in(hole: list[str]) -> dict[str, Any]:
    deck = deck_for(
        [parse_cards(hole), parse_cards(["Ks", "Qd"])], parse_cards(["2c", "7d", "9s", "Jc", "3d"])
    )
    state, _ = ENGINE.start(RULES, deck, 2, {"stake": 1, "button": 1, "stacks": [200, 200]})
    state, _ = ENGINE.apply(state, 1, {"type": "all_in"})
    return dict(ENGINE.view(state, 0))


def test_bot_calls_an_all_in_with_aces_and_folds_seven_deuce() -> None:
    assert ENGINE.bot_action(heads_up_facing_all_in(["Ah", "Ad"]), seed=3) == {"type": "call"}
    assert ENGINE.bot_action(heads_up_facing_all_in(["7h", "2d"]), seed=3) == {"type": "fold"}


def test_equity_is_a_share_of_the_pot() -> None:
    rng = random.Random(9)
    aces = equity(parse_cards(["Ah", "Ad"]), [], 1, rng, 2000)
    assert 0.82 < aces < 0.88
    nuts = equity(parse_cards(["Ah", "Kh"]), parse_cards(["Qh", "Jh", "Th"]), 3, rng, 200)
    assert nuts == 1.0


def test_bot_beats_an_always_call_player_over_a_short_match() -> None:
    # given 300 heads-up hands of 100 big blinds, the bot against a calling station
    net = 0
    for hand in range(300):
        rng = random.Random(hand)
        deck = list(range(52))
        rng.shuffle(deck)
        state, _ = ENGINE.start(
            RULES, deck, 2, {"stake": 1, "button": hand % 2, "stacks": [200, 200]}
        )
        while not state.finished:
            player = state.to_act
            assert player is not None
            if player == 0:
                action = ENGINE.bot_action(ENGINE.view(state, 0), seed=hand)
            else:
                legal = betting.legal_actions(state, player)
                action = {"type": "check"} if legal.check else {"type": "call"}
            state, _ = ENGINE.apply(state, player, action)
        net += state.stacks[0] - 200
    # then it is clearly ahead (deterministic: the seeds are fixed)
    assert net > 300
