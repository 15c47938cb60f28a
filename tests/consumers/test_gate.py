"""The opening gate: a herd of handshakes is shed cheaply instead of being
left to time out."""

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.testing import WebsocketCommunicator

from games.ws_auth import OpeningGate

# (A Channels consumer closes stale database connections at each message it
# dispatches: that touches the connection a test before left in this worker;
# see ``gate``.)
pytestmark = pytest.mark.django_db


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


class Slow(AsyncWebsocketConsumer):
    """Opens when the test says so (as a socket waiting for the database)."""

    release: asyncio.Event
    refuse = False
    entered = 0

    async def connect(self):
        Slow.entered += 1
        await Slow.release.wait()
        if Slow.refuse:
            await self.close(code=4404)
        else:
            await self.accept()


@pytest.fixture
def gate(settings, monkeypatch):
    """A gate of ``cap`` in front of a ``Slow`` application that refuses its
    sockets or accepts them (once released). ``Slow`` reads no database: the
    stale-connection sweep Channels runs at each message it dispatches is
    turned off here, so that it cannot close the connection this worker's
    test transaction holds (seen once: the money check after the test then
    failed with "Cannot open a new connection in an atomic block")."""
    monkeypatch.setattr("channels.db.close_old_connections", lambda: None)

    def make(cap: int, *, refuse: bool = False) -> OpeningGate:
        settings.WS_MAX_OPENING = cap
        Slow.release, Slow.entered, Slow.refuse = asyncio.Event(), 0, refuse
        return OpeningGate(Slow.as_asgi())

    return make


async def opening(
    gate: OpeningGate, count: int
) -> list[tuple[WebsocketCommunicator, asyncio.Task]]:
    """``count`` sockets that have reached the application and wait there."""
    sockets = [WebsocketCommunicator(gate, "/ws/x/") for _ in range(count)]
    waiting = [(c, asyncio.create_task(c.connect(timeout=5))) for c in sockets]
    await until_entered(count)
    assert gate.opening == count
    return waiting


async def accepted(waiting: list[tuple[WebsocketCommunicator, asyncio.Task]]) -> list[bool]:
    """Let them open; whether each was accepted (then closed again)."""
    Slow.release.set()
    connected = [ok for ok, _ in await asyncio.gather(*(task for _, task in waiting))]
    for socket, _ in waiting:
        await socket.disconnect()
    return connected


async def until_entered(count: int) -> None:
    for _ in range(100):
        if Slow.entered >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{Slow.entered} sockets reached the application, not {count}")


def test_one_socket_over_the_cap_is_closed_with_1013_before_the_application_sees_it(gate):
    gate = gate(2)

    async def scenario():
        waiting = await opening(gate, 2)
        shed = WebsocketCommunicator(gate, "/ws/x/")
        assert (await shed.connect(timeout=5))[0] is True
        closed = await shed.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 1013}
        assert Slow.entered == 2  # the application never saw it
        assert await accepted(waiting) == [True, True]
        assert gate.opening == 0  # accepted: no longer opening
        again = WebsocketCommunicator(gate, "/ws/x/")
        assert (await again.connect(timeout=5))[0] is True
        await again.disconnect()

    run(scenario)


def test_a_refused_socket_stops_counting_too(gate):
    gate = gate(1, refuse=True)

    async def scenario():
        Slow.release.set()
        refused = WebsocketCommunicator(gate, "/ws/x/")
        assert await refused.connect(timeout=5) == (False, 4404)
        assert gate.opening == 0
        Slow.refuse = False
        fine = WebsocketCommunicator(gate, "/ws/x/")
        assert (await fine.connect(timeout=5))[0] is True
        await fine.disconnect()

    run(scenario)


def test_no_cap_when_it_is_zero(gate):
    gate = gate(0)

    async def scenario():
        waiting = await opening(gate, 5)  # (all five reach the application)
        assert all(await accepted(waiting))

    run(scenario)
