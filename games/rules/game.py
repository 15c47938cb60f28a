"""The interface every game engine offers to the table service.

An engine is a module-level object ``ENGINE`` in ``games/rules/<game>/engine.py``
satisfying :class:`GameEngine`. Players are indices ``0..n-1`` in the order of
play; the service maps them to seat positions. States are engine-specific
values that round-trip through ``dumps``/``loads`` as JSON-ready dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypedDict

from .cards import Card

JSON = dict[str, Any]


@dataclass(frozen=True)
class Event:
    """Something that happened, for the live feed and the replay.

    ``seat`` None: everyone may see it; an index: only that player (and staff).
    """

    type: str
    data: JSON = field(default_factory=dict)
    seat: int | None = None


class HandStartedEvent(TypedDict):
    """Every hand's first event, the table's (before the game's own): hand
    ``number`` of the table started, dealt from the server seed whose
    ``commitment`` was shown before (docs/fairness.md)."""

    type: Literal["hand_started"]
    number: int
    commitment: str


@dataclass(frozen=True)
class EventLog:
    """In ``Annotated``, on a view's list: it keeps the game's ``events`` (a
    union of event TypedDicts) as records, each event's fields with ``kind``
    for its ``type`` (the API schema publishes it so)."""

    events: Any


def event(data: Mapping[str, Any], seat: int | None = None) -> Event:
    """The event a typed one makes (a TypedDict of the game's ``types.py``
    naming its ``type``: the union ``<Game>Event`` the API schema publishes),
    for everyone, or only for player ``seat``."""
    payload = dict(data)
    return Event(str(payload.pop("type")), payload, seat)


@dataclass(frozen=True)
class Status:
    """What the table clock is waiting for.

    ``clock`` names the table timer that applies (for example ``arrange``,
    ``reveal``, ``turn``); None when nothing is timed. ``actors`` are the
    players the clock runs for (empty for a timed step such as a reveal).
    """

    phase: str
    actors: tuple[int, ...]
    clock: str | None
    finished: bool


@dataclass(frozen=True)
class ClockKind:
    """A clock an engine's :class:`Status` may name (``GameEngine.clocks``).

    ``for_actors``: it runs for the status's actors (their countdown rings),
    else for nobody (a timed step such as a reveal). ``per_actor``: one
    actor at a time (a turn): a new actor starts a new clock, where a clock
    the actors share (an arrange) runs on as they finish. Its length is the
    table's (the game plugin names the setting that holds it)."""

    for_actors: bool = True
    per_actor: bool = False


@dataclass(frozen=True)
class Payment:
    payer: int
    payee: int
    amount: int
    reason: str
    detail: JSON = field(default_factory=dict)


class PaymentJSON(TypedDict):
    """A payment as every client sees it (the one shape: results, views, events)."""

    payer: int
    payee: int
    amount: int
    reason: str
    detail: JSON


def payment_json(payment: Payment) -> PaymentJSON:
    return {
        "payer": payment.payer,
        "payee": payment.payee,
        "amount": payment.amount,
        "reason": payment.reason,
        "detail": dict(payment.detail),
    }


def payment_from_json(data: Mapping[str, Any]) -> Payment:
    return Payment(data["payer"], data["payee"], data["amount"], data["reason"], data["detail"])


@dataclass(frozen=True)
class Outcome:
    """A finished hand's result: ``net`` per player (zero-sum) and the itemised
    ``payments`` that make it up. Units of the table stake for Mậu Binh and
    Tiến Lên (before the balance cap), chips for Hold'em (stacks already moved).
    ``summary`` is the game's own (``games/rules/<game>/types.py``).
    """

    net: tuple[int, ...]
    payments: tuple[Payment, ...]
    summary: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LeaveCost:
    """What leaving a hand now costs the leaver, told from what the leaver may
    see (their own cards and the public table): ``amount`` in the outcome's
    units (stakes; Hold'em chips), ``reason`` the rule that charges it
    (Hold'em ``fold``, Tiến Lên ``cong`` or ``cards``, Mậu Binh ``chi``), and
    ``exact`` whether it is the final figure or the likely one (others' cards
    may add to it)."""

    amount: int
    reason: str
    exact: bool
    detail: JSON = field(default_factory=dict)


@dataclass(frozen=True)
class Change:
    """One change of a hand as the service makes it (games/services/hands.py
    ``play``): a player's ``action`` (``act``), the clock running out
    (``timeout``) or a player leaving (``leave``). A replay reads it back from
    the events it made (``GameEngine.change_of``)."""

    kind: Literal["act", "timeout", "leave"]
    player: int | None = None
    action: JSON = field(default_factory=dict)


class GameEngine(Protocol):
    name: str
    min_players: int
    max_players: int
    #: The clocks its statuses name (``Status.clock``), by name.
    clocks: Mapping[str, ClockKind]

    def ruleset(self, preset: str, options: Mapping[str, Any]) -> Any: ...

    def start(
        self, ruleset: Any, deck: Sequence[Card], players: int, setup: Mapping[str, Any]
    ) -> tuple[Any, list[Event]]: ...

    def apply(
        self, state: Any, player: int, action: Mapping[str, Any], elapsed_ms: int = 0
    ) -> tuple[Any, list[Event]]: ...

    def timeout(self, state: Any) -> tuple[Any, list[Event]]: ...

    def leave(self, state: Any, player: int) -> tuple[Any, list[Event]]: ...

    def leave_cost(self, state: Any, player: int) -> LeaveCost | None:
        """What leaving now costs ``player`` (None: nothing more than staying)."""
        ...

    def change_of(self, events: Sequence[Event]) -> Change:
        """The change whose events begin at ``events[0]`` (the hand's events
        from there on, private ones included, never empty); a ``RulesError``
        (``replay_mismatch``) if no change begins with it."""
        ...

    def status(self, state: Any) -> Status: ...

    def view(self, state: Any, player: int | None) -> Mapping[str, Any]: ...

    def personal_view(self, state: Any, player: int) -> Mapping[str, Any]:
        """The keys of ``player``'s view that are not the spectators':
        ``view(state, player) == {**view(state, None), **personal_view(state, player)}``
        (one spectator view and these make every seat's view of a state)."""
        ...

    def outcome(self, state: Any) -> Outcome: ...

    def bot_action(self, view: Mapping[str, Any], seed: int) -> Mapping[str, Any]: ...

    def dumps(self, state: Any) -> JSON: ...

    def loads(self, data: JSON) -> Any: ...
