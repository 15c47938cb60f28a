"""A finished hand played again through its rules, one state per change.

The service records every change of a hand (a move, a time-out, a player
leaving) as the events the engine returned. Dealing the same deck with the
same setup and re-applying each change, read back from its first event
(``GameEngine.change_of``), must give exactly the recorded events again: then
each state on the way is the one the table was in after that change, and a
view of it shows what a player saw then, nothing later.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Card
from .errors import RulesError
from .game import Change, Event, GameEngine


@dataclass(frozen=True)
class ReplayStep:
    """The state after one change (the first step: after the deal) and the
    events that change made; ``change`` is None for the deal."""

    state: Any
    events: tuple[Event, ...]
    change: Change | None


def apply_change(engine: GameEngine, state: Any, change: Change) -> tuple[Any, list[Event]]:
    if change.kind == "timeout":
        return engine.timeout(state)
    if change.player is None:
        raise RulesError("bad_change", f"A change of kind {change.kind} needs a player")
    if change.kind == "leave":
        return engine.leave(state, change.player)
    return engine.apply(state, change.player, change.action)


def replay(
    engine: GameEngine,
    ruleset: Any,
    deck: Sequence[Card],
    players: int,
    setup: Any,
    recorded: Sequence[Event],
) -> list[ReplayStep]:
    """Every state of a hand dealt from ``deck`` whose engine events were
    ``recorded``, in order. A ``RulesError`` (``replay_mismatch``) if the
    rules do not make exactly those events."""
    state, events = engine.start(ruleset, deck, players, setup)
    at = _matched(recorded, 0, events)
    steps = [ReplayStep(state, tuple(events), None)]
    while at < len(recorded):
        change = engine.change_of(recorded[at:])
        try:
            state, events = apply_change(engine, state, change)
        except RulesError as refused:  # (the rules refuse the recorded change)
            if refused.code == "replay_mismatch":
                raise
            raise RulesError(
                "replay_mismatch", f"Event {at}: the rules refuse this change ({refused.code})"
            ) from None
        if not events:
            raise RulesError("replay_mismatch", f"Event {at}: the change made no event")
        at = _matched(recorded, at, events)
        steps.append(ReplayStep(state, tuple(events), change))
    return steps


def _plain(event: Event) -> tuple[str, Any, int | None]:
    # Recorded events went through JSON (tuples became lists).
    return event.type, json.loads(json.dumps(event.data)), event.seat


def _matched(recorded: Sequence[Event], at: int, events: Sequence[Event]) -> int:
    for offset, event in enumerate(events):
        index = at + offset
        if index >= len(recorded) or _plain(recorded[index]) != _plain(event):
            raise RulesError(
                "replay_mismatch",
                f"Event {index}: the rules make {event.type!r}, the record does not",
            )
    return at + len(events)
