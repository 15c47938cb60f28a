"""Every event the engines make, and every view, is what the schema says:
hands played as tables play them (bots' moves, clocks running out, players
leaving), each event checked as the socket sends it against its game's
``<Game>Event`` (strict: no field the schema does not name), each view
against ``<Game>View`` (the Hold'em ``log`` records included)."""

from __future__ import annotations

from collections import Counter
from typing import Any, get_args, get_type_hints

import pytest

from games.plugins import PLUGINS

from .. import wire
from ..rules.test_replay import play_live

SEEDS = range(40)


def wire_event(event: Any, seq: int) -> dict[str, Any]:
    return {**event.data, "seq": seq, "v": 100 + seq, "type": event.type}


def declared(game: str) -> set[str]:
    """The event names the game's rules declare (its ``<Game>Event`` union)."""
    plugin = PLUGINS[game]
    union = getattr(plugin.rules_types(), f"{plugin.schema_name}Event")
    return {get_args(get_type_hints(m)["type"])[0] for m in get_args(union) or [union]}


@pytest.mark.parametrize("game", list(PLUGINS))
def test_every_event_and_view_of_many_hands_matches_the_schema(game):
    title = PLUGINS[game].schema_name
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        _deal, states, record, extra = play_live(game, seed)
        engine = extra["engine"]
        for seq, event in enumerate(record, start=1):
            wire.check(f"{title}Event", wire_event(event, seq))
            wire.check("Event", wire_event(event, seq))
            seen[event.type] += 1
        for state in states[:: max(1, len(states) // 6)] + states[-1:]:
            for player in [None, *engine.status(state).actors]:
                wire.check(f"{title}View", dict(engine.view(state, player)))
    # (the hands made most of the game's events: each is checked, not just declared)
    assert set(seen) <= declared(game)
    assert len(seen) >= len(declared(game)) - 3, sorted(declared(game) - set(seen))


def test_the_tables_first_event_is_every_games():
    started = {"type": "hand_started", "number": 3, "commitment": "ab" * 32, "seq": 1, "v": 9}
    for plugin in PLUGINS.values():
        wire.check(f"{plugin.schema_name}Event", started)


def test_an_event_of_another_game_or_shape_is_refused():
    dealt = {"type": "dealt", "cards": ["3s"], "seq": 1, "v": 2}
    names = [f"{p.schema_name}DealtEvent" for p in PLUGINS.values()]
    refused = [n.removesuffix("DealtEvent") for n in names if list(wire.errors(n, dealt))]
    assert refused == ["MauBinh"]  # (its dealt names the instant win too)
    assert list(wire.errors("Event", {**dealt, "type": "deal"}))  # an old name
    assert list(wire.errors("Event", {**dealt, "seq": None}))
