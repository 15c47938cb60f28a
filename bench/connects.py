"""Connects per second: what a socket costs to open, and how many a second the
stack takes (a herd of players arriving, or coming back after a restart).

It starts the stack as ``bench.tables`` does (two Daphne processes, Celery,
PostgreSQL, Redis, ``DEBUG=0``), seats four players with API tokens at each
of N tables (no hand running: only the connections work), then for each rate
asked opens ``rate × --seconds`` sockets, one per seat, spread evenly over
``--seconds`` and split across both Daphne processes as the players are. Each
socket is timed from the start of its handshake to its first full state (the
table as the player sees it, after the server has counted it at its seat and
told the table), and pings every 10 s from then on (``--ping``), as a player
does. The sockets stay open until the phase ends (``--hold S``: S seconds
more, and what that costs is measured), then all close and the closing is
measured apart. For each rate
it prints the connects done, the rate reached, the time to the first state
(p50/p95/p99), failures by kind, and the machine's CPU per connect, per
socket-minute held and per disconnect (every server, every PostgreSQL and
Redis process, the load client), and writes JSON.

    python -m bench.connects --rates 25,50,100,150 --seconds 10
    python -m bench.connects --rates 100 --seconds 40 --hold 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.players import PING_S, TableSpec, create_tables, failure_kind
from bench.stack import (
    Monitor,
    Stack,
    cpu_used,
    machine_time,
    percentile,
    setup_django,
    write_results,
)
from bench.tables import machine_parts, server_urls

OPEN_TIMEOUT_S = 30.0
SEATS = 4


class Phase:
    """The sockets of one rate: their times to the first state, their failures.
    Each socket pings every ``every`` seconds from its first state on, as a
    player does (a socket silent for ``WS_SILENT_CLOSE_S`` is closed, 4410):
    ``pingers``, by socket, holds those that reached their first state."""

    def __init__(self, every: float = PING_S) -> None:
        self.every = every
        self.rng = random.Random(7)
        self.times: list[float] = []
        self.failures: Counter[str] = Counter()
        self.sockets: list[Any] = []
        self.pingers: dict[Any, asyncio.Task[None]] = {}


async def ping(ws: Any, every: float, rng: random.Random) -> None:
    """A ``ping`` every ``every`` seconds (the first at a random moment of the
    first period), until the socket closes or the task is cancelled."""
    await asyncio.sleep(rng.random() * every)
    while True:
        await ws.send(json.dumps({"type": "ping", "t": time.perf_counter()}))
        await asyncio.sleep(every)


async def open_one(url: str, token: str, phase: Phase) -> None:
    from websockets.asyncio.client import connect

    started = time.perf_counter()
    try:
        ws = await connect(
            url,
            additional_headers={"Authorization": f"Token {token}"},
            max_size=2**20,
            open_timeout=OPEN_TIMEOUT_S,
            ping_interval=None,
        )
    except Exception as exc:
        phase.failures[f"handshake:{failure_kind(exc)}"] += 1
        return
    phase.sockets.append(ws)
    try:
        async with asyncio.timeout(OPEN_TIMEOUT_S):
            while True:
                message = json.loads(await ws.recv())
                if message.get("type") == "state":
                    phase.times.append((time.perf_counter() - started) * 1000)
                    break
    except Exception as exc:
        phase.failures[f"first state:{failure_kind(exc)}"] += 1
        return
    phase.pingers[ws] = asyncio.create_task(ping(ws, phase.every, phase.rng))


async def connect_phase(seats: list[tuple[str, str]], seconds: float, phase: Phase) -> float:
    """Open a socket per seat, evenly over ``seconds``; the seconds it took
    until every one had its first state (or failed)."""
    start = time.perf_counter()
    gap = seconds / len(seats)
    tasks = []
    for n, (url, token) in enumerate(seats):
        delay = start + n * gap - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(open_one(url, token, phase)))
    await asyncio.gather(*tasks)
    return time.perf_counter() - start


async def hold(phase: Phase, seconds: float) -> tuple[list[float], float]:
    """Keep the sockets that reached their first state open for ``seconds`` as
    players do: each goes on pinging (``Phase``) and reads what it is sent.
    The round trips (ms) of the pongs to pings sent in the hold, and the
    seconds the sockets were open in all (a socket the server closed
    meanwhile counts until it closed: counted in ``failures`` as ``held:``
    and its close code)."""
    pongs: list[float] = []
    began = time.perf_counter()
    until = began + seconds
    open_s = [0.0]

    async def keep(ws: Any) -> None:
        try:
            while (left := until - time.perf_counter()) > 0:
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=left))
                except TimeoutError:
                    return
                sent = message.get("t") if message.get("type") == "pong" else None
                if isinstance(sent, float) and sent >= began:
                    pongs.append((time.perf_counter() - sent) * 1000)
        except Exception as exc:
            phase.failures[f"held:{failure_kind(exc)}"] += 1
        finally:
            open_s[0] += min(time.perf_counter(), until) - began

    await asyncio.gather(*(keep(ws) for ws in phase.pingers))
    return pongs, open_s[0]


async def close_all(phase: Phase) -> None:
    for pinger in phase.pingers.values():
        pinger.cancel()
    await asyncio.gather(*(ws.close() for ws in phase.sockets), return_exceptions=True)


def seats_of(specs: list[TableSpec], urls: list[str], count: int) -> list[tuple[str, str]]:
    """``count`` seats, table after table, each seat's socket on the server the
    players of ``bench.tables`` use for it (position modulo the servers)."""
    seats = [
        (f"{urls[position % len(urls)]}/ws/tables/{spec.id}/", token)
        for spec in specs
        for position, token in enumerate(spec.tokens)
    ]
    if count > len(seats):
        raise SystemExit(f"{count} sockets asked, {len(seats)} seats: use more --tables")
    return seats[:count]


def run_rate(
    rate: float, args: argparse.Namespace, specs: list[TableSpec], urls: list[str],
    monitor: Monitor,
) -> dict[str, Any]:  # fmt: skip
    count = max(1, round(rate * args.seconds))
    seats = seats_of(specs, urls, count)
    phase = Phase(args.ping)
    loop = asyncio.new_event_loop()
    try:
        before = monitor.machine_cpu()
        took = loop.run_until_complete(connect_phase(seats, args.seconds, phase))
        after = monitor.machine_cpu()
        opened = len(phase.times)
        connect = machine_time(cpu_used(before, after), opened, took)
        time.sleep(args.settle)
        held: dict[str, Any] | None = None
        if args.hold:
            before = monitor.machine_cpu()
            pongs, open_s = loop.run_until_complete(hold(phase, args.hold))
            after = monitor.machine_cpu()
            # (per socket-minute: what an open socket costs, kept alive; the
            # minutes each socket was open, not the sockets times the hold)
            minutes = open_s / 60
            held = {
                "sockets": len(phase.pingers),
                "socket_minutes": round(minutes, 1),
                "seconds": args.hold,
                "ping_s": args.ping,
                "pongs": len(pongs),
                "pong_ms": {q: _round(percentile(pongs, q)) for q in (50, 99)},
                "machine_per_socket_minute": machine_time(
                    cpu_used(before, after), round(minutes), args.hold
                ),
            }
        before = monitor.machine_cpu()
        closing_started = time.perf_counter()
        loop.run_until_complete(close_all(phase))
        time.sleep(args.settle)  # the servers' side of the closing
        after = monitor.machine_cpu()
        disconnect = machine_time(
            cpu_used(before, after), len(phase.sockets), time.perf_counter() - closing_started
        )
    finally:
        loop.close()
    return {
        "rate_asked": rate,
        "sockets": count,
        "opened": opened,
        "seconds": round(took, 2),
        "rate_reached": round(opened / took, 1),
        "first_state_ms": {q: _round(percentile(phase.times, q)) for q in (50, 95, 99)},
        "first_state_max_ms": _round(max(phase.times, default=None)),
        "failures": dict(phase.failures),
        "machine_per_connect": connect,
        "machine_per_disconnect": disconnect,
        "held": held,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    rates = [float(r) for r in args.rates.split(",")]
    needed = max(round(r * args.seconds) for r in rates)
    tables = args.tables or -(-needed // SEATS)
    result: dict[str, Any] = {"config": {**vars(args), "tables": tables}, "phases": []}
    with tempfile.TemporaryDirectory(prefix="vipgame-bench-") as tmp, Stack(Path(tmp)) as stack:
        setup_django()
        specs = create_tables(tables, args.game)
        urls = server_urls(stack)
        with Monitor(stack.processes) as monitor:
            for rate in rates:
                result["phases"].append(run_rate(rate, args, specs, urls, monitor))
                time.sleep(args.settle)
        result["server_errors"] = stack.errors_in_logs()[:20]
    return result


def report(result: dict[str, Any]) -> None:
    config = result["config"]
    print(
        f"\nconnects: {config['tables']} four-seat {config['game']} tables, no hand running; "
        f"each rate's sockets opened evenly over {config['seconds']} s"
    )

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    for phase in result["phases"]:
        rows = [
            ("sockets opened / asked", f"{phase['opened']} / {phase['sockets']}"),
            ("rate reached, connects/s", f"{phase['rate_reached']} in {phase['seconds']} s"),
            ("handshake -> first state, p50/p95/p99/max ms",
             " / ".join(ms(phase["first_state_ms"][q]) for q in (50, 95, 99))
             + f" / {ms(phase['first_state_max_ms'])}"),
            ("failures", str(phase["failures"])),
            ("machine CPU per connect, ms", machine_parts(phase["machine_per_connect"])),
            ("machine CPU per disconnect, ms", machine_parts(phase["machine_per_disconnect"])),
        ]  # fmt: skip
        held = phase.get("held")
        if held:
            rows += [
                (f"held {held['seconds']:g} s, pinging every {held.get('ping_s', PING_S):g} s: "
                 "pongs, p50/p99 ms",
                 f"{held['pongs']}, {ms(held['pong_ms'][50])} / {ms(held['pong_ms'][99])}"),
                (f"machine CPU per socket-minute held ({held.get('socket_minutes', '?')} "
                 "socket-minutes), ms",
                 machine_parts(held["machine_per_socket_minute"])),
            ]  # fmt: skip
        print(f"\n{phase['rate_asked']:g} connects/s asked")
        width = max(len(r[0]) for r in rows)
        for name, value in rows:
            print(f"  {name:<{width}}  {value}")
    print(f"\nserver errors logged: {len(result['server_errors'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--tables", type=int, default=0,
        help="tables to create (default: enough seats for the highest rate)",
    )  # fmt: skip
    parser.add_argument("--game", choices=["tienlen", "holdem", "maubinh"], default="tienlen")
    parser.add_argument("--rates", default="25,50,100",
                        help="connects per second to try, in turn (comma-separated)")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=10,
                        help="each rate's sockets are opened over this long")  # fmt: skip
    parser.add_argument("--settle", type=float, default=3,
                        help="seconds left for the servers' work after each step")  # fmt: skip
    parser.add_argument(
        "--hold", type=float, default=0,
        help="then keep each rate's sockets open this many seconds, pinging as players "
        "do, and measure what they cost",
    )  # fmt: skip
    parser.add_argument(
        "--ping", type=float, default=PING_S,
        help=f"seconds between a held socket's pings (default {PING_S:g}: the most often "
        "docs/protocol.md allows; the browser's is 15)",
    )  # fmt: skip
    parser.add_argument("--json", default="connects")
    args = parser.parse_args()
    result = benchmark(args)
    report(result)
    write_results(result, args.json)


if __name__ == "__main__":
    main()
