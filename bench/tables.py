"""Load benchmark for live tables: the production-like stack under WebSocket players.

It starts the stack itself (PostgreSQL and Redis from ``DATABASE_URL`` /
``REDIS_URL`` or embedded ones; a fresh database ``<name>_bench``; two Daphne
processes; one Celery worker with beat; ``DEBUG=0``), seats four players at
each of N tables and drives them with WebSocket clients that move as soon as it
is their turn (no think time), the seats of a table split across both Daphne
processes. It measures, per action, the time from sending it to every seat of
the table having received the new version; the ``ping``/``pong`` round trip in
the same run; actions, hands and settled hands per second; the settlement
backlog; errors; lost or duplicated actions; and the server processes' CPU
and peak memory. With ``--idle K`` it first measures the server memory taken
by K idle sockets. It prints a table and writes JSON to ``bench/results/``.

    python -m bench.tables --tables 100 --game tienlen --seconds 60
    python -m bench.tables --tables 10 --game mix --idle 2000
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import os
import random
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RESULTS = ROOT / "bench" / "results"
GAMES = ("tienlen", "holdem", "maubinh")
GRACE_S = 3.0


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raise_file_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# -- the stack ------------------------------------------------------------------


def bench_database(url: str) -> str:
    """A fresh database ``<name>_bench`` on the server of ``url``."""
    import psycopg

    parts = urlsplit(url)
    name = (parts.path.lstrip("/") or "vipgame") + "_bench"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


@dataclass
class Stack:
    env: dict[str, str]
    ports: tuple[int, int]
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)


@contextlib.contextmanager
def stack(workdir: Path) -> Iterator[Stack]:
    run = secrets.token_hex(4)
    env = dict(os.environ)
    if not env.get("DATABASE_URL"):
        from vipgame import devpostgres

        env["DATABASE_URL"] = devpostgres.start(workdir)
    redis_process = None
    if not env.get("REDIS_URL"):
        from vipgame import devredis

        socket = workdir / "redis.sock"
        redis_process = devredis.start(socket)
        env["REDIS_URL"] = f"unix://{socket}"
    env.update(
        DATABASE_URL=bench_database(env["DATABASE_URL"]),
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        SECURE_SSL_REDIRECT="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING",
        CHANNEL_PREFIX=f"bench-{run}",
        CACHE_PREFIX=f"bench-{run}",
        CELERY_QUEUE=f"bench-{run}",
        VAR_DIR=str(workdir),
        PATH=f"{BIN}:{env.get('PATH', '')}",
    )
    os.environ.update(env)
    ports = (free_port(), free_port())
    result = Stack(env, ports)
    try:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True
        )
        for name, port in zip(("daphne-a", "daphne-b"), ports, strict=True):
            result.processes[name] = launch(
                [
                    str(BIN / "daphne"),
                    "-b",
                    "127.0.0.1",
                    "-p",
                    str(port),
                    "vipgame.asgi:application",
                ],
                env,
                workdir / f"{name}.log",
            )
        result.processes["celery"] = launch(
            [str(BIN / "celery"), "-A", "vipgame", "worker", "--beat", "-l", "WARNING",
             "--concurrency", "2", "--schedule", str(workdir / "beat-schedule")],
            env,
            workdir / "celery.log",
        )  # fmt: skip
        for port in ports:
            wait_http(port)
        yield result
    finally:
        for process in result.processes.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 15)
        for process in result.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
        if redis_process is not None:
            redis_process.terminate()


def launch(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=raise_file_limit,
        )


def wait_http(port: int, timeout: float = 60) -> None:
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(requests.ConnectionError):
            requests.get(f"http://127.0.0.1:{port}/", timeout=2)
            return
        time.sleep(0.2)
    raise RuntimeError(f"no server on port {port}")


class Monitor:
    """Samples the server processes' CPU time and memory twice a second."""

    def __init__(self, processes: dict[str, subprocess.Popen[bytes]]) -> None:
        import psutil

        self.procs = {name: psutil.Process(p.pid) for name, p in processes.items()}
        self.peak: dict[str, int] = dict.fromkeys(self.procs, 0)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _tree(self, name: str) -> list[Any]:
        proc = self.procs[name]
        try:
            return [proc, *proc.children(recursive=True)]
        except Exception:
            return []

    def rss(self, name: str) -> int:
        total = 0
        for proc in self._tree(name):
            with contextlib.suppress(Exception):
                total += proc.memory_info().rss
        return total

    def cpu(self) -> dict[str, float]:
        times = {}
        for name in self.procs:
            total = 0.0
            for proc in self._tree(name):
                with contextlib.suppress(Exception):
                    t = proc.cpu_times()
                    total += t.user + t.system
            times[name] = total
        return times

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            for name in self.procs:
                self.peak[name] = max(self.peak[name], self.rss(name))

    def __enter__(self) -> Monitor:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


# -- the players ----------------------------------------------------------------


@dataclass
class TableSpec:
    id: int
    game: str
    tokens: list[str]


def create_tables(count: int, game: str) -> list[TableSpec]:
    import django

    django.setup()
    from django.conf import settings
    from rest_framework.authtoken.models import Token

    from games import services
    from vipgame.accounts.services import user_register

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    specs = []
    for n in range(count):
        kind = GAMES[n % len(GAMES)] if game == "mix" else game
        users = [
            user_register(username=f"b{n}-{i}", display_name=f"B{n}", password="Bench-Tien-Len-42")
            for i in range(4)
        ]
        table = services.table_create(owner=users[0], game=kind, stake=1, seat_count=4)
        for position, user in enumerate(users):
            buy_in = table.buy_in_range()[1] if kind == "holdem" else None
            services.table_sit(table_id=table.pk, user=user, position=position, buy_in=buy_in)
        specs.append(TableSpec(table.pk, kind, [Token.objects.create(user=u).key for u in users]))
    return specs


@dataclass
class Action:
    table: int
    sent: float
    version: int | None = None  # the table version the action produced (from its ack)
    duplicate: bool = False
    refused: str | None = None


class Run:
    def __init__(self, specs: list[TableSpec], window: tuple[float, float]) -> None:
        self.specs = specs
        self.window = window
        self.actions: dict[str, Action] = {}
        self.arrivals: dict[tuple[int, int], tuple[list[int], list[float]]] = {}
        self.pings: list[float] = []
        self.errors: Counter[str] = Counter()
        self.disconnects = 0

    def arrived(self, table: int, position: int, version: int, at: float) -> None:
        versions, times = self.arrivals.setdefault((table, position), ([], []))
        if not versions or version > versions[-1]:
            versions.append(version)
            times.append(at)

    def reached_all(self, table: int, version: int) -> float | None:
        """When the last seat of the table first had ``version`` or later."""
        latest = 0.0
        for position in range(4):
            versions, times = self.arrivals.get((table, position), ([], []))
            i = bisect.bisect_left(versions, version)
            if i == len(versions):
                return None
            latest = max(latest, times[i])
        return latest

    def in_window(self, at: float) -> bool:
        return self.window[0] <= at < self.window[1]


class Player:
    def __init__(self, run: Run, spec: TableSpec, position: int, port: int) -> None:
        from games.rules.holdem.engine import ENGINE as holdem
        from games.rules.maubinh.engine import ENGINE as maubinh
        from games.rules.tienlen.engine import ENGINE as tienlen

        self.engines = {"holdem": holdem, "maubinh": maubinh, "tienlen": tienlen}
        self.run, self.spec, self.position = run, spec, position
        self.url = f"ws://127.0.0.1:{port}/ws/tables/{spec.id}/"
        self.token = spec.tokens[position]
        self.pending: str | None = None
        self.readied_for: int | None = None
        self.bought_for: int | None = None
        self.counter = 0
        self.rng = random.Random(spec.id * 10 + position)

    async def play(self, until: float) -> None:
        from websockets.asyncio.client import connect

        while time.perf_counter() < until:
            try:
                async with connect(
                    self.url,
                    additional_headers={"Authorization": f"Token {self.token}"},
                    max_size=2**20,
                    open_timeout=30,
                    ping_interval=None,
                ) as ws:
                    self.pending = None
                    await ws.send(json.dumps({"type": "sync", "v": 0}))
                    pinger = asyncio.create_task(self.ping(ws, until))
                    try:
                        await self.listen(ws, until)
                    finally:
                        pinger.cancel()
                    return
            except (TimeoutError, OSError) as exc:
                self.run.errors[f"connect:{type(exc).__name__}"] += 1
                await asyncio.sleep(0.5)
            except Exception as exc:
                self.run.disconnects += 1
                self.run.errors[f"socket:{type(exc).__name__}"] += 1
                await asyncio.sleep(0.2)

    async def ping(self, ws: Any, until: float) -> None:
        await asyncio.sleep(self.rng.random() * 2)
        while time.perf_counter() < until:
            await ws.send(json.dumps({"type": "ping", "t": time.perf_counter()}))
            await asyncio.sleep(2)

    async def listen(self, ws: Any, until: float) -> None:
        while True:
            left = until - time.perf_counter()
            if left <= 0:
                return
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=left)
            except TimeoutError:
                return
            now = time.perf_counter()
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "state":
                self.run.arrived(self.spec.id, self.position, message["v"], now)
                await self.decide(ws, message)
            elif kind == "ack" and message.get("id") in self.run.actions:
                action = self.run.actions[message["id"]]
                action.version, action.duplicate = message.get("v"), bool(message.get("duplicate"))
                if message["id"] == self.pending:
                    self.pending = None
            elif kind == "error":
                self.run.errors[str(message.get("code"))] += 1
                if message.get("id") in self.run.actions:
                    self.run.actions[message["id"]].refused = message.get("code")
                if message.get("id") == self.pending:
                    self.pending = None
            elif (
                kind == "pong"
                and isinstance(message.get("t"), float)
                and self.run.in_window(message["t"])
            ):
                self.run.pings.append(now - message["t"])

    async def decide(self, ws: Any, state: dict[str, Any]) -> None:
        if time.perf_counter() >= self.run.window[1]:
            return  # the window is over: only listen
        table, hand = state["table"], state["hand"]
        seat = next((s for s in table["seats"] if s["position"] == self.position), None)
        if seat is None:
            return
        if table["status"] == "waiting" and not seat["ready"]:
            played = table["hands_played"]
            if self.spec.game == "holdem" and not seat["chips"] and self.bought_for != played:
                self.bought_for = played
                await ws.send(json.dumps({"type": "buy_in", "id": self.next_id(), "amount": 200}))
            if self.readied_for != played or seat["sitting_out"]:
                self.readied_for = played
                ready = {"type": "ready", "id": self.next_id(), "client_seed": secrets.token_hex(8)}
                await ws.send(json.dumps(ready))
            return
        if hand is None or hand["finished"] or self.pending is not None or not hand["view"]:
            return
        action = self.choose(hand["view"])
        if action is None:
            return
        client_id = self.next_id()
        self.pending = client_id
        self.run.actions[client_id] = Action(self.spec.id, time.perf_counter())
        act = {"type": "act", "id": client_id, "v": state["v"], "action": action}
        await ws.send(json.dumps(act))

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """Move at once when it is this seat's turn; Hold'em checks or calls."""
        game = self.spec.game
        if game == "tienlen":
            if view["turn"] is None or view["turn"] != view["seat"]:
                return None
            return dict(self.engines[game].bot_action(view, self.counter))
        if game == "holdem":
            if view["to_act"] is None or view["to_act"] != view["player"]:
                return None
            return {"type": "check"} if not view["to_call"] else {"type": "call"}
        me = view.get("me")
        if view["phase"] != "arrange" or me is None or view["seats"][me]["submitted"]:
            return None
        return dict(self.engines[game].bot_action(view, self.counter))

    def next_id(self) -> str:
        self.counter += 1
        return f"{self.spec.id}.{self.position}.{self.counter}"


async def drive(
    specs: list[TableSpec], ports: tuple[int, int], warmup: float, seconds: float
) -> Run:
    """Play until the window closes, then listen a little longer (no new moves)
    so that the last moves' states can arrive."""
    start = time.perf_counter()
    run = Run(specs, (start + warmup, start + warmup + seconds))
    players = [
        Player(run, spec, position, ports[position % 2]) for spec in specs for position in range(4)
    ]
    await asyncio.gather(*(p.play(run.window[1] + GRACE_S) for p in players))
    return run


async def idle_sockets(count: int, specs: list[TableSpec], ports: tuple[int, int]) -> list[Any]:
    """Open ``count`` spectator sockets and keep them open (returns them)."""
    from websockets.asyncio.client import connect

    sockets = []
    for n in range(count):
        spec = specs[n % len(specs)]
        ws = await connect(f"ws://127.0.0.1:{ports[n % 2]}/ws/tables/{spec.id}/", open_timeout=30)
        await ws.recv()  # the first state: the socket is fully set up
        sockets.append(ws)
    return sockets


# -- the report -------------------------------------------------------------------


def database_checks(started: float) -> dict[str, Any]:
    from django.db.models import Sum

    from games.models import Hand
    from wallet.models import Account, LedgerTransaction

    finished = Hand.objects.filter(ended_at__isnull=False)
    keys = Counter(
        LedgerTransaction.objects.filter(idempotency_key__startswith="hand:").values_list(
            "idempotency_key", flat=True
        )
    )
    return {
        "sum_of_balances": Account.objects.aggregate(total=Sum("balance"))["total"],
        "negative_balances": Account.objects.exclude(kind=Account.Kind.ISSUANCE)
        .filter(balance__lt=0)
        .count(),
        "hands_finished": finished.count(),
        "hands_unsettled": finished.filter(settled=False).count(),
        "settled_twice": sum(1 for n in keys.values() if n > 1),
        "hands_in_play": Hand.objects.filter(ended_at__isnull=True).count(),
    }


def backlog_sampler(stop: threading.Event, samples: list[tuple[float, int, int, int]]) -> None:
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
    latencies, lost, refused = [], 0, Counter()
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
        "ping_ms": {q: percentile(pings, q) for q in (50, 95, 99)},
        "pings": len(pings),
        "lost_actions": lost,
        "duplicated_actions": sum(1 for (t, v), n in versions.items() if n > 1),
        "acked_as_duplicate": sum(1 for a in measured if a.duplicate),
        "refused_actions": dict(refused),
        "errors": dict(run.errors),
        "reconnects": run.disconnects,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--game", choices=[*GAMES, "mix"], default="tienlen")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=10)
    parser.add_argument("--idle", type=int, default=0, help="idle sockets to measure first")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    raise_file_limit()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")
    sys.path.insert(0, str(ROOT))
    result: dict[str, Any] = {"config": vars(args) | {"json": None}}
    with tempfile.TemporaryDirectory(prefix="vipgame-bench-") as tmp, stack(Path(tmp)) as s:
        specs = create_tables(args.tables, args.game)
        with Monitor(s.processes) as monitor:
            if args.idle:
                result["idle"] = measure_idle(args.idle, specs, s, monitor)
            samples: list[tuple[float, int, int, int]] = []
            stop = threading.Event()
            sampler = threading.Thread(target=backlog_sampler, args=(stop, samples), daemon=True)
            sampler.start()
            cpu_before: dict[str, float] = {}
            timer = threading.Timer(args.warmup, lambda: cpu_before.update(monitor.cpu()))
            timer.start()
            run = asyncio.run(drive(specs, s.ports, args.warmup, args.seconds))
            cpu_after = monitor.cpu()
            stop.set()
            sampler.join()
            time.sleep(4)  # let the last settlements land before the money checks
            result["load"] = summarise(run, args.seconds)
            window = [x for x in samples if run.in_window(x[0])]
            if len(window) >= 2:
                span = window[-1][0] - window[0][0]
                result["load"]["hands_per_s"] = (window[-1][1] - window[0][1]) / span
                result["load"]["settled_per_s"] = (window[-1][2] - window[0][2]) / span
                result["load"]["backlog"] = {
                    "first": window[0][3],
                    "max": max(x[3] for x in window),
                    "last": window[-1][3],
                }
            result["servers"] = {
                name: {
                    "cpu_s": round(cpu_after[name] - cpu_before.get(name, 0.0), 2),
                    "cpu_percent": round(
                        100 * (cpu_after[name] - cpu_before.get(name, 0.0)) / args.seconds, 1
                    ),
                    "peak_rss_mb": round(monitor.peak[name] / 2**20, 1),
                }
                for name in s.processes
            }
        result["money"] = database_checks(0)
    report(result)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = args.json or RESULTS / f"tables-{args.game}-{args.tables}.json"
    path.write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwrote {path}")


def measure_idle(count: int, specs: list[TableSpec], s: Stack, monitor: Monitor) -> dict[str, Any]:
    names = ["daphne-a", "daphne-b"]
    time.sleep(2)
    before = {n: monitor.rss(n) for n in names}

    async def hold() -> dict[str, int]:
        sockets = await idle_sockets(count, specs, s.ports)
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


def report(result: dict[str, Any]) -> None:
    config = result["config"]
    print(f"\n{config['tables']} four-seat tables, game {config['game']}, {config['seconds']} s")
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
        ("action -> every seat, p50/p95/p99 ms",
         " / ".join(ms(load["latency_ms"][q]) for q in (50, 95, 99))),
        ("ping round trip, p50/p95/p99 ms",
         " / ".join(ms(load["ping_ms"][q]) for q in (50, 95, 99))),
        ("hands/s, settled/s",
         f"{load.get('hands_per_s', 0):.2f}, {load.get('settled_per_s', 0):.2f}"),
        ("settlement backlog first/max/last", str(load.get("backlog"))),
        ("lost / duplicated actions", f"{load['lost_actions']} / {load['duplicated_actions']}"),
        ("refused actions", str(load["refused_actions"])),
        ("errors", str(load["errors"])),
    ]  # fmt: skip
    for name, server in result["servers"].items():
        rows.append(
            (f"{name}: cpu, peak memory",
             f"{server['cpu_s']} s ({server['cpu_percent']} %), {server['peak_rss_mb']} MB")
        )  # fmt: skip
    money = result["money"]
    rows.append(
        ("money: sum, negative, unsettled, settled twice",
         f"{money['sum_of_balances']}, {money['negative_balances']}, "
         f"{money['hands_unsettled']}, {money['settled_twice']}")
    )  # fmt: skip
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


if __name__ == "__main__":
    main()
