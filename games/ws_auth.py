"""WebSocket authentication and origin checks.

Browsers authenticate with the Django session and always send ``Origin``,
which must then be one of ``ALLOWED_ORIGINS``: scheme, host and port all
compared (a page on another port of the same host is another origin). Mobile
apps send a device session's access token (``accounts.sessions``) in the
``Authorization`` header (or in a first ``auth`` message) and usually no
``Origin``: a missing Origin is accepted, since a cross-site page cannot open
a socket without one.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from channels.auth import AuthMiddleware
from channels.db import database_sync_to_async
from channels.security.websocket import WebsocketDenier
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from accounts.sessions import device_mark
from kernel.ops import metrics


@database_sync_to_async
def user_for_token(key: str) -> tuple[Any, str]:
    """The user an access token names, and the mark of its device session
    (what a log-out of that device closes); a guest and "" when the token is
    unknown, expired, or its account may not play."""
    from games import sql

    found = sql.token_user(key)
    if found is None:
        return AnonymousUser(), ""
    user, session_id = found
    if not user.is_active or user.is_bot:
        return AnonymousUser(), ""
    return user, device_mark(session_id)


def header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin1"))
    return None


class TokenAuthMiddleware:
    """A token in the ``Authorization`` header names the user, and no session
    is looked at (a wrong token is a guest, whatever cookie came with it).
    Without one, the browser's session does (Channels' session and auth
    middleware): a mobile app's socket costs one lookup, not three."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.by_session = SessionMiddleware(AuthMiddleware(app))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        authorization = header(scope, b"authorization") or ""
        scheme, _, key = authorization.partition(" ")
        if scheme.lower() in ("token", "bearer") and key:
            user, mark = await user_for_token(key.strip())
            scope = {**scope, "user": user}
            if user.is_authenticated:
                scope["auth_token"] = mark
            return await self.app(scope, receive, send)
        return await self.by_session(scope, receive, send)


DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_key(origin: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an origin, the port made explicit; None when
    it is not an http(s) origin (``null``, a file, garbage)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host or parts.path not in ("", "/"):
        return None
    return scheme, host, port if port is not None else DEFAULT_PORTS[scheme]


@lru_cache(maxsize=4)
def _allowed(origins: tuple[str, ...]) -> frozenset[tuple[str, str, int]]:
    return frozenset(key for key in map(origin_key, origins) if key is not None)


def origin_allowed(origin: str) -> bool:
    key = origin_key(origin)
    return key is not None and key in _allowed(tuple(settings.ALLOWED_ORIGINS))


class BrowserOriginValidator:
    """Refuse the handshake (403) when an ``Origin`` is sent and is not one of
    ``ALLOWED_ORIGINS``; no ``Origin``: a non-browser client (token)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        origin = header(scope, b"origin")
        if origin is not None and not origin_allowed(origin):
            return await WebsocketDenier()(scope, receive, send)
        return await self.app(scope, receive, send)


TRY_AGAIN_LATER = 1013


class OpeningGate:
    """Sheds handshakes when this process already has ``WS_MAX_OPENING``
    sockets opening (32; 0: no cap). A socket is opening from its handshake
    until it is accepted or refused. Under a herd (players arriving together,
    every socket of a restarted server coming back) openings pile up, each
    waiting for the same threads, until Daphne's handshake time-out (5 s)
    drops them with the work half done, and their retries bring more. One
    over the cap is accepted and closed at once with 1013 (try again later)
    before any look-up: no database, no Redis. Clients back off and come back
    (docs/protocol.md)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.opening = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        cap = settings.WS_MAX_OPENING
        if cap and self.opening >= cap:
            metrics.socket_shed()
            await receive()  # websocket.connect
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
            return None
        self.opening += 1
        counted = True

        def opened() -> None:
            nonlocal counted
            if counted:
                counted = False
                self.opening -= 1

        async def watched(message: dict[str, Any]) -> None:
            if message["type"] in ("websocket.accept", "websocket.close"):
                opened()
            await send(message)

        try:
            return await self.app(scope, receive, watched)
        finally:
            opened()


def websocket_stack(app: Any) -> Any:
    # (the cookies parsed for every socket: the language cookie too)
    return OpeningGate(BrowserOriginValidator(CookieMiddleware(TokenAuthMiddleware(app))))
