"""The one way the server tells open sockets something: tables, wallets,
moderation and accounts all send through here, after their transaction commits.

Best effort: a socket that misses a message resyncs by version (tables) or
reads the value again on its next page load (balances). A message is a pair
``(group, event)``; each group's messages arrive in order.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

Message = tuple[str, dict[str, Any]]


def user_group(user_id: int) -> str:
    """Every lobby and table socket of one user (balance, bans, log-out)."""
    return f"user.{user_id}"


async def send_all(layer: Any, messages: Sequence[Message]) -> None:
    """Send now, from async code (bench/transport_app.py uses the same path)."""
    # Each group is one audience: the order between groups does not matter, so
    # the sends go out together, in one Redis round trip where the layer can
    # (kernel.channel_layer). Each message still reaches its group in order.
    send_many = getattr(layer, "group_send_many", None)
    if send_many is not None:
        await send_many(messages)
        return
    await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))


async def _send_logged(
    layer: Any, messages: Sequence[Message], sent: Callable[[], None] | None
) -> bool:
    try:
        await send_all(layer, messages)
    except (OSError, RedisError) as exc:
        kinds = sorted({str(m.get("type")) for _, m in messages})
        logger.warning("%s not sent: %s", ", ".join(kinds), exc)
        return False
    if sent is not None:
        sent()
    return True


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the server that called into this thread through
    ``sync_to_async`` (Daphne's, for a WebSocket message), if any."""
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop


# A process's own event loop, in a thread of its own (Celery's pool processes:
# ``keep_a_loop``): (pid, loop). None, or another pid's (a forked child's
# inheritance): none.
_own: tuple[int, asyncio.AbstractEventLoop] | None = None
# How long a send on that loop may take before it is given up (logged).
OWN_LOOP_TIMEOUT_S = 10.0


def keep_a_loop() -> None:
    """Send on one event loop of this process from now on, run by a thread of
    its own (a Celery pool process calls it when it starts). ``async_to_sync``
    would make a new loop for every send, and the channel layer a new Redis
    connection for each loop: a connection made and closed for every
    publication of a timer, a settlement or a bot's move."""
    global _own
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="notify-loop", daemon=True).start()
    _own = (os.getpid(), loop)


def _own_loop() -> asyncio.AbstractEventLoop | None:
    if _own is None or _own[0] != os.getpid():
        return None
    return _own[1]


def _send_on_own_loop(
    loop: asyncio.AbstractEventLoop,
    layer: Any,
    messages: Sequence[Message],
    sent: Callable[[], None] | None,
) -> bool:
    future = asyncio.run_coroutine_threadsafe(_send_logged(layer, list(messages), sent), loop)
    try:
        return bool(future.result(timeout=OWN_LOOP_TIMEOUT_S))
    except TimeoutError:
        future.cancel()
        kinds = sorted({str(m.get("type")) for _, m in messages})
        logger.warning("%s not sent in %s s", ", ".join(kinds), OWN_LOOP_TIMEOUT_S)
        return False


def send(messages: Sequence[Message], *, sent: Callable[[], None] | None = None) -> bool:
    """Send now (call it after commit). Inside the server the sends are handed
    to its event loop and this returns at once (the mover's ``ack`` need not
    wait for everyone's ``state``); elsewhere they are sent before this
    returns: on the process's own loop where it keeps one (Celery's pool
    processes, ``keep_a_loop``), else on a new loop (management commands).
    ``sent`` runs once they are out. Returns False when the channel layer
    cannot be reached (a warning is logged)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return False
    loop = _server_loop()
    if loop is not None and loop.is_running():
        work: Coroutine[Any, Any, bool] = _send_logged(layer, list(messages), sent)
        asyncio.run_coroutine_threadsafe(work, loop)
        return True
    if loop is not None and not loop.is_closed():
        # The server is stopping (its loop has ended; a socket's last service,
        # such as its seat's presence, committed meanwhile). ``async_to_sync``
        # would hand the send to that loop and wait for ever, and the process
        # would hang at exit until killed. Its sockets are closing: they resync
        # by version wherever they reconnect.
        kinds = sorted({str(m.get("type")) for _, m in messages})
        logger.info("%s not sent: the server is stopping", ", ".join(kinds))
        return False
    own = _own_loop()
    if own is not None:
        return _send_on_own_loop(own, layer, messages, sent)
    return bool(async_to_sync(_send_logged)(layer, messages, sent))


def send_on_commit(messages: Sequence[Message]) -> None:
    """Send once the current transaction commits (nothing if it rolls back)."""
    batch = list(messages)
    transaction.on_commit(lambda: send(batch), robust=True)


def tell_user_on_commit(user_id: int, message: dict[str, Any]) -> None:
    """To every socket of the user, once the current transaction commits."""
    send_on_commit([(user_group(user_id), message)])
