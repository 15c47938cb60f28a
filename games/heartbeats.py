"""A process's socket heartbeats, to the database together.

At most every ``HEARTBEAT_S`` (games.consumers) a table socket's heartbeat says
its seated player is still there and reads its table's version (has the socket
fallen behind?). One trip to the database threads and one statement per socket
was what grew with the idle sockets: at 1,000 tables (4,000 sockets) about 270
trips a second, more than three per move. Gathered here for ``BATCH_S``, a
process's heartbeats are one trip and two statements whatever their number
(``services.sockets_heartbeat``; bench/RESULTS.md "The heartbeats together").

A heartbeat runs beside its socket, never in its way: the socket goes on
receiving and delivering while its heartbeat waits for the batch.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

BATCH_S = 0.25

Run = Callable[[list[Any]], Awaitable[list[Any]]]


class Batch:
    """What one event loop's sockets asked of one ``run``, flushed ``BATCH_S``
    after the first ask: one call of ``run`` with every item, one answer each."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.asked: list[tuple[Any, asyncio.Future[Any]]] = []
        self.flushing: asyncio.Task[None] | None = None

    def ask(self, item: Any) -> asyncio.Future[Any]:
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.asked.append((item, answer))
        if self.flushing is None:
            self.flushing = asyncio.ensure_future(self._flush())
        return answer

    async def _flush(self) -> None:
        try:
            await asyncio.sleep(BATCH_S)
        finally:
            # Whatever is asked from now on goes in the next batch.
            batch, self.asked, self.flushing = self.asked, [], None
        waiting = [(item, answer) for item, answer in batch if not answer.done()]
        if not waiting:
            return
        try:
            answers = await self.run([item for item, _ in waiting])
        except Exception as exc:  # (each socket's heartbeat decides; none is lost)
            for _, answer in waiting:
                if not answer.done():
                    answer.set_exception(exc)
            return
        for (_, answer), result in zip(waiting, answers, strict=True):
            if not answer.done():
                answer.set_result(result)


_BATCHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Run, Batch]] = (
    weakref.WeakKeyDictionary()
)


async def together(item: Any, run: Run) -> Any:
    """``item`` in this loop's next batch for ``run``: its answer. Raises what
    the batch's call raised."""
    batches = _BATCHES.setdefault(asyncio.get_running_loop(), {})
    batch = batches.get(run)
    if batch is None:
        batch = batches[run] = Batch(run)
    return await batch.ask(item)


async def beat(table_id: int, user: Any, run: Run) -> int | None:
    """This socket's heartbeat, in its loop's next batch: the table's version
    (None: no such table)."""
    version: int | None = await together((table_id, user), run)
    return version
