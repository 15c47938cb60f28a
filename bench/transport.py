"""The transport's ceiling: how many table broadcasts per second Channels, the
product's channel layer and two Daphne processes carry with no database and no
game (bench/transport_app.py), in the shape of the product's tables.

N tables of four socket clients, the seats of each table split across the two
Daphne processes as in ``bench.tables``. At every table one seat at a time
sends a message; the app delivers it to the table's four seats as four
per-seat messages of ``--bytes`` each (``--fanout table``: one group message);
when all four have it, the next seat sends ("players moving at once": one
move in flight per table). It prints broadcasts per second, the time from
sending to the fourth seat's receipt, the servers' CPU and the machine's
per broadcast (``machine``: the servers, Redis, PostgreSQL, the clients),
and writes JSON. ``bench.tables`` runs it after the product in the same
invocation and prints its own moves per second as a share of this ceiling.

    python -m bench.transport --tables 100 --seconds 30
    python -m bench.transport --tables 100 --fanout table --bytes 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.stack import (
    BIN,
    ROOT,
    Monitor,
    cpu_used,
    free_port,
    kill_group,
    machine_time,
    percentile,
    raise_file_limit,
    wait_http,
    write_results,
)

SEATS = 4


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


class Servers:
    """Two Daphne processes serving bench/transport_app.py."""

    def __init__(self, workdir: Path, *, fanout: str, payload: int, redis_url: str) -> None:
        self.workdir = workdir
        self.ports = (free_port(), free_port())
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "bench.transport_settings",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "REDIS_URL": redis_url,
            "CHANNEL_PREFIX": f"transport-{secrets.token_hex(4)}",
            "FANOUT": fanout,
            "PAYLOAD_BYTES": str(payload),
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def __enter__(self) -> Servers:
        raise_file_limit()
        for name, port in zip(("daphne-a", "daphne-b"), self.ports, strict=True):
            with (self.workdir / f"{name}.log").open("ab") as out:
                self.processes[name] = subprocess.Popen(
                    [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port),
                     "bench.transport_app:application"],
                    cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True, preexec_fn=raise_file_limit,
                )  # fmt: skip
        for port in self.ports:
            wait_http(port)
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.processes.values():
            kill_group(process)


async def _table(
    table: int, urls: list[str], window: tuple[float, float], done: list[float], late: list[int]
) -> None:
    from websockets.asyncio.client import connect

    sockets = [
        await connect(f"{urls[seat % len(urls)]}/ws/?table={table}&seat={seat}", open_timeout=60)
        for seat in range(SEATS)
    ]
    await asyncio.sleep(1)  # every socket has joined its group
    number, mover = 0, table % SEATS
    try:
        while time.perf_counter() < window[1]:
            sent = time.perf_counter()
            await sockets[mover].send(json.dumps({"n": number}))

            async def until(ws: Any, wanted: int) -> None:
                while json.loads(await ws.recv())["n"] != wanted:
                    pass

            try:
                await asyncio.wait_for(
                    asyncio.gather(*(until(ws, number) for ws in sockets)), timeout=10
                )
            except TimeoutError:
                late.append(number)  # a lost message: move on, as a client resyncs
            else:
                if window[0] <= sent:
                    done.append((time.perf_counter() - sent) * 1000)
            number, mover = number + 1, (mover + 1) % SEATS
    finally:
        for ws in sockets:
            await ws.close()


def measure(
    *,
    tables: int,
    seconds: float,
    warmup: float = 5,
    fanout: str = "seat",
    payload: int = 2000,
    redis_url: str | None = None,
) -> dict[str, Any]:
    """The transport's ceiling on this machine now (see the module's docstring)."""
    redis_url = redis_url or os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    with (
        tempfile.TemporaryDirectory(prefix="vipgame-transport-") as tmp,
        Servers(Path(tmp), fanout=fanout, payload=payload, redis_url=redis_url) as servers,
    ):
        urls = [f"ws://127.0.0.1:{port}" for port in servers.ports]
        latencies: list[float] = []
        lost: list[int] = []
        with Monitor(servers.processes) as monitor:

            async def everyone() -> dict[str, float]:
                start = time.perf_counter() + 2  # connections first
                window = (start + warmup, start + warmup + seconds)
                loop = asyncio.get_running_loop()
                before: dict[str, float] = {}
                after: dict[str, float] = {}
                for moment, into in ((window[0], before), (window[1], after)):
                    loop.call_at(
                        loop.time() + (moment - time.perf_counter()),
                        lambda into: into.update(monitor.machine_cpu()),
                        into,
                    )
                await asyncio.gather(
                    *(_table(t, urls, window, latencies, lost) for t in range(tables))
                )
                return cpu_used(before, after)

            cpu = asyncio.run(everyone())
    return {
        "tables": tables,
        "seats_per_table": SEATS,
        "fanout": fanout,
        "payload_bytes": payload,
        "seconds": seconds,
        "broadcasts": len(latencies),
        "broadcasts_per_s": round(len(latencies) / seconds, 1),
        "latency_ms": {q: _round(percentile(latencies, q)) for q in (50, 95, 99)},
        "latency_mean_ms": round(statistics.fmean(latencies), 2) if latencies else None,
        "lost": len(lost),
        "server_cpu_s": {name: round(cpu[name], 2) for name in servers.processes},
        "machine": machine_time(cpu, len(latencies), seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--fanout", choices=["seat", "table"], default="seat")
    parser.add_argument("--bytes", type=int, default=2000, help="size of each seat's message")
    args = parser.parse_args()
    result = measure(
        tables=args.tables, seconds=args.seconds, warmup=args.warmup, fanout=args.fanout,
        payload=args.bytes,
    )  # fmt: skip
    result["date"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    print(json.dumps(result, indent=2))
    write_results(result, f"transport-{args.tables}-{args.fanout}-{args.bytes}")


if __name__ == "__main__":
    main()
