"""Work a serving process repeats while it runs: one task per process (and
event loop), started by the first call, so a Daphne process does it once
however many sockets it holds. Used to spread sockets across the processes
(kernel.ops.spread) and to note that the room serves (games.services.outages)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

logger = logging.getLogger(__name__)

_tasks: dict[str, asyncio.Task[None]] = {}


def every(
    name: str, seconds: float, work: Callable[[], Awaitable[object]], *, jitter: float = 0.0
) -> None:
    """Run ``work`` every ``seconds`` (± ``jitter`` of it) in the running event
    loop from now on; later calls for ``name`` do nothing while it runs.
    ``seconds`` ≤ 0: never. A round that fails is logged; the next one runs."""
    if seconds <= 0:
        return
    loop = asyncio.get_running_loop()
    task = _tasks.get(name)
    if task is None or task.done() or task.get_loop() is not loop:
        _tasks[name] = loop.create_task(_repeat(name, seconds, work, jitter))


async def _repeat(
    name: str, seconds: float, work: Callable[[], Awaitable[object]], jitter: float
) -> None:
    while True:
        await asyncio.sleep(seconds * random.uniform(1 - jitter, 1 + jitter))
        try:
            await work()
        except Exception as exc:  # (PostgreSQL or Redis away: the next round tries again)
            logger.warning("%s: %s", name, exc)
