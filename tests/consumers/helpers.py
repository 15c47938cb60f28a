"""Talking to the real ASGI application (Redis channel layer, PostgreSQL)."""

from __future__ import annotations

import json
from typing import Any

from channels.testing import WebsocketCommunicator
from rest_framework.authtoken.models import Token

from vipgame.asgi import application


def token_for(user: Any) -> str:
    return str(Token.objects.get_or_create(user=user)[0].key)


class Client:
    """A WebSocket client that keeps the latest state it was sent."""

    def __init__(self, path: str, token: str | None = None, origin: str | None = None) -> None:
        headers = []
        if token:
            headers.append((b"authorization", f"Token {token}".encode()))
        if origin:
            headers.append((b"origin", origin.encode()))
        self.ws = WebsocketCommunicator(application, path, headers=headers)
        self.received: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}

    async def connect(self) -> bool:
        connected, _ = await self.ws.connect(timeout=5)
        return bool(connected)

    async def send(self, **message: Any) -> None:
        await self.ws.send_to(text_data=json.dumps(message))

    async def recv(self, timeout: float = 5) -> dict[str, Any]:
        message = json.loads(await self.ws.receive_from(timeout=timeout))
        self.received.append(message)
        if message["type"] == "state" and (not self.state or message["v"] >= self.state["v"]):
            self.state = message
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


def browser_socket(browser: Any, path: str) -> Client:
    """A socket opened with a test browser's session cookie (``django.test.Client``)."""
    socket = Client(path)
    cookie = f"sessionid={browser.cookies['sessionid'].value}"
    socket.ws = WebsocketCommunicator(
        application,
        path,
        headers=[(b"cookie", cookie.encode()), (b"origin", b"http://127.0.0.1:8000")],
    )
    return socket


async def still_open(socket: Client) -> bool:
    """The socket still answers a ping."""
    await socket.settle()
    await socket.send(type="ping", t=7)
    return (await socket.until(lambda m: m["type"] == "pong"))["t"] == 7
