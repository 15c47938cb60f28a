"""The state of one Hold'em hand, and its JSON form.

A state is only changed by the functions in :mod:`.betting`, each of which
works on a :meth:`HandState.clone`, so callers may keep and discard states.
``log`` is the public record of the hand (antes, blinds, actions, board, shown
hands, pots) as JSON-ready dicts; it feeds the events, the views and PHH.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from ..cards import Card
from ..errors import RulesError
from .rules import HoldemRules, rules_from_dict
from .types import Street

STREETS: tuple[Street, ...] = ("preflop", "flop", "turn", "river")
BOARD_SIZES = (0, 3, 4, 5)

Record = dict[str, Any]


def record(event: Mapping[str, Any]) -> Record:
    """The log's record of a public event (``types.HoldemEvent``): its fields,
    with ``kind`` for its ``type``."""
    data = dict(event)
    return {"kind": data.pop("type"), **data}


@dataclass
class HandState:
    rules: HoldemRules
    players: int
    stake: int
    max_raise: int | None
    button: int
    small_blind: int
    big_blind: int
    hole: list[list[Card]]
    board: list[Card]
    street: int = 0
    finished: bool = False
    start_stacks: list[int] = field(default_factory=list)
    stacks: list[int] = field(default_factory=list)
    bets: list[int] = field(default_factory=list)
    committed: list[int] = field(default_factory=list)
    folded: list[bool] = field(default_factory=list)
    shown: list[bool] = field(default_factory=list)
    queue: list[int] = field(default_factory=list)
    seen_bet: list[int | None] = field(default_factory=list)
    full_raise: int = 0
    aggressor: int | None = None
    time_banks: list[int] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    log: list[Record] = field(default_factory=list)
    # A tournament level's blinds ([small, big] chips) and ante (chips per
    # player); None and 0: the blinds come from the stake, no ante. Stored
    # only when set, so a state of a hand without them keeps its old form.
    blinds: list[int] | None = None
    ante: int = 0

    @property
    def big_blind_chips(self) -> int:
        if self.blinds is not None:
            return self.blinds[1]
        return self.rules.big_blind_units * self.stake

    @property
    def small_blind_chips(self) -> int:
        if self.blinds is not None:
            return self.blinds[0]
        return self.rules.small_blind_units * self.stake

    @property
    def raise_cap(self) -> int | None:
        """The largest raise increment in chips, None for no limit."""
        return None if self.max_raise is None else self.max_raise * self.stake

    @property
    def phase(self) -> str:
        return "finished" if self.finished else STREETS[self.street]

    @property
    def board_dealt(self) -> list[Card]:
        return self.board[: BOARD_SIZES[self.street]]

    @property
    def to_act(self) -> int | None:
        return None if self.finished or not self.queue else self.queue[0]

    def live(self, player: int) -> bool:
        return not self.folded[player]

    def live_players(self) -> list[int]:
        return [p for p in range(self.players) if not self.folded[p]]

    def clone(self) -> HandState:
        """A copy that shares nothing mutable (log records are never changed once written)."""
        return replace(
            self,
            hole=[list(h) for h in self.hole],
            board=list(self.board),
            start_stacks=list(self.start_stacks),
            stacks=list(self.stacks),
            bets=list(self.bets),
            committed=list(self.committed),
            folded=list(self.folded),
            shown=list(self.shown),
            queue=list(self.queue),
            seen_bet=list(self.seen_bet),
            time_banks=list(self.time_banks),
            timeouts=list(self.timeouts),
            log=list(self.log),
            blinds=None if self.blinds is None else list(self.blinds),
        )


#: Fields stored only when they differ from these defaults (added later:
#: states stored before them load with the defaults).
_OPTIONAL: dict[str, Any] = {"blinds": None, "ante": 0}
_FIELDS = tuple(f.name for f in fields(HandState) if f.name != "rules")
_REQUIRED = tuple(name for name in _FIELDS if name not in _OPTIONAL)


def to_dict(state: HandState) -> dict[str, Any]:
    data: dict[str, Any] = {"game": "holdem", "rules": state.rules.as_dict()}
    for name in _FIELDS:
        value = getattr(state, name)
        if name in _OPTIONAL and value == _OPTIONAL[name]:
            continue
        data[name] = json_copy(value)
    return data


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (lists, dicts, scalars)."""
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    return value


def from_dict(data: dict[str, Any]) -> HandState:
    if not isinstance(data, dict) or data.get("game") != "holdem":
        raise RulesError("bad_state", "Not a Hold'em state")
    missing = [name for name in _REQUIRED if name not in data]
    if missing:
        raise RulesError("bad_state", f"State fields missing: {missing}")
    rules = data.get("rules")
    if not isinstance(rules, dict):
        raise RulesError("bad_state", "State rules missing")
    values = {name: json_copy(data[name]) for name in _FIELDS if name in data}
    return HandState(rules=rules_from_dict(rules), **values)
