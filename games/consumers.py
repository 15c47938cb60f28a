"""WebSocket transport (DESIGN.md protocol): authenticate, parse, call a
service, send views. No game logic lives here."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import re
import secrets
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import InterfaceError, OperationalError
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from redis.exceptions import RedisError

from accounts.errors import AccountBanned
from accounts.sessions import credential_mark
from games import heartbeats, protocol, publish, selectors, services
from games.errors import AccountInactive, ChatMuted, GameError, TableNotFound, UnsupportedProtocol
from games.services import outages
from kernel import limits
from kernel.errors import Busy, NotFound, PermissionDenied, ServerError, ServiceError
from kernel.language import language_for
from kernel.net import scope_client_ip
from kernel.notify import user_group as wallet_group
from kernel.ops import context, metrics, rounds, spread
from kernel.retry import timed_out

from .ws_auth import header, user_for_token

logger = logging.getLogger(__name__)
SERVICE_RESTART = 1012


_DB_THREADS = ThreadPoolExecutor(max_workers=settings.DB_THREADS, thread_name_prefix="db")


def db(func: Any) -> Any:
    """Run a service or selector in the database threads. Not thread-sensitive:
    each call gets a thread (and its database connection) of a small pool, so
    one socket's move does not queue behind another's in a single shared
    thread, and the event loop, which delivers the states, keeps the GIL often."""
    return database_sync_to_async(func, thread_sensitive=False, executor=_DB_THREADS)


_SOCKETS_HEARTBEAT = db(services.sockets_heartbeat)


async def finished(task: asyncio.Future[None] | None, timeout: float = 5.0) -> None:
    """A socket's heartbeat or renewal in flight, let finish (its batch is at
    most ``heartbeats.BATCH_S`` away) before the socket's close undoes it."""
    if task is not None and not task.done():
        await asyncio.wait([task], timeout=timeout)


async def _renew_sockets(asked: list[Any]) -> list[int]:
    return await asyncio.to_thread(limits.sockets_renew, asked)


def beat_while_serving() -> None:
    """This process serves players (an accepted socket): it notes, every
    ``ROOM_BEAT_S``, that it can reach PostgreSQL and Redis
    (games.services.outages)."""
    rounds.every("room beat", settings.ROOM_BEAT_S, db(outages.beat_if_serving))


MAX_MESSAGE_BYTES = 8 * 1024
RATE_WINDOW_S = 10.0
MAX_STRIKES = 10
POLICY_VIOLATION = 1008
ACCOUNT_BANNED = 4401
LOGGED_OUT = 4400
PRIVATE = 4403
NOT_FOUND = 4404
UNSUPPORTED = 4426
SILENT = 4410  # nothing heard from the client for WS_SILENT_CLOSE_S
SILENT_GRACE_S = 2.0
TOO_MANY_SOCKETS = 4429
# A socket that finds itself behind at a heartbeat waits this long for the
# publication in flight before it reads the full state.
CATCH_UP_GRACE_S = 1.0
# A delta that arrives ahead of the one before it (two Daphne processes publish
# a table's changes, and Redis keeps order per publisher only) waits this long
# for the missing one before the socket reads the full state instead.
REORDER_GRACE_S = 0.25
HEARTBEAT_S = 15
RENEW_S = limits.SOCKET_STALE_S / 2


class ProtocolError(ServiceError):
    code = "bad_message"


class TooManySockets(ServiceError):
    code = "too_many_sockets"
    template = _("Too many open connections: close another tab or device first.")
    status = 429


class SyncTooFast(ServiceError):
    code = "sync_rate_limited"
    template = _("Too many full reloads of the table: wait %(wait)s seconds.")
    status = 429

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"wait": self.params["wait"]}}


class ChatTooFast(ServiceError):
    code = "chat_rate_limited"
    template = _("You are chatting too fast: wait %(wait)s seconds.")
    status = 429


DEPRECATED_NOTICE = _("This version of the app will stop working on %(sunset)s: please update it.")


def asked_protocol(scope: dict[str, Any]) -> int | None:
    """The protocol version a socket asks for (``?protocol=<n>``): the
    current one when it asks for none, None when the server does not speak
    the one it asks for."""
    query = parse_qs((scope.get("query_string") or b"").decode(), keep_blank_values=True)
    asked = query.get("protocol")
    if asked is None:
        return protocol.VERSION
    value = asked[-1]
    if not value.isascii() or not value.isdigit() or int(value) not in protocol.SUPPORTED:
        return None
    return int(value)


def protocol_error(code: str, template: Any) -> ProtocolError:
    err = ProtocolError(template)
    err.code = code
    return err


# A JSON string can carry NUL and lone UTF-16 surrogates (``\\ud800``) only
# escaped: most messages hold neither escape and skip the walk.
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
_SURROGATE = re.compile("[\ud800-\udfff]")


def bad_text(message: Any) -> ProtocolError | None:
    """The refusal for a parsed message holding a string (a key or a value, at
    any depth) that PostgreSQL cannot store or UTF-8 cannot carry: a NUL, or a
    lone surrogate (not a Unicode scalar value; a pair escaped as two
    ``\\u`` escapes decodes to one character and is fine). None when clean."""
    pending = [message]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return protocol_error("nul_character", _("Text may not contain the NUL character."))
            if _SURROGATE.search(value):
                return protocol_error(
                    "bad_unicode", _("Text must be valid Unicode: a lone surrogate is not.")
                )
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return None


def sendable(value: Any) -> Any:
    """A client's id echoed in a refusal: a lone surrogate cannot be sent as
    UTF-8, so it is replaced."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


class RoomSocket(AsyncWebsocketConsumer):
    """What the lobby and table sockets share: language, auth, limits, JSON."""

    user: Any
    kind = "room"  # the metrics' label: lobby or table
    counted = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Lost the channel layer (Redis restarted or unreachable): close with
        1012 so the client reconnects and resyncs, instead of crashing.

        Each socket runs in its own task, so the log context set here (a
        connection id as ``request_id``, the user, the table) is its own."""
        context.bind(request_id=f"ws-{secrets.token_hex(6)}", user=None, table=None, hand=None)
        try:
            await super().__call__(scope, receive, send)
        except (RedisError, OSError, OperationalError, InterfaceError) as exc:
            # (or the database, where a message's own answer could not say so:
            # while it connects, or in a delivery's catch-up)
            logger.warning("socket closed, Redis or the database is unreachable: %s", exc)
            with contextlib.suppress(Exception):
                if not self.counted:
                    # Not accepted yet (the socket caps are in Redis): a close
                    # now is an HTTP 403, which a client cannot tell from a
                    # refusal; accepted and closed, it sees 1012 and comes back.
                    await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": SERVICE_RESTART})
            with contextlib.suppress(Exception):  # presence; the groups went with Redis
                await asyncio.wait_for(self.disconnect(SERVICE_RESTART), timeout=5)
        finally:
            silence = getattr(self, "silence", None)
            if silence is not None:
                silence.cancel()
            if self.counted:
                self.counted = False
                metrics.socket_closed(self.kind)
                spread.forget(self)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        await super().accept(subprotocol, headers)
        if not self.counted:
            self.counted = True
            metrics.socket_opened(self.kind)
            spread.track(self)
            beat_while_serving()
        self.heard_any_at = time.monotonic()
        self._watch_silence(settings.WS_SILENT_CLOSE_S)

    def spread_rank(self) -> int:
        """Which sockets a crowded process closes first (kernel.ops.spread):
        the lobby's (0), a watcher's (1), a seated player's last (2)."""
        if self.kind != "table":
            return 0
        return 2 if getattr(self, "seated", False) else 1

    async def close_to_spread(self) -> None:
        """Closed to reconnect to another process (1012: the page comes back
        at once and catches up)."""
        if not getattr(self, "closed", False):
            self.closed = True
            await self.close(code=SERVICE_RESTART)

    def _watch_silence(self, after: float) -> None:
        """Close the socket when its client has sent nothing (not even its
        ping, every 10-20 s) for ``WS_SILENT_CLOSE_S``: a client that froze,
        or whose network went, without a close the server would see. One
        timer per socket, looked at once per period (not re-armed per frame)."""
        if after > 0 and not getattr(self, "closed", False):
            self.silence = asyncio.get_running_loop().call_later(after, self._silence_check)

    def _silence_check(self, suspected: bool = False) -> None:
        """Past the limit, one more look a moment later before closing: frames
        that arrived while the process was too busy to read them (an event
        loop stall) are read first, and count."""
        if getattr(self, "closed", False):
            return
        limit = settings.WS_SILENT_CLOSE_S
        quiet = time.monotonic() - self.heard_any_at
        if quiet < limit:
            self._watch_silence(limit - quiet)
        elif not suspected:
            grace = min(SILENT_GRACE_S, limit / 4)
            self.silence = asyncio.get_running_loop().call_later(grace, self._silence_check, True)
        else:
            self.closing_silent = asyncio.ensure_future(self._close_silent(quiet))

    async def _close_silent(self, quiet: float) -> None:
        logger.info("socket closed: nothing heard for %.0f s", quiet)
        metrics.socket_silent(self.kind)
        self.closed = True
        await self.close(code=SILENT)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """As Channels' own, without its ``aclose_old_connections()`` per message:
        a hop to the one shared sync thread for every frame and every state
        delivered, there to tidy connections that thread does not hold. All our
        database work runs through ``db()``, whose calls tidy their own."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        self.user = self.scope.get("user") or AnonymousUser()
        if self.user.is_authenticated:
            context.bind(user=self.user.pk)
        # How this socket proved who it is, so that a log-out closes it.
        self.credentials: set[str] = set()
        session = self.scope.get("session")
        if self.scope.get("auth_token"):
            self.credentials.add(self.scope["auth_token"])
        elif self.user.is_authenticated and getattr(session, "session_key", None):
            self.credentials.add(credential_mark(session.session_key))
        self.language = language_for(
            (self.scope.get("cookies") or {}).get("django_language"),
            header(self.scope, b"accept-language"),
        )
        self.sent_at: deque[float] = deque()
        self.synced_at: deque[float] = deque()  # this socket's syncs (``WS_SYNC_RATE``)
        self.strikes: deque[float] = deque()
        self.closed = False
        self.address = scope_client_ip(self.scope) or "unknown"
        self.socket_keys: list[tuple[str, str, int]] = []
        self.registered_at = 0.0
        caps = [("ws-address", self.address, settings.WS_MAX_SOCKETS_PER_ADDRESS)]
        if self.user.is_authenticated:
            caps.append(("ws-user", str(self.user.pk), settings.WS_MAX_SOCKETS_PER_USER))
        self.protocol = asked_protocol(self.scope)
        if self.protocol is None:
            supported = ", ".join(map(str, protocol.SUPPORTED))
            await self.refuse_opening(UnsupportedProtocol(supported=supported), UNSUPPORTED)
            return
        if not await self._register(caps, accepted=False):
            return
        await self.open()
        sunset = protocol.DEPRECATED.get(self.protocol)
        if sunset is not None and not self.closed:
            with translation.override(self.language):
                message = str(DEPRECATED_NOTICE) % {"sunset": sunset}
            await self.send_json(
                {
                    "type": "event",
                    "event": "deprecated",
                    "protocol": self.protocol,
                    "sunset": sunset,
                    "message": message,
                }
            )

    async def _register(self, caps: list[tuple[str, str, int]], *, accepted: bool = True) -> bool:
        """Count this socket against the per-address and per-user caps (every
        process shares them in Redis); over a cap, say so and close (4429)."""
        refused = await asyncio.to_thread(limits.socket_join, self.channel_name, caps)
        if refused:
            if not self.closed:
                if not accepted:
                    await self.accept()
                metrics.socket_error(self.kind, TooManySockets.code)
                with translation.override(self.language):
                    await self.send_json(
                        {"type": "error", "id": None, **TooManySockets().as_dict()}
                    )
                await self.close(code=TOO_MANY_SOCKETS)
                self.closed = True
            return False
        self.socket_keys.extend(caps)
        self.registered_at = time.monotonic()
        return True

    async def _renew(self) -> None:
        """This socket still counts (a process that dies without closing its
        sockets stops renewing them; they age out after SOCKET_STALE_S, 60 s).
        Renewed at the first ping after half that: a client pings every 10-20 s,
        so at most 50 s apart."""
        if self.socket_keys and time.monotonic() - self.registered_at > RENEW_S:
            self.registered_at = time.monotonic()
            renewing = getattr(self, "renewing", None)
            if renewing is None or renewing.done():
                self.renewing = asyncio.ensure_future(self._renew_now())

    async def _renew_now(self) -> None:
        """With the process's other renewals (games.heartbeats), beside this
        socket's deliveries; Redis unreachable: the next ping tries again."""
        try:
            await heartbeats.together((self.channel_name, list(self.socket_keys)), _renew_sockets)
        except RedisError as exc:
            logger.warning("socket renewal put off, Redis is unreachable: %s", exc)

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        keys = [(scope, ident) for scope, ident, _cap in getattr(self, "socket_keys", ())]
        await finished(getattr(self, "renewing", None))  # (else it could count the socket again)
        if keys:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(limits.socket_leave, self.channel_name, keys)
        await super().websocket_disconnect(message)

    async def open(self) -> None:
        await self.accept()

    async def refuse_opening(self, err: ServiceError, code: int) -> None:
        """Accepted, told why (an ``error`` in the client's language), then
        closed with ``code``: a handshake refused with HTTP 403 would reach
        no client with a close code (docs/protocol.md "Close codes")."""
        await self.accept()
        metrics.socket_error(self.kind, err.code)
        with translation.override(self.language):
            await self.send_json({"type": "error", "id": None, **err.as_dict()})
        await self.close(code=code)
        self.closed = True

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        self.received_at = time.perf_counter()  # an action's latency starts here
        self.received_wall = time.time()  # (a move's, to frames written in other processes)
        self.heard_any_at = time.monotonic()
        if self.closed:
            return  # what the client sent before the close arrived
        with translation.override(self.language):
            message: dict[str, Any] = {}
            try:
                message = self._parse(text_data, bytes_data)
                # Every string of every message, once, before any handler reads it.
                if _SUSPECT_ESCAPE.search(text_data or ""):
                    refused = bad_text(message)
                    if refused is not None:
                        await self.refuse(refused, sendable(message.get("id")))
                        return
                await self.handle(message)
            except ServiceError as err:
                await self.refuse(err, message.get("id"))
            except (OperationalError, InterfaceError) as exc:
                # The database dropped the connection (a restart, a fail-over;
                # the pool discards it). The socket stays open and the client
                # may send the message again: its transaction rolled back (or,
                # dropped during its commit, is read back by the resync of
                # versions; a move's client id makes a resend harmless).
                if timed_out(exc):  # a lock or statement bound ran out: nothing done
                    logger.warning("%s not done, timed out: %s", message.get("type"), exc)
                    await self.refuse(Busy(), message.get("id"))
                    return
                logger.warning(
                    "%s not done, the database is unreachable: %s", message.get("type"), exc
                )
                await self.refuse(ServerError(), message.get("id"))

    def _parse(self, text_data: str | None, bytes_data: bytes | None) -> dict[str, Any]:
        now = time.monotonic()
        self.sent_at.append(now)
        while self.sent_at and self.sent_at[0] < now - RATE_WINDOW_S:
            self.sent_at.popleft()
        if len(self.sent_at) > settings.WS_RATE_LIMIT:
            raise protocol_error("rate_limited", _("Too many messages: slow down."))
        if text_data is None:
            raise protocol_error("binary_not_supported", _("Send JSON text messages."))
        if len(text_data.encode()) > MAX_MESSAGE_BYTES:
            raise protocol_error("message_too_large", _("Messages are limited to 8 KB."))
        try:
            message = json.loads(text_data)
        except (ValueError, RecursionError):  # RecursionError: nested too deep
            raise protocol_error("bad_json", _("That message is not valid JSON.")) from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise protocol_error("bad_message", _("A message is a JSON object with a type."))
        return message

    async def refuse(self, err: ServiceError, client_id: Any) -> None:
        """Answer with an error; close with 1008 when the client keeps misbehaving
        (more than MAX_STRIKES malformed or excess messages within 10 s)."""
        body = {"type": "error", "id": client_id, **err.as_dict()}
        metrics.socket_error(self.kind, err.code)
        await self.send_json(body)
        if isinstance(err, ProtocolError):
            now = time.monotonic()
            self.strikes.append(now)
            while self.strikes and self.strikes[0] < now - RATE_WINDOW_S:
                self.strikes.popleft()
            if len(self.strikes) > MAX_STRIKES:
                await self.close(code=POLICY_VIOLATION)
                self.closed = True

    async def send_json(self, content: dict[str, Any]) -> None:
        await self.send_text(json.dumps(content, ensure_ascii=False, separators=(",", ":")))

    async def send_text(self, text: str) -> bool:
        """Write a frame to the socket; False if it was closed (nothing sent)."""
        if self.closed:
            return False
        try:
            await self.send(text_data=text)
        except Disconnected:  # the client went away before its disconnect arrived
            self.closed = True
            return False
        return True

    async def handle(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    async def pong(self, message: dict[str, Any]) -> None:
        await self.send_json(
            {"type": "pong", "t": message.get("t"), "server_time": int(time.time() * 1000)}
        )

    async def authenticate(self, message: dict[str, Any]) -> bool:
        token = message.get("token")
        if not isinstance(token, str) or not token:
            raise protocol_error("bad_token", _("Send your API token."))
        user, mark = await user_for_token(token)
        if not user.is_authenticated:
            raise PermissionDenied()
        cap = ("ws-user", str(user.pk), settings.WS_MAX_SOCKETS_PER_USER)
        if cap not in self.socket_keys and not await self._register([cap]):
            return False
        self.user = user
        context.bind(user=user.pk)
        self.credentials = {mark}
        if isinstance(message.get("lang"), str):
            self.language = language_for(message["lang"], None)
        await self.send_json({"type": "event", "event": "authenticated", "user_id": user.pk})
        return True

    async def account_banned(self, event: dict[str, Any]) -> None:
        """A moderator banned this user: say why, then close at once."""
        with translation.override(self.language):
            err = AccountBanned(reason=event.get("reason") or "-")
            await self.send_json({"type": "error", "id": None, **err.as_dict()})
        await self.close(code=ACCOUNT_BANNED)

    async def account_logged_out(self, event: dict[str, Any]) -> None:
        """The token or browser session this socket was opened with was ended
        (``all``: every credential of the user, after a password change or a
        log-out everywhere, but those in ``keep``)."""
        marks = set(event.get("tokens") or ())
        if event.get("session"):
            marks.add(event["session"])
        if event.get("all"):
            if not self.credentials.isdisjoint(event.get("keep") or ()):
                return  # the device that changed the password keeps its sockets
        elif self.credentials.isdisjoint(marks):
            return
        await self.send_json({"type": "event", "event": "logged_out"})
        await self.close(code=LOGGED_OUT)
        self.closed = True

    async def account_muted(self, event: dict[str, Any]) -> None:
        until = datetime.fromtimestamp(event["until"] / 1000, tz=UTC)
        with translation.override(self.language):
            notice = ChatMuted(until=until, reason=event.get("reason") or "-")
            await self.send_json(
                {"type": "event", "event": "muted", "message": notice.message, **notice.details}
            )

    async def account_unmuted(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "event", "event": "unmuted"})

    async def wallet_balance(self, event: dict[str, Any]) -> None:
        await self.send_json(
            {
                "type": "event",
                "event": "balance",
                "balance": event["balance"],
                "available": event["available"],
            }
        )


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any socket path that is neither the lobby's nor a table's: accepted,
    told ``not_found``, closed with 4404 (docs/protocol.md "Close codes"),
    without a look at Redis or the database, and nothing logged as an error
    (Channels' router would raise, and the server log a 500)."""

    async def connect(self) -> None:
        language = language_for(
            (self.scope.get("cookies") or {}).get("django_language"),
            header(self.scope, b"accept-language"),
        )
        await self.accept()
        with translation.override(language):
            body = {"type": "error", "id": None, **NotFound().as_dict()}
        await self.send(text_data=json.dumps(body, ensure_ascii=False, separators=(",", ":")))
        await self.close(code=NOT_FOUND)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        return  # (what the client sent before the close arrived)


class LobbySocket(RoomSocket):
    """``/ws/lobby/``: open tables by game and stake, with live seat counts;
    for a signed-in user, also the private tables they may find (their own,
    those they sit at or were invited to), on their own group."""

    kind = "lobby"

    def _groups(self) -> list[str]:
        groups = [publish.LOBBY_GROUP]
        if self.user.is_authenticated:
            groups += [wallet_group(self.user.pk), publish.lobby_user_group(self.user.pk)]
        return groups

    async def open(self) -> None:
        await self.accept()
        for group in self._groups():
            await self.channel_layer.group_add(group, self.channel_name)
        await self._send_list()

    async def _send_list(self) -> None:
        user = self.user if self.user.is_authenticated else None
        tables = await db(selectors.lobby_tables)(user=user)
        await self.send_json({"type": "lobby", "protocol": protocol.VERSION, "tables": tables})

    async def disconnect(self, code: int) -> None:
        for group in self._groups():
            await self.channel_layer.group_discard(group, self.channel_name)

    async def handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "ping":
            await self.pong(message)
            await self._renew()
            now = time.monotonic()
            if now - getattr(self, "heard_at", 0.0) > HEARTBEAT_S:  # renew (see TableSocket)
                self.heard_at = now
                for group in self._groups():
                    await self.channel_layer.group_add(group, self.channel_name)
        elif kind == "auth":
            if await self.authenticate(message):
                for group in self._groups():
                    await self.channel_layer.group_add(group, self.channel_name)
                await self._send_list()  # now with the user's private tables
        else:
            raise protocol_error("unknown_type", _("Unknown message type."))

    async def lobby_table(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "table", "table": event["table"]})

    async def lobby_tournament(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "tournament", "tournament": event["tournament"]})


class TableSocket(RoomSocket):
    """``/ws/tables/<id>/``: the table protocol of DESIGN.md."""

    kind = "table"

    async def open(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        context.bind(table=self.table_id)
        query = parse_qs((self.scope.get("query_string") or b"").decode())
        self.invite = (query.get("invite") or [""])[0]
        self.last_version = 0
        self.last_personal = False
        self.groups_joined: set[str] = set()
        self.seated = False
        self.catching_up: asyncio.Future[None] | None = None
        # Deltas that came ahead of their base, by base (``_deliver_delta``).
        self.ahead: dict[int, dict[str, Any]] = {}
        self.filling_gap: asyncio.Future[None] | None = None
        # The groups first: whatever is published from now on reaches this
        # socket (queued until this handler returns), so the state read next
        # misses nothing. A seated player's messages come to their user group,
        # a guest's to the public one.
        user = self.user if self.user.is_authenticated else None
        await self._join(publish.chat_group(self.table_id))
        if user is not None:
            await self._join(publish.user_group(self.table_id, user.pk))
            await self._join(wallet_group(user.pk))
        else:
            await self._join(publish.public_group(self.table_id))
        try:
            # One trip to the database threads: counted at the seat, then read.
            state, counted = await db(services.socket_open)(
                table_id=self.table_id, user=user, invite_code=self.invite
            )
        except (TableNotFound, GameError) as err:
            await self._leave_all()
            await self.refuse_opening(err, NOT_FOUND if isinstance(err, TableNotFound) else PRIVATE)
            return
        await self.accept()
        if user is not None:
            self.seated = state["seat"] is not None
            if self.seated and not counted:  # (sat down between the check and the read)
                await self._call(services.seat_presence, delta=1)
            elif not self.seated:
                await self._join(publish.public_group(self.table_id))
        await self._deliver(state)
        if user is not None and not self.seated:
            # A signed-in spectator joined the public group only now: a change
            # published since the read never reached this socket. Catch up
            # now, not at the next heartbeat (15 s+).
            version = await db(selectors.table_version)(table_id=self.table_id)
            if version is not None and version > state["v"]:
                await self._deliver(await self._state(state["v"], "open"), force=True)

    async def _leave_all(self) -> None:
        for group in list(self.groups_joined):
            await self._leave(group)

    async def _identify(self) -> None:
        """After an ``auth`` message: join this user's groups, and count the
        socket at their seat."""
        if self.user.is_authenticated:
            await self._join(publish.user_group(self.table_id, self.user.pk))
            await self._join(wallet_group(self.user.pk))
            position = await db(selectors.seated_position)(table_id=self.table_id, user=self.user)
            if position is not None:
                self.seated = True
                await self._call(services.seat_presence, delta=1)
        if not self.seated:
            await self._join(publish.public_group(self.table_id))

    async def _heartbeat(self) -> None:
        """At most every 15 s (clients ping): seated sockets say they are alive,
        and every socket renews its groups and catches up if it fell behind.
        Group memberships live in Redis: a restarted Redis forgets them, and
        this socket would hear nothing more without noticing."""
        now = time.monotonic()
        if now - getattr(self, "heard_at", 0.0) <= HEARTBEAT_S:
            return
        self.heard_at = now
        # (a copy: a delivery running beside this, a catch-up's, may join or
        # leave the public group meanwhile)
        for group in list(self.groups_joined):
            await self.channel_layer.group_add(group, self.channel_name)
        beating = getattr(self, "beating", None)
        if beating is None or beating.done():
            self.beating = asyncio.ensure_future(self._beat())

    async def _beat(self) -> None:
        """The seat seen and the version read with the process's other
        heartbeats (games.heartbeats), beside this socket's deliveries."""
        try:
            version = await heartbeats.beat(
                self.table_id, self.user if self.seated else None, _SOCKETS_HEARTBEAT
            )
        except (OperationalError, InterfaceError) as exc:
            logger.warning("heartbeat put off, the database is unreachable: %s", exc)
            return
        if self.closed:
            return
        waiting = self.catching_up is not None and not self.catching_up.done()
        if version is not None and version > self.last_version and not waiting:
            # Usually that version's publication is on its way: catch up only
            # if it has not arrived a moment later.
            self.catching_up = asyncio.ensure_future(self._catch_up(version))

    async def _catch_up(self, version: int) -> None:
        await asyncio.sleep(CATCH_UP_GRACE_S)
        if self.last_version < version and not self.closed:
            state = await self._state_or_later(self.last_version, "catch_up")
            if state is not None:
                await self._deliver(state, force=True)

    async def _state_or_later(self, since: int, reason: str) -> dict[str, Any] | None:
        """The state for a catch-up running on its own (not answering a
        message); None if the database cannot be reached just now: the next
        heartbeat tries again."""
        try:
            return await self._state(since, reason)
        except (OperationalError, InterfaceError) as exc:
            logger.warning("catch-up put off, the database is unreachable: %s", exc)
            return None

    async def disconnect(self, code: int) -> None:
        # (a heartbeat's seat seen again must not land after the seat is left;
        # first, as it may start a catch-up)
        await finished(getattr(self, "beating", None))
        for name in ("catching_up", "filling_gap"):
            task = getattr(self, name, None)
            if task is not None:
                task.cancel()
        if getattr(self, "seated", False):
            with contextlib.suppress(ServiceError):
                await self._call(services.seat_presence, delta=-1)
        for group in list(getattr(self, "groups_joined", ())):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def _join(self, group: str) -> None:
        if group not in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
            self.groups_joined.add(group)

    async def _leave(self, group: str) -> None:
        if group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
            self.groups_joined.discard(group)

    async def _state(self, since: int | None, reason: str) -> dict[str, Any]:
        """The table's state for this socket, read whole (``reason``: counted
        in ``vipgame_state_reads``)."""
        metrics.state_read(reason)
        user = self.user if self.user.is_authenticated else None
        result: dict[str, Any] = await db(selectors.table_state)(
            table_id=self.table_id, user=user, invite_code=self.invite, since=since
        )
        return result

    async def _call(self, service: Any, **kwargs: Any) -> Any:
        """A table service for this socket's user (the services refuse an
        inactive account's actions: ``AccountInactive``)."""
        return await db(service)(table_id=self.table_id, user=self.user, **kwargs)

    async def _deliver(
        self,
        payload: dict[str, Any],
        *,
        personal: bool = True,
        force: bool = False,
        text: str | None = None,
    ) -> None:
        """Send a state unless one as new was already sent (a version arrives
        twice when a heartbeat's catch-up overtakes the publication, and the
        player would act on it twice). Personal states (built for this user)
        say whether the user is seated, and win over a public one of the same
        version; public ones are only for sockets that are not seated."""
        if not personal and self.seated:
            return
        version = payload["v"]
        if not force and (
            version < self.last_version
            or (version == self.last_version and (self.last_personal or not personal))
        ):
            return
        self.last_version = max(self.last_version, version)
        self.last_personal = personal
        seated = payload["seat"] is not None
        if personal and seated != self.seated:
            self.seated = seated
            if seated:
                await self._leave(publish.public_group(self.table_id))
            else:
                await self._join(publish.public_group(self.table_id))
        if text is None:
            await self.send_json(payload)
        elif await self.send_text(text):
            fanned_out(payload)
        await self._send_ahead()

    async def handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        client_id = message.get("id")
        if kind == "ping":
            await self.pong(message)
            await self._renew()
            await self._heartbeat()
            return
        if kind == "sync":
            since = message.get("v")
            if not isinstance(since, int) or isinstance(since, bool) or since < 0:
                since = 0
            await self._sync_allowed()
            await self._deliver(await self._state(since, "sync"), force=True)
            return
        if kind == "auth":
            if await self.authenticate(message):
                await self._identify()
                await self._deliver(await self._state(None, "auth"), force=True)
            return
        handler = ACTIONS.get(kind)
        if handler is None:
            raise protocol_error("unknown_type", _("Unknown message type."))
        if not self.user.is_authenticated:
            await self.refuse(PermissionDenied(), client_id)
            return
        received = publish.action_received.set(
            publish.ActionTiming(self.received_at, kind, received_wall=self.received_wall)
        )
        try:
            result = await handler(self, message)
        except AccountInactive as err:
            await self.refuse(err, client_id)
            await self.close(code=ACCOUNT_BANNED)
            self.closed = True
            return
        except ServiceError as err:
            await self.refuse(err, client_id)
            if kind == "act":
                await self._deliver(await self._state(None, "refused"), force=True)
            return
        finally:
            publish.action_received.reset(received)
        await self.send_json({"type": "ack", "id": client_id, **(result or {})})

    async def _sync_allowed(self) -> None:
        """A ``sync`` reads the whole state from the database: at most
        ``WS_SYNC_RATE`` per socket (counted here: a socket lives in one
        process) and ``WS_SYNC_ADDRESS_RATE`` per client address over every
        socket and process (Redis). Refused: ``sync_rate_limited``, the
        socket stays open."""
        rate = limits.settings_rate("WS_SYNC_RATE")
        now = time.monotonic()
        if rate is not None:
            while self.synced_at and self.synced_at[0] <= now - rate.seconds:
                self.synced_at.popleft()
            if len(self.synced_at) >= rate.count:
                wait = self.synced_at[0] + rate.seconds - now
                raise SyncTooFast(wait=max(1, math.ceil(wait)))
        address_rate = limits.settings_rate("WS_SYNC_ADDRESS_RATE")
        if address_rate is not None:
            wait = await asyncio.to_thread(limits.take, "ws-sync", self.address, address_rate)
            if wait:
                raise SyncTooFast(wait=max(1, math.ceil(wait)))
        self.synced_at.append(now)

    async def do_sit(self, message: dict[str, Any]) -> Any:
        await self._call(
            services.table_sit,
            position=message.get("position"),
            buy_in=message.get("buy_in"),
            invite_code=self.invite or str(message.get("invite") or ""),
            auto_ready=message.get("auto_ready"),
            address=self.address,
            present=True,  # this socket counts at the seat: one change, one version
        )
        return None

    async def do_ready(self, message: dict[str, Any]) -> Any:
        seed, commitment = message.get("client_seed", ""), message.get("commitment")
        await self._call(
            services.table_ready,
            client_seed=seed if isinstance(seed, str) else None,
            commitment=commitment if commitment is None or isinstance(commitment, str) else "",
        )

    async def do_seed(self, message: dict[str, Any]) -> Any:
        return await self._call(
            services.table_seed,
            client_seed=message.get("client_seed"),
            commitment=message.get("commitment"),
        )

    async def do_leave(self, message: dict[str, Any]) -> Any:
        when = message.get("when", services.LEAVE_NOW)
        # (Leaving now, this socket no longer counts at the seat: in the same change.)
        await self._call(services.table_leave, when=when, socket_leaves=when == services.LEAVE_NOW)

    async def do_stay(self, message: dict[str, Any]) -> Any:
        await self._call(services.table_stay)

    async def do_auto_ready(self, message: dict[str, Any]) -> Any:
        await self._call(services.table_auto_ready, on=message.get("on"))

    async def do_leave_cost(self, message: dict[str, Any]) -> Any:
        """What leaving now would cost (nothing changes): the ``ack`` carries it."""
        cost = await db(selectors.leave_cost)(table_id=self.table_id, user=self.user)
        return {"leave_cost": cost}

    async def do_act(self, message: dict[str, Any]) -> Any:
        client_id, version = message.get("id"), message.get("v")
        if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
            raise protocol_error("bad_id", _("An action needs an id (1 to 64 characters)."))
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            version = -1
        return await self._call(
            services.table_act, action=message.get("action"), client_id=client_id, version=version
        )

    async def do_chat(self, message: dict[str, Any]) -> Any:
        """Chat lines are limited per user over all of their sockets (``WS_CHAT_RATE``)."""
        rate = limits.settings_rate("WS_CHAT_RATE")
        wait = await asyncio.to_thread(limits.take, "chat", str(self.user.pk), rate)
        if wait:
            raise ChatTooFast(wait=max(1, round(wait)))
        await self._call(services.chat_post, text=message.get("text"))

    async def do_report(self, message: dict[str, Any]) -> Any:
        """Report a chat line (``message_id``) to the moderators' queue."""
        await db(services.chat_report)(
            user=self.user,
            message_id=message.get("message_id"),
            category=message.get("category", "abuse"),
            note=message.get("note", ""),
            invite_code=self.invite,
        )
        return {"reported": message.get("message_id")}

    async def do_buy_in(self, message: dict[str, Any]) -> Any:
        await self._call(services.table_buy_in, amount=message.get("amount"))

    async def do_add_bot(self, message: dict[str, Any]) -> Any:
        await self._call(
            services.table_add_bot, position=message.get("position"), address=self.address
        )

    async def table_state(self, event: dict[str, Any]) -> None:
        """A published state or delta (``games.publish.encoded``: its JSON text
        and the fields read here), sent on as it is."""
        personal = bool(event.get("personal"))
        if event.get("kind") == "delta":
            await self._deliver_delta(event, personal=personal)
        else:
            await self._deliver(event, personal=personal, text=event["text"])

    async def _deliver_delta(self, event: dict[str, Any], *, personal: bool) -> None:
        """A move's delta (docs/protocol.md): sent as it is when this socket
        was sent the version it applies to; one it already has is dropped; after
        a gap (a message lost, or a catch-up that raced it) the full state."""
        if (not personal and self.seated) or event["v"] <= self.last_version:
            return
        if event["base"] != self.last_version:
            # Usually the delta before it is a moment behind (published by the
            # other Daphne process): wait for it a little, then read the state.
            self.ahead[event["base"]] = event
            if self.filling_gap is None or self.filling_gap.done():
                self.filling_gap = asyncio.ensure_future(self._fill_gap())
            return
        self.last_version = event["v"]
        if await self.send_text(event["text"]):
            fanned_out(event)
        await self._send_ahead()

    async def _send_ahead(self) -> None:
        """The deltas that waited for the version just sent, in order."""
        while self.ahead:
            event = self.ahead.pop(self.last_version, None)
            if event is None:
                # (Those now older than what was sent are dropped.)
                self.ahead = {b: e for b, e in self.ahead.items() if b > self.last_version}
                return
            self.last_version = event["v"]
            if await self.send_text(event["text"]):
                fanned_out(event)

    async def _fill_gap(self) -> None:
        """The full state when what a held-back delta waits for does not come
        (again, if another gap opened while the state was read)."""
        while not self.closed:
            await asyncio.sleep(REORDER_GRACE_S)
            if not self.ahead:
                return
            self.ahead.clear()
            state = await self._state_or_later(self.last_version, "gap")
            if state is not None:
                await self._deliver(state, force=True)

    async def table_chat(self, event: dict[str, Any]) -> None:
        await self.send_json(event["payload"])


def fanned_out(event: dict[str, Any]) -> None:
    """A move's state or delta (``publish.stamped``) was just written to this
    socket: from the move's arrival, in whichever process, to here."""
    moved_at = event.get("moved_at")
    if moved_at is not None:
        metrics.move_fanned_out(str(event.get("game")), time.time() - moved_at)


ACTIONS = {
    "sit": TableSocket.do_sit,
    "ready": TableSocket.do_ready,
    "seed": TableSocket.do_seed,
    "leave": TableSocket.do_leave,
    "stay": TableSocket.do_stay,
    "auto_ready": TableSocket.do_auto_ready,
    "leave_cost": TableSocket.do_leave_cost,
    "act": TableSocket.do_act,
    "chat": TableSocket.do_chat,
    "report": TableSocket.do_report,
    "buy_in": TableSocket.do_buy_in,
    "add_bot": TableSocket.do_add_bot,
}
