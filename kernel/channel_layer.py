"""The channel layer: channels_redis's pub/sub layer, plus one call that
publishes a batch of group messages in one Redis round trip.

A table change tells up to five audiences (each seat's player and the
public): :meth:`PipelinedPubSubChannelLayer.group_send_many` sends them as
one pipeline per Redis shard, where ``group_send`` for each would wait for
its own reply in turn.

Each shard has one publisher (:class:`_Publisher`): one pipeline in flight at
a time, so a process's publications reach Redis in the order they were made;
what is sent while one is in flight goes out together in the next. It does
not take the shard's lock, which channels_redis also takes to subscribe and
unsubscribe: a socket that opens or closes (its channel and groups) does not
wait behind publications' round trips. Under load those waits grew longer
than Daphne's handshake time-out, and sockets failed to open (issue 15,
1,000 tables).

It relies on channels_redis's shard internals (``_get_shard``, the shard's
``_ensure_redis`` and connection pool), pinned in requirements.txt;
tests/test_channel_layer.py exercises it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer

Published = list[tuple[str, bytes]]


class PipelinedPubSubChannelLayer(RedisPubSubChannelLayer):
    async def group_send_many(self, messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Each ``(group, message)`` to its group, in order within a group."""
        layer = self._get_layer()
        by_shard: dict[Any, Published] = {}
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            by_shard.setdefault(layer._get_shard(channel), []).append(
                (channel, self.serialize(message))
            )
        await asyncio.gather(
            *(publisher(shard).publish(items) for shard, items in by_shard.items())
        )


def publisher(shard: Any) -> _Publisher:
    """The shard's one publisher (a shard belongs to one event loop's layer)."""
    found: _Publisher | None = getattr(shard, "_vipgame_publisher", None)
    if found is None:
        found = shard._vipgame_publisher = _Publisher(shard)
    return found


class _Publisher:
    """Publishes a shard's batches in order, one pipeline at a time; the
    batches sent while one is in flight share the next pipeline."""

    def __init__(self, shard: Any) -> None:
        self.shard = shard
        self.waiting: list[tuple[Published, asyncio.Future[None]]] = []
        self.task: asyncio.Future[None] | None = None
        # (for tests: pipelines sent, and the batches they carried)
        self.pipelines = 0
        self.batches = 0

    async def publish(self, items: Published) -> None:
        """Returns once ``items`` are published (raises what the pipeline raised)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append((items, done))
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._run())
        await done

    async def _run(self) -> None:
        while self.waiting:
            batch, self.waiting = self.waiting, []
            try:
                await self._send(batch)
            except Exception as exc:
                for _, done in batch:
                    if not done.done():
                        done.set_exception(exc)
            except BaseException:  # cancelled: the loop is closing
                for _, done in [*batch, *self.waiting]:
                    done.cancel()
                self.waiting = []  # (nothing of theirs goes out later)
                raise
            else:
                for _, done in batch:
                    if not done.done():
                        done.set_result(None)

    async def _send(self, batch: list[tuple[Published, asyncio.Future[None]]]) -> None:
        self.shard._ensure_redis()  # (no await: no other task runs meanwhile)
        async with self.shard._redis.pipeline(transaction=False) as pipe:
            for items, _ in batch:
                for channel, data in items:
                    pipe.publish(channel, data)
            await pipe.execute()
        self.pipelines += 1
        self.batches += len(batch)
