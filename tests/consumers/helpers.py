"""Talking to the real ASGI application (Redis channel layer, PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

from channels.testing import WebsocketCommunicator

from accounts.sessions import token_issue
from games.protocol import follow
from vipgame.asgi import application


def ready_right_after_opening(monkeypatch: Any, table_id: int, user: Any) -> None:
    """``user`` gets ready right after any socket's opening read
    (``services.socket_open``): a change committed in that gap."""
    from games import consumers, services

    socket_open = consumers.services.socket_open

    def open_then_ready(**kwargs: Any) -> Any:
        opened = socket_open(**kwargs)
        services.table_ready(table_id=table_id, user=user)
        return opened

    monkeypatch.setattr(consumers.services, "socket_open", open_then_ready)


def token_for(user: Any) -> str:
    """A new device session's access token (``accounts.sessions``)."""
    return token_issue(user=user)


class Client:
    """A WebSocket client that keeps the latest state it was sent, as a browser
    does (docs/protocol.md): a ``delta`` is applied to it and read as the full
    ``state`` it makes (``raw`` keeps what was sent); a delta that does not
    apply asks for a ``sync``."""

    def __init__(self, path: str, token: str | None = None, origin: str | None = None) -> None:
        headers = []
        if token:
            headers.append((b"authorization", f"Token {token}".encode()))
        if origin:
            headers.append((b"origin", origin.encode()))
        self.ws = WebsocketCommunicator(application, path, headers=headers)
        self.received: list[dict[str, Any]] = []  # as read (a delta as its state)
        self.raw: list[dict[str, Any]] = []  # as sent
        self.state: dict[str, Any] = {}
        self.syncing: int | None = None  # the version a sync was asked from

    async def connect(self) -> bool:
        connected, _ = await self.ws.connect(timeout=5)
        return bool(connected)

    async def send(self, **message: Any) -> None:
        await self.ws.send_to(text_data=json.dumps(message))

    async def recv(self, timeout: float = 5) -> dict[str, Any]:
        """The next message; a delta that applies as the ``state`` it makes."""
        message = json.loads(await self.ws.receive_from(timeout=timeout))
        self.raw.append(message)
        if message["type"] in ("state", "delta"):
            state, sync = follow(self.state or None, message)
            if state is not None:
                self.state, self.syncing = state, None
                message = state
            elif sync and self.syncing != self.state.get("v", 0):
                self.syncing = self.state.get("v", 0)
                await self.send(type="sync", v=self.syncing)
        self.received.append(message)
        return message

    async def until(self, predicate: Any, timeout: float = 10, limit: int = 500) -> dict[str, Any]:
        for _ in range(limit):
            message = await self.recv(timeout)
            if predicate(message):
                return message
        raise AssertionError("expected message never came")

    async def settle(self, quiet: float = 0.05) -> None:
        """Read everything already sent (until the socket is quiet). A receive
        that times out would cancel the application, so peek first."""
        while not await self.ws.receive_nothing(timeout=quiet):
            await self.recv()

    async def close(self) -> None:
        await self.ws.disconnect()


def browser_socket(browser: Any, path: str, token: str | None = None) -> Client:
    """A socket opened with a test browser's session cookie (``django.test.Client``),
    and with ``token`` in the Authorization header too."""
    socket = Client(path)
    cookie = f"sessionid={browser.cookies['sessionid'].value}"
    headers = [(b"cookie", cookie.encode()), (b"origin", b"http://127.0.0.1:8000")]
    if token:
        headers.append((b"authorization", f"Token {token}".encode()))
    socket.ws = WebsocketCommunicator(application, path, headers=headers)
    return socket


async def still_open(socket: Client) -> bool:
    """The socket still answers a ping."""
    await socket.settle()
    await socket.send(type="ping", t=7)
    return (await socket.until(lambda m: m["type"] == "pong"))["t"] == 7
