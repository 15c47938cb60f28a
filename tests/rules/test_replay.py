"""A hand played again from its deck and its events (games/rules/replay.py):
every state on the way is the one the hand was in, for each game, with moves,
time-outs and players leaving; a record the rules do not make is refused."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from games.rules import fairness, registry
from games.rules.errors import RulesError
from games.rules.game import Change, Event
from games.rules.replay import apply_change, replay

#: Every registered game (no Django here: the shipped ones and any the
#: VIPGAME_RULES environment variable names; with Django, the plugins' too).
GAMES = list(registry.load_configured())


def setup_for(game: str, players: int, rng: random.Random) -> dict[str, Any]:
    """A random setup of the games that take one (another game: none)."""
    if game == "tienlen":
        return {"random_first": rng.randrange(players)}
    if game == "holdem":
        stacks = [rng.choice([30, 200, 1000]) for _ in range(players)]
        return {"stake": 5, "button": rng.randrange(players), "stacks": stacks, "max_raise": None}
    return {}


def play_live(game: str, seed: int) -> tuple[Any, list[Any], list[Event], dict[str, Any]]:
    """A hand played as the table plays it: bots' moves, now and then the clock
    running out or a player leaving. Returns its deal, the state after each
    change and every event."""
    rng = random.Random(seed)
    engine = registry.engine(game)
    players = rng.randint(max(2, engine.min_players), min(4, engine.max_players))
    deck = fairness.deal_deck(seed.to_bytes(32, "big"), f"t-{seed}", ["a", "b"])
    deal = {
        "ruleset": engine.ruleset("vipgame", {}),
        "deck": deck,
        "players": players,
        "setup": setup_for(game, players, rng),
    }
    state, events = engine.start(**deal)
    states, record = [state], list(events)
    while not engine.status(state).finished:
        status = engine.status(state)
        roll = rng.random()
        if roll < 0.08:
            change = Change("leave", rng.randrange(players))
        elif roll < 0.2 or not status.actors:
            change = Change("timeout")
        else:
            player = rng.choice(status.actors)
            action = engine.bot_action(engine.view(state, player), rng.randrange(2**32))
            change = Change("act", player, dict(action))
        state, events = apply_change(engine, state, change)
        if events:  # (a leave that changes nothing is not recorded)
            states.append(state)
            record += events
    return deal, states, record, {"engine": engine}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", range(12))
def test_replaying_the_events_gives_every_state_of_the_hand(game: str, seed: int) -> None:
    # given a hand played with moves, time-outs and leavers
    deal, states, record, extra = play_live(game, seed)
    engine = extra["engine"]
    # when it is replayed from its deal and its events
    steps = replay(engine, recorded=record, **deal)
    # then each step is the state after the same change, with the same events
    assert [engine.dumps(s.state) for s in steps] == [engine.dumps(s) for s in states]
    assert [e for s in steps for e in s.events] == record
    assert steps[0].change is None
    assert engine.outcome(steps[-1].state) == engine.outcome(states[-1])


@pytest.mark.parametrize("game", GAMES)
def test_the_hands_replayed_above_have_every_kind_of_change(game: str) -> None:
    kinds = set()
    for seed in range(12):
        deal, _states, record, extra = play_live(game, seed)
        kinds |= {
            s.change.kind for s in replay(extra["engine"], recorded=record, **deal) if s.change
        }
    assert kinds == {"act", "timeout", "leave"}


@pytest.mark.parametrize("game", GAMES)
def test_a_record_the_rules_do_not_make_is_refused(game: str) -> None:
    deal, _states, record, extra = play_live(game, 3)
    engine = extra["engine"]
    # a card changed in the last event that shows cards, or an event left out
    last = max(i for i, e in enumerate(record) if "cards" in str(e.data) and i > deal["players"])
    data = dict(record[last].data)
    tampered = [
        *record[:last],
        replace(record[last], data={**data, "extra": 1}),
        *record[last + 1 :],
    ]
    with pytest.raises(RulesError) as refused:
        replay(engine, recorded=tampered, **deal)
    assert refused.value.code == "replay_mismatch"
    with pytest.raises(RulesError) as refused:
        replay(engine, recorded=record[:-2] + record[-1:], **deal)
    assert refused.value.code == "replay_mismatch"
    other_deck = {**deal, "deck": list(reversed(deal["deck"]))}
    with pytest.raises(RulesError) as refused:
        replay(engine, recorded=record, **other_deck)
    assert refused.value.code == "replay_mismatch"
