"""The WebSocket messages (docs/protocol.md) as types: published in the API
schema (``games/api/schema.py``) next to the REST shapes they share.

The ``state`` message is the table state of ``GET /api/v1/tables/<id>``
(``games.api.serializers.TableStateOut``); the game-specific parts are the
rules package's own types (``games/rules/<game>/types.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired, TypedDict, cast

#: The version of this protocol the server speaks (docs/protocol.md
#: "Versions"): every ``state`` and the lobby's first message carry it as
#: ``protocol``; a client may ask for one with ``?protocol=<n>``.
VERSION = 1
#: The versions a client may ask for, and those of them deprecated (with
#: their sunset date, ``YYYY-MM-DD``): their sockets are told so.
SUPPORTED: tuple[int, ...] = (1,)
DEPRECATED: dict[int, str] = {}


#: Every code a socket of this protocol may be closed with, and what it means
#: to a client (docs/protocol.md "Close codes"; the AsyncAPI document).
CLOSE_CODES: dict[int, str] = {
    1008: "Policy violation: kept sending bad or too many messages.",
    1009: "A message over the server's frame limit (`WS_MAX_FRAME_BYTES`).",
    1011: "The server failed handling a message.",
    1012: "The server lost its message bus or database: reconnect and `sync`.",
    1013: "The server has too many sockets opening: reconnect after the back-off.",
    4400: "Logged out: the device session or browser session the socket was opened with ended.",
    4401: "Account banned or deactivated.",
    4403: "Private table: open it with its invite (`?invite=<code>`); an `error` "
    "`private_table` comes first. Do not reconnect.",
    4404: "No such table, or no such socket path; an `error` `table_not_found` or "
    "`not_found` comes first. Do not reconnect.",
    4408: "Too slow: more unread output than `WS_MAX_PENDING_BYTES`; reconnect and `sync`.",
    4410: "Silent: the client sent nothing, not even its `ping`, for `WS_SILENT_CLOSE_S`; "
    "reconnect and `sync`.",
    4426: "The protocol version asked for (`?protocol=`) is not supported: update the app.",
    4429: "Too many open sockets for the user or the address.",
}


@dataclass(frozen=True)
class Component:
    """In an ``Annotated`` type: published as this component of the API schema
    (a shape the REST API already names), while the code sees the plain type."""

    name: str


# The state's parts a delta carries again, as the state publishes them.
Clock = Annotated[dict[str, Any], Component("ClockInfo")]
Event = Annotated[dict[str, Any], Component("Event")]
SeatInfo = Annotated[dict[str, Any], Component("SeatState")]
# A move (``act``) and a finished hand's result: the REST API's own shapes.
Action = Annotated[dict[str, Any], Component("Action")]
Result = Annotated[dict[str, Any], Component("Result")]
# A game's name: any registered game (games.rules.registry); the schema
# publishes the registered names as this component's enum.
GameName = Annotated[str, Component("GameName")]

# -- client to server ----------------------------------------------------------


class AuthMessage(TypedDict):
    type: Literal["auth"]
    token: str
    lang: NotRequired[str]


class SitMessage(TypedDict):
    """``auto_ready``: the seat's switch (absent or null: on at a table with bots)."""

    type: Literal["sit"]
    id: str
    position: NotRequired[int | None]
    buy_in: NotRequired[int | None]
    auto_ready: NotRequired[bool | None]


class SeedMessage(TypedDict):
    type: Literal["seed"]
    id: str
    client_seed: str
    commitment: str


class ReadyMessage(TypedDict):
    type: Literal["ready"]
    id: str
    client_seed: NotRequired[str]
    commitment: NotRequired[str | None]


class LeaveMessage(TypedDict):
    """``when``: ``now`` (the default: in a hand, the game's leave rule, at the
    cost ``leave_cost`` tells) or ``after_hand`` (play the hand out, then
    leave; ``stay`` cancels it). Between hands the seat frees at once."""

    type: Literal["leave"]
    id: str
    when: NotRequired[Literal["now", "after_hand"]]


class StayMessage(TypedDict):
    """Cancel ``leave`` ``after_hand``."""

    type: Literal["stay"]
    id: str


class AutoReadyMessage(TypedDict):
    """Mậu Binh, Tiến Lên: the server readies the seat for each next hand."""

    type: Literal["auto_ready"]
    id: str
    on: bool


class LeaveCostMessage(TypedDict):
    """Ask what leaving now would cost: the ``ack`` carries ``leave_cost``."""

    type: Literal["leave_cost"]
    id: str


class ActMessage(TypedDict):
    """``action``: a move of the table's game (the ``Action`` of
    ``POST /api/v1/tables/<id>/actions``, by its ``type``)."""

    type: Literal["act"]
    id: str
    v: NotRequired[int | None]
    action: Action


class BuyInMessage(TypedDict):
    type: Literal["buy_in"]
    id: str
    amount: int


class AddBotMessage(TypedDict):
    type: Literal["add_bot"]
    id: str
    position: NotRequired[int | None]


class ChatSendMessage(TypedDict):
    type: Literal["chat"]
    id: str
    text: str


class ReportMessage(TypedDict):
    """Report a ``chat`` line (its ``id``, ``message_id``) to the moderators:
    ``category`` (default ``abuse``) and a ``note`` of up to 200 characters.
    The ``ack`` carries ``reported``. The same as ``POST /api/v1/chat/<id>/report``."""

    type: Literal["report"]
    id: str
    message_id: int
    category: NotRequired[Literal["abuse", "spam", "cheating", "other"]]
    note: NotRequired[str]


class SyncMessage(TypedDict):
    type: Literal["sync"]
    v: int


class PingMessage(TypedDict):
    type: Literal["ping"]
    t: NotRequired[Any]


CLIENT_MESSAGES: tuple[type, ...] = (
    AuthMessage,
    SitMessage,
    SeedMessage,
    ReadyMessage,
    LeaveMessage,
    StayMessage,
    AutoReadyMessage,
    LeaveCostMessage,
    ActMessage,
    BuyInMessage,
    AddBotMessage,
    ChatSendMessage,
    ReportMessage,
    SyncMessage,
    PingMessage,
)

# -- server to client ----------------------------------------------------------


class LeaveCost(TypedDict):
    """What leaving the hand now costs you, in chips, as the game's rules tell
    it from what you may see: ``reason`` ``fold`` (Poker: the chips you bet;
    ``exact``), ``cong`` or ``cards`` (Tiến Lên: the server plays your turns
    to the end; what your cards pay if another player goes out, ``detail``
    ``cards`` and ``thoi`` units), ``chi`` (Mậu Binh: each chi not yet
    revealed to each opponent, at least; ``detail`` ``chi`` and
    ``opponents``); another game's own (its engine's ``leave_cost``). Never
    more than you can pay."""

    chips: int
    reason: str
    exact: bool
    detail: dict[str, int]


class AckMessage(TypedDict):
    """For ``act`` also ``v`` and ``duplicate``; for ``seed`` the
    ``commitment``; for ``leave_cost`` the ``leave_cost`` (null: leaving now
    costs nothing)."""

    type: Literal["ack"]
    id: str | None
    v: NotRequired[int]
    duplicate: NotRequired[bool]
    commitment: NotRequired[str]
    leave_cost: NotRequired[LeaveCost | None]
    reported: NotRequired[int]


class ErrorMessage(TypedDict):
    type: Literal["error"]
    id: str | None
    code: str
    message: str
    details: NotRequired[dict[str, Any]]


class ChatMessage(TypedDict):
    type: Literal["chat"]
    id: int
    user_id: int
    name: str
    text: str
    at: int | None


class EventMessage(TypedDict):
    """``event``: ``balance`` (with ``balance`` and ``available``),
    ``authenticated`` (``user_id``), ``muted`` (``until``, ``reason``,
    ``message``), ``unmuted``, ``logged_out``, ``deprecated`` (the
    ``protocol`` version asked for is deprecated: its ``sunset``,
    ``YYYY-MM-DD``, and a ``message``)."""

    type: Literal["event"]
    event: Literal["balance", "authenticated", "muted", "unmuted", "logged_out", "deprecated"]
    balance: NotRequired[int]
    available: NotRequired[int]
    user_id: NotRequired[int]
    until: NotRequired[int | None]
    reason: NotRequired[str]
    message: NotRequired[str]
    protocol: NotRequired[int]
    sunset: NotRequired[str]


class PongMessage(TypedDict):
    type: Literal["pong"]
    t: Any
    server_time: int


class ViewPatch(TypedDict):
    """How a hand's ``view`` changed: keys whose value is replaced (``set``),
    lists that grew at their end (``append``: the new items) and keys gone
    (``unset``). A part with nothing in it is left out."""

    set: NotRequired[dict[str, Any]]
    append: NotRequired[dict[str, list[Any]]]
    unset: NotRequired[list[str]]


class DeltaHand(TypedDict):
    """The hand's id, its last event and its view's patch; the hand's other
    fields that changed (at its end: ``finished``, ``result``,
    ``server_seed``) replace the state's."""

    id: int
    last_seq: int
    view: ViewPatch
    finished: NotRequired[bool]
    settled: NotRequired[bool]
    result: NotRequired[Result | None]
    server_seed: NotRequired[str | None]


class DeltaTable(TypedDict):
    """The table's fields that changed; each replaces the state's. A seat
    delta (no ``hand``) carries all the ``seats``."""

    status: NotRequired[Literal["waiting", "playing", "summary", "closed"]]
    stake: NotRequired[int]
    hands_played: NotRequired[int]
    next_commitment: NotRequired[str]
    name: NotRequired[str]
    max_raise: NotRequired[int | None]
    closed_reason: NotRequired[str]
    seats: NotRequired[list[SeatInfo]]


class DeltaMessage(TypedDict):
    """What one change did, for a client holding the state of version
    ``base``: the new version, the clock, who acts, the new events, and the
    hand's and table's fields that changed: after a move, a patch of its
    hand's ``view``; after a change of the seats only (ready, present,
    auto-ready, leaving after the hand, chips, seeds), no ``hand`` and all
    the ``table``'s ``seats``. Everything else of the state (``seat``,
    ``you``, the rest of ``hand`` and ``table``) is unchanged. A client that
    holds another version sends ``sync`` (see ``apply_delta``)."""

    type: Literal["delta"]
    v: int
    base: int
    server_time: int
    actors: list[int]
    clock: Clock | None
    hand: NotRequired[DeltaHand]
    table: NotRequired[DeltaTable]
    events: list[Event]


def view_patch(old: Mapping[str, Any], new: Mapping[str, Any]) -> ViewPatch:
    """The patch that turns view ``old`` into view ``new`` (top-level keys;
    a list that only grew at its end sends its new items)."""
    changed: dict[str, Any] = {}
    grown: dict[str, list[Any]] = {}
    for key, value in new.items():
        if key in old:
            before = old[key]
            if before == value:
                continue
            if (
                type(before) is list
                and type(value) is list
                and len(value) > len(before)
                and value[: len(before)] == before
            ):
                grown[key] = value[len(before) :]
                continue
        changed[key] = value
    patch: ViewPatch = {}
    if changed:
        patch["set"] = changed
    if grown:
        patch["append"] = grown
    gone = [k for k in old if k not in new]
    if gone:
        patch["unset"] = gone
    return patch


def personal_patch(
    common: ViewPatch,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    old_own: Mapping[str, Any],
    new_own: Mapping[str, Any],
) -> ViewPatch:
    """``view_patch({**old, **old_own}, {**new, **new_own})``, given ``common``,
    the spectators' patch ``view_patch(old, new)``: only the keys of a seat's
    own (``GameEngine.personal_view``) are compared again. Every seat's patch
    of a move comes from one spectator patch this way."""
    keys = old_own.keys() | new_own.keys()
    if not keys:
        return common

    def pick(view: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
        return {k: own[k] if k in own else view[k] for k in keys if k in own or k in view}

    mine = view_patch(pick(old, old_own), pick(new, new_own))
    patch: ViewPatch = {}
    changed = {k: v for k, v in common.get("set", {}).items() if k not in keys}
    changed.update(mine.get("set", {}))
    if changed:
        patch["set"] = changed
    grown = {k: v for k, v in common.get("append", {}).items() if k not in keys}
    grown.update(mine.get("append", {}))
    if grown:
        patch["append"] = grown
    gone = [k for k in common.get("unset", []) if k not in keys] + mine.get("unset", [])
    if gone:
        patch["unset"] = gone
    return patch


def apply_delta(state: dict[str, Any], delta: DeltaMessage) -> dict[str, Any] | None:
    """The ``state`` a ``delta`` makes of ``state``, or None when it does not
    apply (``state`` is not of version ``base``, or of another hand): then
    the client sends ``sync``. A delta without ``hand`` leaves the state's
    hand as it is. ``state`` is not changed."""
    if state.get("v") != delta["base"]:
        return None
    hand = state.get("hand")
    changed = delta.get("hand")
    if changed is not None:
        if not hand or hand.get("id") != changed["id"]:
            return None
        patch = changed["view"]
        view = dict(hand.get("view") or {})
        view.update(patch.get("set", {}))
        for key, items in patch.get("append", {}).items():
            view[key] = [*view.get(key, []), *items]
        for key in patch.get("unset", []):
            view.pop(key, None)
        hand = {**hand, **changed, "view": view}
    rebuilt = {
        **state,
        "v": delta["v"],
        "server_time": delta["server_time"],
        "actors": delta["actors"],
        "clock": delta["clock"],
        "hand": hand,
        "events": delta["events"],
        "resync": False,
    }
    if "table" in delta:
        rebuilt["table"] = {**state["table"], **delta["table"]}
    return rebuilt


def follow(
    held: dict[str, Any] | None, message: dict[str, Any]
) -> tuple[dict[str, Any] | None, bool]:
    """A client's step on a ``state`` or ``delta`` message, as the browser
    takes it (docs/protocol.md): the state it holds next (None: it keeps
    ``held``, the message is stale or does not apply) and whether it must send
    ``sync`` (with ``held``'s version): a newer delta that does not apply."""
    version = held["v"] if held else 0
    if message["type"] == "state":
        return (message, False) if message["v"] >= version else (None, False)
    if message["v"] <= version:
        return None, False
    state = apply_delta(held, cast(DeltaMessage, message)) if held else None
    return state, state is None


class LobbyPlayer(TypedDict):
    position: int
    user_id: int
    name: str
    avatar: str
    bot: bool


class LobbyTable(TypedDict):
    id: int
    game: GameName
    name: str
    preset: str
    stake: int
    seat_count: int
    private: bool
    status: Literal["waiting", "playing", "summary", "closed"]
    rules: list[list[Any]]
    taken: int
    humans: int
    players: list[LobbyPlayer]


class LobbyMessage(TypedDict):
    """The lobby socket's first message (and its answer to ``auth``): the open
    public tables and the private ones the signed-in user owns, sits at or
    was invited to, and the ``protocol`` version the socket speaks."""

    type: Literal["lobby"]
    protocol: int
    tables: list[LobbyTable]


class LobbyTableMessage(TypedDict):
    """The lobby socket: one table changed."""

    type: Literal["table"]
    table: LobbyTable


class LobbyTournament(TypedDict):
    """A tournament as the lobby lists it (a row of ``GET /api/v1/tournaments``;
    its levels, prizes and entries: ``GET /api/v1/tournaments/{id}``)."""

    id: int
    kind: Literal["sit_and_go", "scheduled"]
    game: GameName
    seats: int
    buy_in: int
    fee: int
    status: Literal["registering", "running", "finished", "cancelled"]
    registered: int
    starts_at: str | None
    tables: list[int]


class LobbyTournamentMessage(TypedDict):
    """The lobby socket: a tournament changed (created, a place taken or given
    back, started, a player out, over, cancelled): its whole row again."""

    type: Literal["tournament"]
    tournament: LobbyTournament


SERVER_MESSAGES: tuple[type, ...] = (
    AckMessage,
    DeltaMessage,
    ErrorMessage,
    ChatMessage,
    EventMessage,
    PongMessage,
    LobbyMessage,
    LobbyTableMessage,
    LobbyTournamentMessage,
)
