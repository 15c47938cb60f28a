"""Sockets spread again across the Daphne processes (issue 33 item 5).

A restarted Daphne comes back empty: its sockets reconnected to the others,
and nginx spreads only new connections, so the room stays lopsided until
players leave. Each Daphne process counts its open sockets and, every
``WS_SPREAD_INTERVAL_S``, writes the count to Redis beside its peers' (a hash
of process → count and time; a process silent for three intervals is gone)
and reads theirs. A process holding more than its share (the mean, plus
``WS_SPREAD_SLACK`` of it and at least ``WS_SPREAD_MIN`` sockets) closes some
of its sockets with 1012 ("service restart": the page reconnects at once,
through nginx, most likely to an emptier process, and catches up with one
state): a tenth of its sockets at most per round, spread over the round, the
lobby's and watchers' first and seated players' last. A few rounds even the
room out without a reconnect storm.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import random
import secrets
import socket as socketlib
import time
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from django.conf import settings

from kernel.ops import metrics, rounds
from kernel.ops.heartbeat import redis_client

logger = logging.getLogger(__name__)

SERVICE_RESTART = 1012
#: This process, as its peers see it.
PROCESS = f"{socketlib.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Spreadable(Protocol):
    """A socket as the spreading sees it (games.consumers.RoomSocket)."""

    def spread_rank(self) -> int:
        """0 to close first (the lobby's), 1 (a watcher), 2 (a seated player)."""
        ...

    async def close_to_spread(self) -> None: ...


_open: weakref.WeakSet[Any] = weakref.WeakSet()


def key() -> str:
    return f"{settings.CACHES['default'].get('KEY_PREFIX', 'vipgame')}:ops:sockets_by_process"


def track(sock: Spreadable) -> None:
    """An accepted socket of this process (forgotten when it goes); the first
    starts the process's spreading rounds."""
    _open.add(sock)
    interval = settings.WS_SPREAD_INTERVAL_S
    rounds.every("spreading sockets", interval, lambda: spread_once(interval), jitter=0.2)


def forget(sock: Spreadable) -> None:
    _open.discard(sock)


def excess(own: int, counts: Sequence[int], *, slack: float, least: int) -> int:
    """How many of its ``own`` sockets a process closes this round, the room's
    processes holding ``counts`` (its own among them): what it holds over the
    mean, once that is more than ``slack`` of the mean and at least ``least``;
    a tenth of its sockets at most."""
    if len(counts) < 2 or own == 0:
        return 0
    mean = sum(counts) / len(counts)
    over = own - math.ceil(mean)
    if over < max(least, slack * mean):
        return 0
    return min(over, max(1, own // 10))


def chosen(sockets: Iterable[Spreadable], n: int) -> list[Spreadable]:
    """The ``n`` sockets to close: the lowest ranks first, at random within one."""
    pool = list(sockets)
    random.shuffle(pool)
    return sorted(pool, key=lambda s: s.spread_rank())[:n]


def peers(now: float, interval: float) -> dict[str, int]:
    """Write this process's count; read every live process's (Redis)."""
    client = redis_client()
    client.hset(key(), PROCESS, json.dumps({"n": len(_open), "at": now}))
    found: dict[str, int] = {}
    stale = []
    for name, raw in client.hgetall(key()).items():
        entry = json.loads(raw)
        if now - float(entry["at"]) > 3 * interval:
            stale.append(name)
        else:
            found[name.decode() if isinstance(name, bytes) else name] = int(entry["n"])
    if stale:
        client.hdel(key(), *stale)
    return found


async def spread_once(interval: float) -> int:
    """One round: how many sockets this process closed."""
    counts = await asyncio.to_thread(peers, time.time(), interval)
    own = len(_open)
    n = excess(
        own, list(counts.values()), slack=settings.WS_SPREAD_SLACK, least=settings.WS_SPREAD_MIN
    )
    if not n:
        return 0
    logger.info("spreading sockets: closing %d of %d (processes: %s)", n, own, counts)
    for sock in chosen(list(_open), n):
        await asyncio.sleep(random.uniform(0, interval / max(n, 1)) / 2)
        await sock.close_to_spread()
        metrics.socket_spread()
    return n
