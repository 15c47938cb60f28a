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
process and the load client (this process's main thread, or the client processes); the ceiling's per
broadcast likewise, and the difference: what a move costs beyond the
transport. It prints a table and writes JSON to ``bench/results/``.

The client's own lag is reported apart from the server's latency (issue 33
item 7). ``--clients K`` spreads the tables over K client processes, each with
its own event loop (``bench.clients``); each measures how late its loop wakes
(a ticker every 50 ms). The server's side is read from its own metrics,
read at the window's start and after the players are done (from the metric
files every server process writes, not through ``/metrics``):
``vipgame_move_fanout_seconds`` (a move received -> each recipient's frame
written, in whichever Daphne process) beside what the clients saw of the same
thing (a move sent -> each seat received), and
``vipgame_action_state_seconds`` for moves (received -> published).

    python -m bench.tables --tables 100 --game tienlen --seconds 60 --clients 4
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
from pathlib import Path
from typing import Any

from bench.clients import GRACE_S, Measured, Spread, Window, play_here, play_spread
from bench.players import GAMES, PING_S, TableSpec, create_tables, settled_money_checks
from bench.probes import Probes, Sample, parse, quantile, total
from bench.stack import (
    RESULTS,
    Monitor,
    Stack,
    cpu_used,
    machine_time,
    percentile,
    setup_django,
)


def server_urls(stack: Stack) -> list[str]:
    return [f"ws://127.0.0.1:{port}" for port in stack.ports]


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


def summarise(found: Measured, seconds: float) -> dict[str, Any]:
    """What the clients saw in the window (``bench.clients.measure``, merged)."""
    latencies = found.latencies
    return {
        "actions": found.actions,
        "actions_per_s": found.actions / seconds,
        "latency_ms": {q: percentile(latencies, q) for q in (50, 95, 99)},
        "latency_mean_ms": statistics.fmean(latencies) if latencies else None,
        # One per seat a move reached: what vipgame_move_fanout_seconds counts.
        "each_seat_ms": {q: percentile(found.each_seat, q) for q in (50, 95, 99)},
        "ack_ms": {q: percentile(found.acks, q) for q in (50, 95, 99)},
        "ping_ms": {q: percentile(found.pings, q) for q in (50, 95, 99)},
        "pings": len(found.pings),
        "lost_actions": found.lost,
        "duplicated_actions": found.duplicated,
        "acked_as_duplicate": found.acked_as_duplicate,
        "refused_actions": dict(found.refused),
        "errors": dict(found.errors),
        "resent": dict(found.resent),
        "reconnects": found.reconnects,
        "socket_error_times": found.error_times,
    }


def counters(stack: Stack) -> Sample:
    """The servers' counters now, read from the files every process writes
    (``PROMETHEUS_MULTIPROC_DIR``), as their ``/metrics`` adds them up. Not
    through ``/metrics``: a busy Daphne answers it late (and its scrape-time
    reads of the database and Redis with it), and a late read at the window's
    start leaves the window's first moves out of the server's count (a
    two-table test's window in a whole-suite run: 21 frames timed for 43
    moves that reached every seat). The probes still scrape ``/metrics``
    every 5 s, as in production."""
    from prometheus_client import CollectorRegistry, generate_latest, multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=stack.env["PROMETHEUS_MULTIPROC_DIR"])
    return parse(generate_latest(registry).decode())


def server_side(first: Sample, last: Sample, game: str) -> dict[str, Any]:
    """The server's own latency between two reads of its counters: a move received -> each
    recipient's frame written, and -> published; quantiles from the buckets
    (interpolated within one, as Prometheus's histogram_quantile)."""
    match = {} if game == "mix" else {"game": game}

    def ms(name: str, q: float, **labels: str) -> float | None:
        found = quantile(q, first, last, name, **labels)
        return None if found is None else round(found * 1000, 1)

    fanout = "vipgame_move_fanout_seconds"
    frames = total(last, f"{fanout}_count", **match) - total(first, f"{fanout}_count", **match)
    seconds = total(last, f"{fanout}_sum", **match) - total(first, f"{fanout}_sum", **match)
    state = "vipgame_action_state_seconds"
    return {
        "frames": int(frames),
        "fanout_ms": {q: ms(fanout, q / 100, **match) for q in (50, 95, 99)},
        "fanout_mean_ms": round(1000 * seconds / frames, 1) if frames else None,
        "fanout_within_150ms": (
            round(
                (
                    total(last, f"{fanout}_bucket", le="0.15", **match)
                    - total(first, f"{fanout}_bucket", le="0.15", **match)
                )
                / frames,
                4,
            )
            if frames
            else None
        ),
        "published_ms": {q: ms(state, q / 100, action="act", **match) for q in (50, 95, 99)},
    }


def client_side(spread: Spread) -> dict[str, Any]:
    """Each client process's share, CPU and loop lag, and the worst of them."""
    lags = [p["loop_lag"] for p in spread.processes]

    def worst(key: str, q: int | None = None) -> float | None:
        values = [lag[key] if q is None else lag[key][q] for lag in lags]
        present = [v for v in values if v is not None]
        return round(max(present), 1) if present else None

    return {
        "processes": len(spread.processes),
        "per_process": spread.processes,
        "loop_lag_worst_ms": {
            "p50": worst("ms", 50),
            "p99": worst("ms", 99),
            "max": worst("max_ms"),
        },
    }


def benchmark(args: argparse.Namespace, database_url: str | None = None) -> dict[str, Any]:
    """``database_url``: run on this database as it is (the tests'), Django
    already set up; otherwise on a fresh one (``bench.stack``)."""
    result: dict[str, Any] = {"config": {k: v for k, v in vars(args).items() if k != "json"}}
    with (
        tempfile.TemporaryDirectory(prefix="vipgame-bench-") as tmp,
        Stack(Path(tmp), database_url=database_url, log_level=args.log_level) as stack,
    ):
        if database_url is None:
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
            # The servers' metrics at the window's start (and, below, once the
            # players are done: every frame of the window's moves written).
            read: dict[str, Sample] = {}
            timers.append(threading.Timer(args.warmup, lambda: read.update(first=counters(stack))))
            # The servers' logs written over the window (bytes per process).
            logs_before: dict[str, int] = {}
            logs_after: dict[str, int] = {}
            timers += [
                threading.Timer(at, lambda into: into.update(log_sizes(stack)), (into,))
                for at, into in (
                    (args.warmup, logs_before),
                    (args.warmup + args.seconds, logs_after),
                )
            ]
            urls = server_urls(stack)
            plan = Window(args.warmup, args.seconds, args.think, args.ramp, args.grace, args.ping)
            # /readyz every second and /metrics every 5 s, as in production.
            with Probes(stack.ports[0]) as probes:
                if args.clients > 1:
                    spread = play_spread(
                        specs, urls, args.clients, plan, on_start=lambda: start(timers)
                    )
                else:
                    start(timers)
                    spread = play_here(specs, urls, plan)
            for timer in timers:
                timer.join()
            read["last"] = counters(stack)
            stop.set()
            sampler.join()
        # The money checks once the hands ended by now have settled (up to 30 s).
        result["money"] = settled_money_checks(30)
        load = summarise(spread.measured, args.seconds)

        def in_window(at: float) -> bool:
            return spread.window[0] <= at < spread.window[1]

        window = [x for x in samples if in_window(x[0])]
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
        messages = sum(spread.measured.received.values())
        load["messages_received"] = dict(spread.measured.received)
        load["bytes_per_message"] = (
            round(sum(spread.measured.received_bytes.values()) / messages) if messages else None
        )
        result["server_latency"] = server_side(read["first"], read["last"], args.game)
        result["clients"] = client_side(spread)
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
        used = cpu_used(cpu_before, cpu_after)
        if args.clients > 1:  # the load client is the client processes, not this one
            used["client"] = spread.cpu_s
        result["machine"] = machine_time(used, load["actions"], args.seconds)
        result["logs"] = log_volume(logs_before, logs_after, load["actions"], args.log_level)
        result["probes"] = probes.summary(spread.window)
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


def log_sizes(stack: Stack) -> dict[str, int]:
    """The bytes each server process has logged so far (its log file)."""
    return {
        name: stack.log(name).stat().st_size for name in stack.processes if stack.log(name).exists()
    }


def log_volume(
    before: dict[str, int], after: dict[str, int], actions: int, level: str
) -> dict[str, Any]:
    """The logs the servers wrote over the window, at ``level``: bytes per
    process kind, and per move (docs/operations.md, "Capacity": the budget)."""
    kinds: dict[str, int] = {}
    for name, size in after.items():
        kind = name.split("-")[0]
        kinds[kind] = kinds.get(kind, 0) + size - before.get(name, 0)
    total = sum(kinds.values())
    return {
        "level": level,
        "bytes": kinds,
        "bytes_per_move": round(total / actions, 1) if actions else None,
    }


def start(timers: list[threading.Timer]) -> None:
    for timer in timers:
        timer.start()


def report(result: dict[str, Any]) -> None:
    config = result["config"]
    think = f", thinking {config['think']} s a move" if config.get("think") else ""
    print(
        f"\n{config['tables']} four-seat tables, game {config['game']}, "
        f"{config['seconds']} s{think}, pinging every {config.get('ping', PING_S):g} s"
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
        ("move -> each seat (clients saw), p50/p95/p99 ms",
         " / ".join(ms(load["each_seat_ms"][q]) for q in (50, 95, 99))),
        *server_rows(result),
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
    logs = result.get("logs")
    if logs:
        kinds = ", ".join(f"{kind} {size}" for kind, size in logs["bytes"].items())
        rows.append(
            (f"logs at {logs['level']}: bytes per move (bytes by process kind)",
             f"{logs['bytes_per_move']} ({kinds})")
        )  # fmt: skip
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


def server_rows(result: dict[str, Any]) -> list[tuple[str, str]]:
    """The server's own latency (its metrics) and each client process's lag,
    beside what the clients saw: the difference is the clients' (and the
    kernel's) share."""

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.1f}"

    server, clients = result.get("server_latency"), result.get("clients")
    rows = []
    if server:
        within = server["fanout_within_150ms"]
        rows += [
            ("server: move received -> each frame written, p50/p95/p99 ms",
             " / ".join(ms(server["fanout_ms"][q]) for q in (50, 95, 99))
             + f"  ({server['frames']} frames, "
             + ("-" if within is None else f"{100 * within:.1f} %") + " within 150 ms)"),
            ("server: move received -> published, p50/p95/p99 ms",
             " / ".join(ms(server["published_ms"][q]) for q in (50, 95, 99))),
        ]  # fmt: skip
    if clients:
        worst = clients["loop_lag_worst_ms"]
        rows.append(
            ("client processes; loop lag of the worst, p50/p99/max ms",
             f"{clients['processes']}; {ms(worst['p50'])} / {ms(worst['p99'])} / "
             f"{ms(worst['max'])}")
        )  # fmt: skip
        for n, part in enumerate(clients["per_process"]):
            lag = part["loop_lag"]
            rows.append(
                (f"  client {n}: sockets, cpu s, loop lag p50/p99/max ms",
                 f"{part['sockets']}, {part['cpu_s']}, {ms(lag['ms'][50])} / "
                 f"{ms(lag['ms'][99])} / {ms(lag['max_ms'])}")
            )  # fmt: skip
            rows.append(
                (f"  client {n}: collections by generation; longest full, ms",
                 f"{lag['collections']}; {ms(lag['full_collection_max_ms'])}")
            )  # fmt: skip
    return rows


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


def arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--game", choices=[*GAMES, "mix"], default="tienlen")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--idle", type=int, default=0, help="idle sockets to measure first")
    parser.add_argument(
        "--clients", type=int, default=1,
        help="client processes the tables are spread over, each with its own event loop "
        "(default 1: this process)",
    )  # fmt: skip
    parser.add_argument(
        "--think", type=float, default=0.0,
        help="mean seconds a player thinks before moving (uniform 0.5-1.5 times it); 0: at once",
    )  # fmt: skip
    parser.add_argument(
        "--ping", type=float, default=PING_S,
        help=f"seconds between a socket's pings (default {PING_S:g}: the most often "
        "docs/protocol.md allows; the browser's is 15)",
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
    parser.add_argument(
        "--grace", type=float, default=GRACE_S,
        help="seconds the players listen after the window for the last moves' states",
    )  # fmt: skip
    parser.add_argument(
        "--log-level", default="WARNING",
        help="the servers' LOG_LEVEL (production's is INFO): the log volume per move is printed",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, default=None)
    return parser


def main() -> None:
    args = arguments().parse_args()
    result = benchmark(args)
    report(result)
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = f"-think{args.think:g}" if args.think else ""
    path = args.json or RESULTS / f"tables-{args.game}-{args.tables}{suffix}.json"
    path.write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
