"""Two-player high card: a pure rules engine (the ``GameEngine`` protocol).

Each player is dealt one card from the fair deck (``deck[0]`` to player 0,
``deck[1]`` to player 1). In turn each player ``show`` s it (or the turn
clock shows it for them). Once both are shown the higher rank wins one unit
(suits do not count: equal ranks are a tie, nobody pays). Leaving before the
end forfeits: the leaver pays the other one unit. Nothing of the other
player's card is seen before it is shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from games.rules.cards import Card, card_str, rank
from games.rules.errors import RulesError
from games.rules.game import (
    JSON,
    Change,
    ClockKind,
    Event,
    GameEngine,
    LeaveCost,
    Outcome,
    Payment,
    Status,
)

NAME = "highcard"


@dataclass(frozen=True)
class Rules:
    preset: str


@dataclass(frozen=True)
class State:
    cards: tuple[Card, ...]
    shown: tuple[bool, ...]
    left: tuple[bool, ...]

    @property
    def finished(self) -> bool:
        return all(self.shown) or any(self.left)

    @property
    def turn(self) -> int | None:
        if self.finished:
            return None
        return self.shown.index(False)


def _require(state: object) -> State:
    if not isinstance(state, State):
        raise RulesError("bad_state", "Not a high card state")
    return state


def _winner(s: State) -> int | None:
    if any(s.left):
        return s.left.index(False) if not all(s.left) else None
    a, b = (rank(c) for c in s.cards)
    return None if a == b else (0 if a > b else 1)


def _show(s: State, player: int) -> tuple[State, list[Event]]:
    shown = tuple(True if i == player else v for i, v in enumerate(s.shown))
    state = replace(s, shown=shown)
    return state, [Event("cards_shown", {"player": player, "cards": [card_str(s.cards[player])]})]


class HighCardEngine:
    name = NAME
    min_players = 2
    max_players = 2
    clocks: Mapping[str, ClockKind] = {"turn": ClockKind(per_actor=True)}

    def ruleset(self, preset: str, options: Mapping[str, Any]) -> Rules:
        if preset != "vipgame":
            raise RulesError("bad_preset", f"Unknown preset: {preset!r}")
        if options:
            raise RulesError("bad_option", "High card has no options")
        return Rules(preset)

    def start(
        self, ruleset: Any, deck: Sequence[Card], players: int, setup: Mapping[str, Any]
    ) -> tuple[State, list[Event]]:
        if not isinstance(ruleset, Rules):
            raise RulesError("bad_ruleset", "Not a high card ruleset")
        if players != 2:
            raise RulesError("bad_players", "High card is for two players")
        cards = tuple(deck[:2])
        events = [Event("dealt", {"cards": [card_str(c)]}, seat=i) for i, c in enumerate(cards)]
        return State(cards, (False, False), (False, False)), events

    def apply(
        self, state: Any, player: int, action: Mapping[str, Any], elapsed_ms: int = 0
    ) -> tuple[State, list[Event]]:
        s = _require(state)
        if s.turn != player:
            raise RulesError("not_your_turn", "It is not your turn")
        if action.get("type") != "show":
            raise RulesError("bad_action", "The only action is show")
        return _show(s, player)

    def timeout(self, state: Any) -> tuple[State, list[Event]]:
        s = _require(state)
        if s.turn is None:
            raise RulesError("finished", "The hand is over")
        player = s.turn
        shown, events = _show(s, player)
        return shown, [Event("timed_out", {"player": player}), *events]

    def leave(self, state: Any, player: int) -> tuple[State, list[Event]]:
        s = _require(state)
        if s.finished:
            raise RulesError("finished", "The hand is over")
        left = tuple(True if i == player else v for i, v in enumerate(s.left))
        return replace(s, left=left), [Event("left", {"player": player})]

    def leave_cost(self, state: Any, player: int) -> LeaveCost | None:
        s = _require(state)
        if s.finished or s.left[player]:
            return None
        return LeaveCost(1, "forfeit", exact=True)

    def change_of(self, events: Sequence[Event]) -> Change:
        first = events[0]
        if first.type == "timed_out":
            return Change("timeout")
        if first.type == "left":
            return Change("leave", first.data["player"])
        if first.type == "cards_shown":
            return Change("act", first.data["player"], {"type": "show"})
        raise RulesError("replay_mismatch", "No high card change starts with this event")

    def status(self, state: Any) -> Status:
        s = _require(state)
        if s.turn is None:
            return Status("finished", (), None, True)
        return Status("show", (s.turn,), "turn", False)

    def view(self, state: Any, player: int | None) -> dict[str, Any]:
        s = _require(state)
        return {
            "game": NAME,
            "players": len(s.cards),
            "shown": [
                card_str(c) if s.finished or s.shown[i] else None for i, c in enumerate(s.cards)
            ],
            "left": list(s.left),
            "finished": s.finished,
            "winner": _winner(s) if s.finished else None,
            **self._personal(s, player),
        }

    def _personal(self, s: State, player: int | None) -> dict[str, Any]:
        return {"you": player, "card": None if player is None else card_str(s.cards[player])}

    def personal_view(self, state: Any, player: int) -> dict[str, Any]:
        return self._personal(_require(state), player)

    def outcome(self, state: Any) -> Outcome:
        s = _require(state)
        if not s.finished:
            raise RulesError("not_finished", "The hand is not over")
        winner = _winner(s)
        summary = {"winner": winner, "cards": [card_str(c) for c in s.cards]}
        if winner is None:
            return Outcome((0, 0), (), summary)
        loser = 1 - winner
        reason = "forfeit" if any(s.left) else "high_card"
        net = tuple(1 if i == winner else -1 for i in range(2))
        return Outcome(net, (Payment(loser, winner, 1, reason),), summary)

    def bot_action(self, view: Mapping[str, Any], seed: int) -> JSON:
        return {"type": "show"}

    def dumps(self, state: Any) -> JSON:
        s = _require(state)
        return {"cards": list(s.cards), "shown": list(s.shown), "left": list(s.left)}

    def loads(self, data: JSON) -> State:
        return State(tuple(data["cards"]), tuple(data["shown"]), tuple(data["left"]))


ENGINE = HighCardEngine()
_protocol_check: GameEngine = ENGINE
