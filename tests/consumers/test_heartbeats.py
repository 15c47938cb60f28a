"""games.heartbeats: a process's socket heartbeats in one database call."""

import asyncio

import pytest

from games import heartbeats


def _loop(coroutine):
    return asyncio.run(coroutine)


def test_the_heartbeats_asked_together_are_one_call_answered_each(monkeypatch):
    monkeypatch.setattr(heartbeats, "BATCH_S", 0.05)
    calls: list[list[tuple[int, object]]] = []

    async def run(asked):
        calls.append(list(asked))
        return [table_id * 10 if table_id < 9 else None for table_id, _user in asked]

    async def scenario():
        first = await asyncio.gather(*(heartbeats.beat(t, f"u{t}", run) for t in (1, 2, 9)))
        second = await heartbeats.beat(3, None, run)  # after the batch: the next one
        return first, second

    first, second = _loop(scenario())
    assert first == [10, 20, None]
    assert second == 30
    assert calls == [[(1, "u1"), (2, "u2"), (9, "u9")], [(3, None)]]


def test_a_failed_call_reaches_every_heartbeat_of_its_batch_and_the_next_batch_is_asked(
    monkeypatch,
):
    monkeypatch.setattr(heartbeats, "BATCH_S", 0.05)
    failing = [True]

    async def run(asked):
        if failing.pop(0) if failing else False:
            raise ConnectionError("the database went")
        return [1 for _ in asked]

    async def scenario():
        failed = await asyncio.gather(
            heartbeats.beat(1, None, run), heartbeats.beat(2, None, run), return_exceptions=True
        )
        return failed, await heartbeats.beat(1, None, run)

    failed, later = _loop(scenario())
    assert [type(e) for e in failed] == [ConnectionError, ConnectionError]
    assert later == 1


def test_a_heartbeat_given_up_leaves_the_rest_of_its_batch(monkeypatch):
    monkeypatch.setattr(heartbeats, "BATCH_S", 0.05)
    calls: list[list[tuple[int, object]]] = []

    async def run(asked):
        calls.append(list(asked))
        return [7 for _ in asked]

    async def scenario():
        gone = asyncio.ensure_future(heartbeats.beat(1, None, run))
        kept = asyncio.ensure_future(heartbeats.beat(2, None, run))
        await asyncio.sleep(0)
        gone.cancel()  # (its socket closed)
        with pytest.raises(asyncio.CancelledError):
            await gone
        return await kept

    assert _loop(scenario()) == 7
    assert calls == [[(2, None)]]
