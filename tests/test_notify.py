"""``kernel.notify.send`` from a server's database thread while the server
stops: its event loop has ended but is not closed (Daphne after SIGTERM, while
a socket's last service commits); and from a process with a loop of its own
(Celery's pool processes)."""

import asyncio
import os
import threading
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer
from redis.asyncio.connection import AbstractConnection

from kernel import notify


def _send_from_a_server_thread(loop: asyncio.AbstractEventLoop) -> list[bool]:
    """Send as a service in a thread that ``sync_to_async`` called from ``loop``
    does; what ``send`` returned, or nothing if it has not returned in 5 s."""
    returned: list[bool] = []

    def service() -> None:
        SyncToAsync.threadlocal.main_event_loop = loop
        SyncToAsync.threadlocal.main_event_loop_pid = os.getpid()
        returned.append(notify.send([("user.1", {"type": "wallet.balance", "balance": 1})]))

    thread = threading.Thread(target=service, daemon=True)
    thread.start()
    thread.join(timeout=5)
    return returned


def test_a_send_while_the_server_stops_returns_at_once():
    """Handed to the stopped loop, the send waited for ever, and so did the
    process's exit (it joins its database threads) until it was killed."""
    stopped = asyncio.new_event_loop()  # not running, not closed
    try:
        assert _send_from_a_server_thread(stopped) == [False]
    finally:
        stopped.close()


def test_a_send_from_a_thread_of_a_loop_long_closed_still_goes_out():
    """A closed loop is not a stopping server (e.g. an ``asyncio.run`` that has
    ended): the send goes out on a loop of its own, as before."""
    closed = asyncio.new_event_loop()
    closed.close()
    assert _send_from_a_server_thread(closed) == [True]


@pytest.fixture
def own_loop():
    """This process sending on a loop of its own, as a Celery pool process
    does (``notify.keep_a_loop``); stopped and forgotten afterwards."""
    notify.keep_a_loop()
    loop = notify._own_loop()
    assert loop is not None
    yield loop
    notify._own = None
    loop.call_soon_threadsafe(loop.stop)


@pytest.fixture
def connections_made(monkeypatch) -> list[int]:
    """How many Redis connections this process makes (asyncio ones: the
    channel layer's), counted as they are made."""
    made = [0]
    make = AbstractConnection.__init__

    def counted(self, *args: Any, **kwargs: Any) -> None:
        made[0] += 1
        make(self, *args, **kwargs)

    monkeypatch.setattr(AbstractConnection, "__init__", counted)
    return made


def _received_while(send: Callable[[], object], group: str, count: int) -> list[dict[str, Any]]:
    """What a socket in ``group`` receives while ``send`` runs in a thread."""
    layer = get_channel_layer()

    async def listen() -> list[dict[str, Any]]:
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        sender = threading.Thread(target=send)
        sender.start()
        got = [await asyncio.wait_for(layer.receive(channel), 5) for _ in range(count)]
        sender.join()
        await layer.group_discard(group, channel)
        return got

    return asyncio.run(listen())


def test_a_celery_process_sends_on_one_loop_and_one_redis_connection(own_loop, connections_made):
    """Five publications: five new Redis connections on a loop made for each
    (``async_to_sync``), none after the first on the process's own loop; and
    each is delivered, in order."""
    group = f"user.{os.getpid()}"

    def five() -> None:
        for n in range(5):
            assert notify.send([(group, {"type": "wallet.balance", "balance": n})])

    got = _received_while(five, group, 5)
    assert [m["balance"] for m in got] == [0, 1, 2, 3, 4]
    connections_made[0] = 0
    five()
    assert connections_made == [0]

    notify._own = None
    five()
    assert connections_made[0] >= 5


def test_a_forked_child_does_not_send_on_its_parents_loop(own_loop: asyncio.AbstractEventLoop):
    """The loop's thread is not copied into a child by ``fork``: a child that
    has not made its own sends on a new loop each time, as before."""
    assert notify._own_loop() is own_loop
    notify._own = (os.getpid() + 1, own_loop)
    assert notify._own_loop() is None
    assert notify.send([("user.1", {"type": "wallet.balance", "balance": 1})])


def test_a_send_that_cannot_finish_is_given_up(own_loop, monkeypatch, caplog):
    """A loop that stopped answering (blocked) cannot hold a task for ever."""
    monkeypatch.setattr(notify, "OWN_LOOP_TIMEOUT_S", 0.2)
    blocked = threading.Event()
    own_loop.call_soon_threadsafe(blocked.wait, 2)

    assert notify.send([("user.1", {"type": "wallet.balance", "balance": 1})]) is False
    blocked.set()
    assert "wallet.balance not sent in 0.2 s" in caplog.text
