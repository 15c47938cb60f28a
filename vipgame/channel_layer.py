"""The channel layer: channels_redis's pub/sub layer, plus one call that
publishes a batch of group messages in one Redis round trip.

A table change tells up to five audiences (each seat's player and the
public): :meth:`PipelinedPubSubChannelLayer.group_send_many` sends them as
one pipeline per Redis shard, where ``group_send`` for each would wait for
its own reply in turn (the shard connection publishes under a lock). It
relies on channels_redis's shard internals (``_get_shard``, the shard's lock
and connection), pinned in requirements.txt; tests/consumers exercise it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer


class PipelinedPubSubChannelLayer(RedisPubSubChannelLayer):
    async def group_send_many(self, messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Each ``(group, message)`` to its group, in order within a group."""
        layer = self._get_layer()
        by_shard: dict[Any, list[tuple[str, bytes]]] = {}
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            by_shard.setdefault(layer._get_shard(channel), []).append(
                (channel, self.serialize(message))
            )
        await asyncio.gather(*(_publish(shard, items) for shard, items in by_shard.items()))


async def _publish(shard: Any, items: list[tuple[str, bytes]]) -> None:
    async with shard._lock:
        shard._ensure_redis()
        async with shard._redis.pipeline(transaction=False) as pipe:
            for channel, data in items:
                pipe.publish(channel, data)
            await pipe.execute()
