"""bench.connects without the stack: its sockets against a small local
server, its seats, its report."""

import asyncio
import json
import time

import pytest

from bench.connects import Phase, close_all, connect_phase, hold, report, seats_of
from bench.players import TableSpec


def test_the_sockets_are_spread_over_the_seconds_timed_to_their_first_state_and_failures_counted():
    from websockets.asyncio.server import serve

    async def handler(ws):
        if ws.request.path == "/refuse/":
            await ws.close(code=4404)
            return
        await ws.send(json.dumps({"type": "event"}))  # not a state: not the end
        await asyncio.sleep(0.02)
        await ws.send(json.dumps({"type": "state", "v": 1}))
        await ws.wait_closed()

    async def scenario():
        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            url = f"ws://127.0.0.1:{port}"
            seats = [(f"{url}/ws/tables/{n}/", "t") for n in range(8)]
            seats += [(f"{url}/refuse/", "t"), ("ws://127.0.0.1:1/nobody/", "t")]
            phase = Phase()
            started = time.perf_counter()
            took = await connect_phase(seats, 0.5, phase)
            assert time.perf_counter() - started >= 0.45  # spread, not at once
            assert took >= 0.45
            assert len(phase.times) == 8
            assert all(t >= 20 for t in phase.times)  # to the state, not the event
            assert sum(phase.failures.values()) == 2
            assert phase.failures["handshake:ConnectionRefusedError"] == 1
            assert phase.failures["first state:ConnectionClosedError:4404"] == 1  # its code
            assert len(phase.sockets) == 9  # the refused one opened, then closed
            await close_all(phase)

    asyncio.run(scenario())


def test_sockets_ping_from_their_first_state_and_held_ones_count_the_minutes_they_were_open():
    """Each socket pings from its first state on (not only in the hold: a
    socket silent for 45 s is closed, 4410); a socket the server closes while
    held counts only until it closed (the CPU per socket-minute is over the
    minutes the sockets were open), and its close code is counted."""
    from websockets.asyncio.server import serve

    pings: list[float] = []
    holding = [float("inf")]  # (when the hold began)

    async def handler(ws):
        if ws.request.path == "/refuse/":
            await ws.close(code=1013)
            return
        closing = ws.request.path == "/spread/"
        await ws.send(json.dumps({"type": "state", "v": 1}))
        async for text in ws:
            message = json.loads(text)
            pings.append(time.perf_counter())
            await ws.send(json.dumps({"type": "pong", "t": message["t"]}))
            if closing and message["t"] >= holding[0]:
                await asyncio.sleep(0.2)
                await ws.close(code=1012)
                return

    async def scenario():
        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            url = f"ws://127.0.0.1:{port}"
            seats = [(f"{url}/ws/tables/{n}/", "t") for n in range(3)] + [(f"{url}/spread/", "t")]
            seats.append((f"{url}/refuse/", "t"))  # closed before its first state
            phase = Phase(every=0.1)
            await connect_phase(seats, 0.05, phase)
            await asyncio.sleep(0.35)  # (between the connects and the hold)
            holding[0] = time.perf_counter()
            pongs, open_s = await hold(phase, 0.8)
            await close_all(phase)
            return phase, pongs, open_s

    phase, pongs, open_s = asyncio.run(scenario())
    assert sum(1 for at in pings if at < holding[0]) >= 4 * 2  # before the hold too
    # The refused socket is counted once, when it was refused, and not held.
    assert phase.failures == {
        "first state:ConnectionClosedError:1013": 1,
        "held:ConnectionClosedError:1012": 1,
    }
    assert len(pongs) >= 3 * 6  # every 0.1 s on the three that stayed, in the hold
    # Three sockets for the whole 0.8 s, the fourth until its close (0.2-0.4 s).
    assert 3 * 0.8 + 0.15 <= open_s <= 3 * 0.8 + 0.5


def test_seats_alternate_servers_as_the_players_do_and_run_out_loudly():
    specs = [TableSpec(7, "tienlen", ["a", "b", "c", "d"]), TableSpec(8, "tienlen", list("efgh"))]
    seats = seats_of(specs, ["ws://x", "ws://y"], 6)
    assert seats[:3] == [
        ("ws://x/ws/tables/7/", "a"),
        ("ws://y/ws/tables/7/", "b"),
        ("ws://x/ws/tables/7/", "c"),
    ]
    assert seats[5] == ("ws://y/ws/tables/8/", "f")
    with pytest.raises(SystemExit, match="9 sockets asked, 8 seats"):
        seats_of(specs, ["ws://x"], 9)


def test_the_report_prints_each_rate(capsys):
    machine = {
        "ms_per_action": {"daphne-a": 4.0, "postgres": 1.25},
        "total_ms_per_action": 5.25,
        "cores_busy": 0.5,
    }
    phase = {
        "rate_asked": 100.0,
        "sockets": 1000,
        "opened": 998,
        "seconds": 10.02,
        "rate_reached": 99.6,
        "first_state_ms": {50: 9.6, 95: 89.5, 99: 168.1},
        "first_state_max_ms": 218.6,
        "failures": {"first state:TimeoutError": 2},
        "machine_per_connect": machine,
        "machine_per_disconnect": machine,
    }
    report({"config": {"tables": 250, "game": "tienlen", "seconds": 10}, "phases": [phase],
            "server_errors": []})  # fmt: skip
    out = capsys.readouterr().out
    assert "100 connects/s asked" in out
    assert "998 / 1000" in out
    assert "9.6 / 89.5 / 168.1 / 218.6" in out
    assert "daphne-a 4.00 + postgres 1.25 = 5.25 (0.5 cores busy)" in out
    assert "first state:TimeoutError" in out
