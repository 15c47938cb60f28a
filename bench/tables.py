"""Load benchmark for live tables: the production-like stack under WebSocket players.

It starts the stack itself (PostgreSQL and Redis from ``DATABASE_URL`` /
``REDIS_URL`` or embedded ones; a fresh database ``<name>_bench``; two Daphne
processes; one Celery worker with beat; ``DEBUG=0``), seats four players at
each of N tables and drives them with WebSocket clients that move as soon as it
is their turn (no think time; ``--think S``: about S seconds before each move),
the seats of a table split across both Daphne processes. It measures, per
action, the time from sending it to every seat of the table having received
the new version; the ``ping``/``pong`` round trip in
the same run; actions, hands and settled hands per second; the settlement
backlog; errors; lost or duplicated actions; and the server processes' CPU
and peak memory. With ``--idle K`` it first measures the server memory taken
by K idle sockets. After the product it measures the transport's ceiling in
the same shape (``bench.transport``: the same tables, Daphne count, channel
layer and publication path, messages of the size the players received, no
database and no game) and prints the product's moves per second as a share of
it (``--no-ceiling`` skips it). It also accounts for the machine's CPU per
move over the window: each server process, every PostgreSQL and Redis
process and the load client (this process's main thread); the ceiling's per
broadcast likewise, and the difference: what a move costs beyond the
transport. It prints a table and writes JSON to ``bench/results/``.

    python -m bench.tables --tables 100 --game tienlen --seconds 60
    python -m bench.tables --tables 10 --game mix --idle 2000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.players import GAMES, Run, TableSpec, create_tables, money_checks, players_for
from bench.probes import Probes
from bench.stack import (
    RESULTS,
    Monitor,
    Stack,
    cpu_used,
    machine_time,
    percentile,
    setup_django,
    wait_until,
)

GRACE_S = 15.0


def server_urls(stack: Stack) -> list[str]:
    return [f"ws://127.0.0.1:{port}" for port in stack.ports]


async def drive(
    specs: list[TableSpec],
    urls: list[str],
    warmup: float,
    seconds: float,
    think: float = 0.0,
    ramp: float = 0.0,
) -> Run:
    """Play until the window closes, then listen a little longer (no new moves)
    so that the last moves' states can arrive. The players connect over the
    first ``ramp`` seconds of the warm-up."""
    start = time.perf_counter()
    run = Run((start + warmup, start + warmup + seconds), think)
    players = players_for(run, specs, urls)
    await asyncio.gather(*(p.play(run.window[1] + GRACE_S, ramp) for p in players))
    return run


async def idle_sockets(count: int, specs: list[TableSpec], urls: list[str]) -> list[Any]:
    """Open ``count`` spectator sockets over the servers and keep them open."""
    from websockets.asyncio.client import connect

    sockets = []
    for n in range(count):
        spec = specs[n % len(specs)]
        ws = await connect(f"{urls[n % len(urls)]}/ws/tables/{spec.id}/", open_timeout=30)
        await ws.recv()  # the first state: the socket is fully set up
        sockets.append(ws)
    return sockets


def measure_idle(
    count: int, specs: list[TableSpec], stack: Stack, monitor: Monitor
) -> dict[str, Any]:
    names = ["daphne-a", "daphne-b"]
    time.sleep(2)
    before = {n: monitor.rss(n) for n in names}

    async def hold() -> dict[str, int]:
        sockets = await idle_sockets(count, specs, server_urls(stack))
        await asyncio.sleep(5)
        during = {n: monitor.rss(n) for n in names}
        for ws in sockets:
            await ws.close()
        return during

    during = asyncio.run(hold())
    grown = sum(during[n] - before[n] for n in names)
    return {
        "sockets": count,
        "rss_before_mb": round(sum(before.values()) / 2**20, 1),
        "rss_with_sockets_mb": round(sum(during.values()) / 2**20, 1),
        "kb_per_socket": round(grown / count / 1024, 1),
    }


def backlog_sampler(stop: threading.Event, samples: list[tuple[float, int, int, int]]) -> None:
    """Every second: finished hands, settled hands, finished but unsettled."""
    from django.db import connection

    from games.models import Hand

    try:
        while not stop.wait(1.0):
            finished = Hand.objects.filter(ended_at__isnull=False)
            samples.append(
                (
                    time.perf_counter(),
                    finished.count(),
                    finished.filter(settled=True).count(),
                    finished.filter(settled=False).count(),
                )
            )
    finally:
        connection.close()


def summarise(run: Run, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    acks: list[float] = []
    lost = 0
    refused: Counter[str] = Counter()
    versions: Counter[tuple[int, int]] = Counter()
    measured = [a for a in run.actions.values() if run.in_window(a.sent)]
    for action in measured:
        if action.refused:
            refused[action.refused] += 1
            continue
        if action.version is None:
            lost += 1
            continue
        versions[(action.table, action.version)] += 1
        if action.acked is not None:
            acks.append((action.acked - action.sent) * 1000)
        reached = run.reached_all(action.table, action.version)
        if reached is None:
            lost += 1
        else:
            latencies.append((reached - action.sent) * 1000)
    pings = [p * 1000 for p in run.pings]
    return {
        "actions": len(measured),
        "actions_per_s": len(measured) / seconds,
        "latency_ms": {q: percentile(latencies, q) for q in (50, 95, 99)},
        "latency_mean_ms": statistics.fmean(latencies) if latencies else None,
        "ack_ms": {q: percentile(acks, q) for q in (50, 95, 99)},
        "ping_ms": {q: percentile(pings, q) for q in (50, 95, 99)},
        "pings": len(pings),
        "lost_actions": lost,
        "duplicated_actions": sum(1 for n in versions.values() if n > 1),
        "acked_as_duplicate": sum(1 for a in measured if a.duplicate),
        "refused_actions": dict(refused),
        "errors": dict(run.errors),
        "resent": dict(run.resent),
        "reconnects": run.reconnects,
        "socket_error_times": [round(t, 1) for t in run.error_times],
    }


def benchmark(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"config": {k: v for k, v in vars(args).items() if k != "json"}}
    with tempfile.TemporaryDirectory(prefix="vipgame-bench-") as tmp, Stack(Path(tmp)) as stack:
        setup_django()
        specs = create_tables(args.tables, args.game)
        with Monitor(stack.processes) as monitor:
            if args.idle:
                result["idle"] = measure_idle(args.idle, specs, stack, monitor)
            samples: list[tuple[float, int, int, int]] = []
            stop = threading.Event()
            sampler = threading.Thread(target=backlog_sampler, args=(stop, samples), daemon=True)
            sampler.start()
            # The CPU of the servers, PostgreSQL, Redis and this process's
            # threads, over the measured window exactly.
            cpu_before: dict[str, float] = {}
            cpu_after: dict[str, float] = {}
            timers = [
                threading.Timer(at, lambda into: into.update(monitor.machine_cpu()), (into,))
                for at, into in ((args.warmup, cpu_before), (args.warmup + args.seconds, cpu_after))
            ]
            for timer in timers:
                timer.start()
            urls = server_urls(stack)
            # /readyz every second and /metrics every 5 s, as in production.
            with Probes(stack.ports[0]) as probes:
                run = asyncio.run(
                    drive(specs, urls, args.warmup, args.seconds, args.think, args.ramp)
                )
            for timer in timers:
                timer.join()
            stop.set()
            sampler.join()
        # Let the last settlements land (up to 30 s) before the money checks.
        from games.models import Hand

        unsettled = Hand.objects.filter(ended_at__isnull=False, settled=False)
        wait_until(lambda: not unsettled.exists(), 30, 0.5)
        load = summarise(run, args.seconds)
        window = [x for x in samples if run.in_window(x[0])]
        if len(window) >= 2:
            span = window[-1][0] - window[0][0]
            load["hands_per_s"] = (window[-1][1] - window[0][1]) / span
            load["settled_per_s"] = (window[-1][2] - window[0][2]) / span
            load["backlog"] = {
                "first": window[0][3],
                "max": max(x[3] for x in window),
                "last": window[-1][3],
            }
        result["load"] = load
        messages = sum(run.received.values())
        load["messages_received"] = dict(run.received)
        load["bytes_per_message"] = (
            round(sum(run.received_bytes.values()) / messages) if messages else None
        )
        result["servers"] = {
            name: {
                "cpu_s": round(cpu_after[name] - cpu_before.get(name, 0.0), 2),
                "cpu_percent": round(
                    100 * (cpu_after[name] - cpu_before.get(name, 0.0)) / args.seconds, 1
                ),
                "peak_rss_mb": round(monitor.peak[name] / 2**20, 1),
            }
            for name in stack.processes
        }
        result["machine"] = machine_time(
            cpu_used(cpu_before, cpu_after), load["actions"], args.seconds
        )
        result["probes"] = probes.summary(run.window)
        result["money"] = money_checks()
        result["server_errors"] = stack.errors_in_logs()[:20]
    if args.ceiling:
        # The transport alone, in the same shape, with messages of the size
        # the players just received (unless --ceiling-bytes says otherwise).
        from bench import transport

        size = args.ceiling_bytes or load["bytes_per_message"] or 2000
        result["ceiling"] = transport.measure(
            tables=args.tables, seconds=min(args.seconds, 30), payload=size
        )
        if result["ceiling"]["broadcasts_per_s"]:
            load["share_of_ceiling"] = round(
                load["actions_per_s"] / result["ceiling"]["broadcasts_per_s"], 3
            )
    return result


def report(result: dict[str, Any]) -> None:
    config = result["config"]
    think = f", thinking {config['think']} s a move" if config.get("think") else ""
    print(
        f"\n{config['tables']} four-seat tables, game {config['game']}, "
        f"{config['seconds']} s{think}"
    )
    if "idle" in result:
        idle = result["idle"]
        print(
            f"idle sockets: {idle['sockets']}  server memory {idle['rss_before_mb']} -> "
            f"{idle['rss_with_sockets_mb']} MB  = {idle['kb_per_socket']} KB per socket"
        )
    load = result["load"]

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    rows = [
        ("actions", f"{load['actions']} ({load['actions_per_s']:.1f}/s)"),
        *(
            [("transport ceiling, broadcasts/s (same shape, no DB)",
              f"{result['ceiling']['broadcasts_per_s']} with "
              f"{result['ceiling']['payload_bytes']} B messages -> this run at "
              f"{100 * load['share_of_ceiling']:.1f} % of it")]
            if "share_of_ceiling" in load else []
        ),
        ("table messages received (by type), mean bytes",
         f"{load.get('messages_received')}, {load.get('bytes_per_message')} B"),
        ("action -> every seat, p50/p95/p99 ms",
         " / ".join(ms(load["latency_ms"][q]) for q in (50, 95, 99))),
        ("ack to the mover, p50/p95/p99 ms",
         " / ".join(ms(load["ack_ms"][q]) for q in (50, 95, 99))),
        ("ping round trip, p50/p95/p99 ms",
         " / ".join(ms(load["ping_ms"][q]) for q in (50, 95, 99))),
        ("hands/s, settled/s",
         f"{load.get('hands_per_s', 0):.2f}, {load.get('settled_per_s', 0):.2f}"),
        ("settlement backlog first/max/last", str(load.get("backlog"))),
        ("lost / duplicated actions", f"{load['lost_actions']} / {load['duplicated_actions']}"),
        ("refused actions", str(load["refused_actions"])),
        ("errors", str(load["errors"])),
        ("moves sent again (server_error, busy)", str(load["resent"])),
        ("socket errors in warm-up / window",
         f"{sum(1 for t in load['socket_error_times'] if t < 0)} / "
         f"{sum(1 for t in load['socket_error_times'] if t >= 0)}"),
    ]  # fmt: skip
    for name, server in result["servers"].items():
        rows.append(
            (f"{name}: cpu, peak memory",
             f"{server['cpu_s']} s ({server['cpu_percent']} %), {server['peak_rss_mb']} MB")
        )  # fmt: skip
    rows += machine_rows(result)
    money = result["money"]
    rows.append(
        ("money: sum, negative, unsettled, settled twice",
         f"{money['sum_of_balances']}, {money['negative_balances']}, "
         f"{money['hands_unsettled']}, {money['settled_twice']}")
    )  # fmt: skip
    rows.append(("server errors logged", str(len(result["server_errors"]))))
    for name, figures in result.get("probes", {}).items():
        for key, value in figures.items():
            rows.append((f"{name}: {key}", str(value)))
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


def machine_parts(machine: dict[str, Any]) -> str:
    parts = machine["ms_per_action"]
    return (
        " + ".join(f"{name} {ms:.2f}" for name, ms in parts.items() if ms is not None)
        + f" = {machine['total_ms_per_action']:.2f} ({machine['cores_busy']} cores busy)"
    )


def machine_rows(result: dict[str, Any]) -> list[tuple[str, str]]:
    """The machine's CPU per move (every server, PostgreSQL, Redis, the load
    client), the ceiling's per broadcast, and what a move costs beyond it."""
    machine = result.get("machine")
    if not machine or machine["total_ms_per_action"] is None:
        return []
    rows = [("machine CPU per move, ms", machine_parts(machine))]
    ceiling = (result.get("ceiling") or {}).get("machine")
    if ceiling and ceiling["total_ms_per_action"]:
        beyond = machine["total_ms_per_action"] - ceiling["total_ms_per_action"]
        rows += [
            ("ceiling: machine CPU per broadcast, ms", machine_parts(ceiling)),
            ("a move beyond the transport, ms of CPU", f"{beyond:.2f}"),
        ]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--game", choices=[*GAMES, "mix"], default="tienlen")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--idle", type=int, default=0, help="idle sockets to measure first")
    parser.add_argument(
        "--think", type=float, default=0.0,
        help="mean seconds a player thinks before moving (uniform 0.5-1.5 times it); 0: at once",
    )  # fmt: skip
    parser.add_argument(
        "--no-ceiling", dest="ceiling", action="store_false",
        help="skip the transport ceiling measured after the product (bench.transport)",
    )  # fmt: skip
    parser.add_argument("--ceiling-bytes", type=int, default=0,
                        help="size of each seat's message in the ceiling run "
                        "(default: the mean size of the table messages this run's "
                        "players received)")  # fmt: skip
    parser.add_argument(
        "--ramp", type=float, default=0.0,
        help="connect the players over this many seconds of the warm-up (default: all at once)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = benchmark(args)
    report(result)
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = f"-think{args.think:g}" if args.think else ""
    path = args.json or RESULTS / f"tables-{args.game}-{args.tables}{suffix}.json"
    path.write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
