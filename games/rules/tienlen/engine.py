"""The Tiến Lên engine the table service drives (docs/rules.md 3).

Setup keys: ``previous_winner`` (index or None) and ``random_first`` (a fair
index in [0, n) drawn by the service; used when there is no previous winner
and ``first_lead`` is ``"random"``).

Actions: ``{"type": "play", "cards": ["3s", "4s", "5s"]}`` and ``{"type": "pass"}``.
Status: phase ``"play"`` with the player to act and the ``"turn"`` clock, or
``"finished"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..cards import Card
from ..errors import RulesError
from ..game import JSON, Change, ClockKind, Event, GameEngine, LeaveCost, Outcome, Status
from . import hand
from .bot import choose_action
from .rules import TienLenRules
from .rules import ruleset as make_ruleset
from .settle import leave_cost
from .settle import outcome as hand_outcome
from .state import HandState, from_dict, to_dict
from .types import PersonalJSON, TienLenView
from .view import personal_view as make_personal_view
from .view import view as make_view


def _require(state: object) -> HandState:
    if not isinstance(state, HandState):
        raise RulesError("bad_state", "Not a Tiến Lên state")
    return state


class TienLenEngine:
    name = "tienlen"
    min_players = 2
    max_players = 4
    clocks: Mapping[str, ClockKind] = {"turn": ClockKind(per_actor=True)}

    def ruleset(self, preset: str, options: Mapping[str, Any]) -> TienLenRules:
        return make_ruleset(preset, options)

    def start(
        self, ruleset: Any, deck: Sequence[Card], players: int, setup: Mapping[str, Any]
    ) -> tuple[HandState, list[Event]]:
        if not isinstance(ruleset, TienLenRules):
            raise RulesError("bad_ruleset", "Not a Tiến Lên ruleset")
        return hand.start(ruleset, deck, players, setup)

    def apply(
        self, state: Any, player: int, action: Mapping[str, Any], elapsed_ms: int = 0
    ) -> tuple[HandState, list[Event]]:
        return hand.apply(_require(state), player, action)

    def timeout(self, state: Any) -> tuple[HandState, list[Event]]:
        return hand.timeout(_require(state))

    def leave(self, state: Any, player: int) -> tuple[HandState, list[Event]]:
        return hand.leave(_require(state), player)

    def leave_cost(self, state: Any, player: int) -> LeaveCost | None:
        return leave_cost(_require(state), player)

    def change_of(self, events: Sequence[Event]) -> Change:
        first = events[0]
        if first.type == "timed_out":
            return Change("timeout")
        if first.type == "left":
            return Change("leave", first.data["player"])
        if first.type == "played":
            return Change(
                "act", first.data["player"], {"type": "play", "cards": first.data["cards"]}
            )
        if first.type == "passed":
            return Change("act", first.data["player"], {"type": "pass"})
        raise RulesError("replay_mismatch", "No Tiến Lên move starts with this event")

    def status(self, state: Any) -> Status:
        s = _require(state)
        if s.finished or s.turn is None:
            return Status("finished", (), None, True)
        return Status("play", (s.turn,), "turn", False)

    def view(self, state: Any, player: int | None) -> TienLenView:
        return make_view(_require(state), player)

    def personal_view(self, state: Any, player: int) -> PersonalJSON:
        return make_personal_view(_require(state), player)

    def outcome(self, state: Any) -> Outcome:
        return hand_outcome(_require(state))

    def bot_action(self, view: Mapping[str, Any], seed: int) -> JSON:
        return choose_action(view, seed)

    def dumps(self, state: Any) -> JSON:
        return to_dict(_require(state))

    def loads(self, data: JSON) -> HandState:
        return from_dict(data)


ENGINE = TienLenEngine()
_protocol_check: GameEngine = ENGINE
