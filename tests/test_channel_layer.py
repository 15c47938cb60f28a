"""kernel/channel_layer.py: a process's publications, one pipeline at a time
and in order, without the shard lock that sockets opening and closing take."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import ConnectionError as RedisConnectionError

from kernel import channel_layer
from kernel.channel_layer import PipelinedPubSubChannelLayer, publisher


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


class Listener:
    """A channel in ``group`` and what it receives (channels_redis forgets a
    channel whose ``receive`` is cancelled, so one task keeps receiving)."""

    def __init__(self, layer, group: str) -> None:
        self.layer, self.group = layer, group
        self.received: asyncio.Queue = asyncio.Queue()

    async def __aenter__(self) -> Listener:
        self.channel = await self.layer.new_channel()
        await self.layer.group_add(self.group, self.channel)
        self.task = asyncio.ensure_future(self._receive())
        await asyncio.sleep(0.2)  # (subscribed)
        return self

    async def _receive(self) -> None:
        while True:
            self.received.put_nowait(await self.layer.receive(self.channel))

    async def next(self) -> dict:
        return await asyncio.wait_for(self.received.get(), timeout=5)

    async def __aexit__(self, *exc) -> None:
        self.task.cancel()


def shard_of(layer, group: str):
    loop_layer = layer._get_layer()
    return loop_layer._get_shard(loop_layer._get_group_channel_name(group))


def test_the_layer_is_the_pipelined_one():
    assert isinstance(get_channel_layer(), PipelinedPubSubChannelLayer)


def test_sends_made_together_arrive_in_order_in_fewer_pipelines():
    async def scenario():
        layer = get_channel_layer()
        async with Listener(layer, "test.order") as listener:
            await asyncio.gather(
                *(layer.group_send_many([("test.order", {"type": "x", "n": n})]) for n in range(30))
            )
            received = [(await listener.next())["n"] for _ in range(30)]
        sender = publisher(shard_of(layer, "test.order"))
        return received, sender.pipelines, sender.batches

    received, pipelines, batches = run(scenario)

    assert received == list(range(30))
    assert batches == 30
    assert pipelines < 30  # (the first alone, the rest together)


def test_a_send_does_not_wait_for_the_shards_lock():
    """channels_redis takes the shard's lock to subscribe and unsubscribe; a
    publication used to hold it for its round trip, and sockets opening under
    load waited behind publications past the handshake's time-out."""

    async def scenario():
        layer = get_channel_layer()
        async with Listener(layer, "test.lock") as listener:
            shard = shard_of(layer, "test.lock")
            async with shard._lock:  # (as a subscription in progress holds it)
                await asyncio.wait_for(
                    layer.group_send_many([("test.lock", {"type": "x", "n": 1})]), timeout=2
                )
            return await listener.next()

    assert run(scenario)["n"] == 1


def test_a_failed_pipeline_fails_each_send_it_carried_and_the_next_goes_out(monkeypatch):
    sent = channel_layer._Publisher._send
    failing = {"on": True}

    async def send(self, batch):
        if failing["on"]:
            await asyncio.sleep(0)
            raise RedisConnectionError("Connection closed by server.")
        await sent(self, batch)

    monkeypatch.setattr(channel_layer._Publisher, "_send", send)

    async def scenario():
        layer = get_channel_layer()
        async with Listener(layer, "test.fail") as listener:
            results = await asyncio.gather(
                *(layer.group_send_many([("test.fail", {"type": "x", "n": n})]) for n in range(3)),
                return_exceptions=True,
            )
            failing["on"] = False
            await layer.group_send_many([("test.fail", {"type": "x", "n": 3})])
            return results, await listener.next()

    results, received = run(scenario)

    assert all(isinstance(r, RedisConnectionError) for r in results)
    assert received["n"] == 3


@pytest.fixture(autouse=True)
def _flush():
    yield
    run(get_channel_layer().flush)


def test_a_publisher_cancelled_with_its_loop_cancels_every_send_it_held(monkeypatch):
    async def stuck(self, batch):
        await asyncio.sleep(3600)  # (Redis does not answer)

    monkeypatch.setattr(channel_layer._Publisher, "_send", stuck)

    async def scenario():
        layer = get_channel_layer()
        sends = [
            asyncio.ensure_future(layer.group_send_many([("test.cancel", {"type": "x", "n": n})]))
            for n in range(2)
        ]
        await asyncio.sleep(0.1)  # the first in flight, the second waiting
        sender = publisher(shard_of(layer, "test.cancel"))
        assert sender.task is not None
        sender.task.cancel()
        results = await asyncio.gather(*sends, return_exceptions=True)
        return results, sender.waiting

    results, waiting = run(scenario)

    assert all(isinstance(r, asyncio.CancelledError) for r in results)
    assert waiting == []
