"""The WebSocket messages (docs/protocol.md) as types: published in the API
schema (``games/api/schema.py``) next to the REST shapes they share.

The ``state`` message is the table state of ``GET /api/v1/tables/<id>``
(``games.api.serializers.TableStateOut``); the game-specific parts are the
rules package's own types (``games/rules/<game>/types.py``)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

# -- client to server ----------------------------------------------------------


class AuthMessage(TypedDict):
    type: Literal["auth"]
    token: str
    lang: NotRequired[str]


class SitMessage(TypedDict):
    type: Literal["sit"]
    id: str
    position: NotRequired[int | None]
    buy_in: NotRequired[int | None]


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
    type: Literal["leave"]
    id: str


class ActMessage(TypedDict):
    """``action``: one of the ``Action`` components (by its ``type``)."""

    type: Literal["act"]
    id: str
    v: NotRequired[int | None]
    action: dict[str, Any]


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
    ActMessage,
    BuyInMessage,
    AddBotMessage,
    ChatSendMessage,
    SyncMessage,
    PingMessage,
)

# -- server to client ----------------------------------------------------------


class AckMessage(TypedDict):
    type: Literal["ack"]
    id: str | None
    v: NotRequired[int]
    duplicate: NotRequired[bool]
    commitment: NotRequired[str]


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
    ``message``), ``unmuted``, ``logged_out``."""

    type: Literal["event"]
    event: Literal["balance", "authenticated", "muted", "unmuted", "logged_out"]
    balance: NotRequired[int]
    available: NotRequired[int]
    user_id: NotRequired[int]
    until: NotRequired[int | None]
    reason: NotRequired[str]
    message: NotRequired[str]


class PongMessage(TypedDict):
    type: Literal["pong"]
    t: Any
    server_time: int


class LobbyTable(TypedDict):
    id: int
    game: Literal["maubinh", "tienlen", "holdem"]
    name: str
    preset: str
    stake: int
    seat_count: int
    private: bool
    status: Literal["waiting", "playing", "summary", "closed"]
    rules: list[list[Any]]
    taken: int
    humans: int


class LobbyMessage(TypedDict):
    """The lobby socket's first message: the public open tables."""

    type: Literal["lobby"]
    tables: list[LobbyTable]


class LobbyTableMessage(TypedDict):
    """The lobby socket: one table changed."""

    type: Literal["table"]
    table: LobbyTable


SERVER_MESSAGES: tuple[type, ...] = (
    AckMessage,
    ErrorMessage,
    ChatMessage,
    EventMessage,
    PongMessage,
    LobbyMessage,
    LobbyTableMessage,
)
