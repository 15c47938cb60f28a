"""The opening gate: a herd of handshakes is shed cheaply instead of being
left to time out."""

import asyncio

from asgiref.sync import async_to_sync
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.testing import WebsocketCommunicator

from games.ws_auth import OpeningGate


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


async def until_entered(count: int) -> None:
    for _ in range(100):
        if Slow.entered >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{Slow.entered} sockets reached the application, not {count}")


def test_one_socket_over_the_cap_is_closed_with_1013_before_the_application_sees_it(settings):
    settings.WS_MAX_OPENING = 2
    gate = OpeningGate(Slow.as_asgi())

    async def scenario():
        Slow.release, Slow.entered, Slow.refuse = asyncio.Event(), 0, False
        first, second = (WebsocketCommunicator(gate, "/ws/x/") for _ in range(2))
        waiting = [asyncio.create_task(c.connect(timeout=5)) for c in (first, second)]
        await until_entered(2)
        assert gate.opening == 2
        shed = WebsocketCommunicator(gate, "/ws/x/")
        assert (await shed.connect(timeout=5))[0] is True
        closed = await shed.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 1013}
        assert Slow.entered == 2  # the application never saw it
        Slow.release.set()
        assert [connected for connected, _ in await asyncio.gather(*waiting)] == [True, True]
        assert gate.opening == 0  # accepted: no longer opening
        again = WebsocketCommunicator(gate, "/ws/x/")
        assert (await again.connect(timeout=5))[0] is True
        for c in (first, second, again):
            await c.disconnect()

    run(scenario)


def test_a_refused_socket_stops_counting_too(settings):
    settings.WS_MAX_OPENING = 1
    gate = OpeningGate(Slow.as_asgi())

    async def scenario():
        Slow.release, Slow.entered, Slow.refuse = asyncio.Event(), 0, True
        Slow.release.set()
        refused = WebsocketCommunicator(gate, "/ws/x/")
        connected, code = await refused.connect(timeout=5)
        assert (connected, code) == (False, 4404)
        assert gate.opening == 0
        Slow.refuse = False
        fine = WebsocketCommunicator(gate, "/ws/x/")
        assert (await fine.connect(timeout=5))[0] is True
        await fine.disconnect()

    run(scenario)


def test_no_cap_when_it_is_zero(settings):
    settings.WS_MAX_OPENING = 0
    gate = OpeningGate(Slow.as_asgi())

    async def scenario():
        Slow.release, Slow.entered, Slow.refuse = asyncio.Event(), 0, False
        sockets = [WebsocketCommunicator(gate, "/ws/x/") for _ in range(5)]
        waiting = [asyncio.create_task(c.connect(timeout=5)) for c in sockets]
        await until_entered(5)
        assert gate.opening == 5
        Slow.release.set()
        assert all(connected for connected, _ in await asyncio.gather(*waiting))
        for c in sockets:
            await c.disconnect()

    run(scenario)
