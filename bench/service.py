"""The table services alone: what one move costs, with no socket and no Celery.

Drives ``services.table_act`` directly against PostgreSQL in one thread (one
core), four human players per table moving with the bot policy, tables taken
in turn so each move finds a different table row. Per move it measures the
service thread's CPU time (``time.thread_time``) and wall time, the SQL
statements sent, PostgreSQL's CPU (the backend process of this connection,
from ``/proc``), and the bytes the move publishes (every message JSON-encoded;
nothing is sent: the transport is measured by ``bench.transport``). Choosing a
move (the bot policy on the player's view, read from the database) happens
between timed moves and is not counted. The work between hands is timed apart
(``between_hands``): the settlement of each finished hand and the end of its
summary (Celery's work in the whole stack), then each player's seed and Ready,
as the browser sends them; and (``state``) every tenth move, the full state
a socket reads when it connects or asks for a sync.

It creates a fresh database ``<name>_bench`` from ``DATABASE_URL`` (the
server must be PostgreSQL), migrates it, prints a table and writes JSON to
``bench/results/service-<game>.json``.

    python -m bench.service --game tienlen --moves 3000
    python -m bench.service --game holdem --moves 3000 --tables 50
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

from bench.players import most_buy_in
from bench.stack import django_in_process, percentile, write_results


def _p(values: list[float], q: float) -> float:
    found = percentile(values, q)
    assert found is not None  # (a run measures at least one move)
    return found


def _backend_cpu(pid: int) -> float:
    """CPU seconds of a PostgreSQL backend process (same machine)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


class Recorder:
    """Stands in for Celery: keeps what would be queued."""

    def __init__(self) -> None:
        self.settlements: list[int] = []

    def timer(self, *args: Any) -> None: ...

    def bot_move(self, *args: Any) -> None: ...

    def bot_ready(self, *args: Any) -> None: ...

    def settle(self, hand_id: int) -> None:
        self.settlements.append(hand_id)


# ``--phases``: the parts of a timed move, each timed in thread CPU (no
# profiler: only these functions are wrapped): (label, where, name), where is
# a module, a module and class ("module:Class"), or "engine" (the game's).
PHASES = [
    ("the move (table_act and its transaction)", "games.services", "table_act"),
    ("sql.lock_table: the table row, locked", "games.sql", "lock_table"),
    ("load_move: the hand and the seats in short", "games.services.work:TableWork", "load_move"),
    ("sql.hand_and_refs: their statement", "games.sql", "hand_and_refs"),
    ("engine.loads: the state from its JSON", "engine", "loads"),
    ("engine.apply: the rules", "engine", "apply"),
    ("TableWork.commit: what changed, written", "games.services.work:TableWork", "commit"),
    ("sql.write: the one write", "games.sql", "write"),
    ("engine.dumps: the state to JSON", "engine", "dumps"),
    ("the commit (psycopg)", "psycopg:Connection", "commit"),
    ("aftercommit.run: after the commit", "games.aftercommit", "run"),
    ("Publication.messages: every recipient's message", "games.publish:Publication", "messages"),
    ("engine.view: the spectators' views", "engine", "view"),
    ("engine.personal_view: each seat's own", "engine", "personal_view"),
    ("publish.send (here: encoding to count bytes)", "games.publish", "send"),
]


class Phases:
    """Thread CPU spent in each of ``PHASES`` during timed moves (nested:
    a part includes the parts it calls)."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {label: 0.0 for label, _, _ in PHASES}
        self.calls: Counter[str] = Counter()
        self.timing = False

    def install(self, engine: Any) -> None:
        import importlib

        for label, where, name in PHASES:
            target: Any
            if where == "engine":
                target = type(engine)
            else:
                module, _, owner = where.partition(":")
                target = importlib.import_module(module)
                if owner:
                    target = getattr(target, owner)
            setattr(target, name, self._wrap(label, getattr(target, name)))

    def _wrap(self, label: str, function: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if not self.timing:
                return function(*args, **kwargs)
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.cpu[label] += time.thread_time() - started
                self.calls[label] += 1

        return timed

    def report(self, moves: int) -> dict[str, dict[str, float]]:
        return {
            label: {
                "cpu_ms_per_move": round(self.cpu[label] * 1000 / moves, 3),
                "calls_per_move": round(self.calls[label] / moves, 2),
            }
            for label, _, _ in PHASES
            if self.calls[label]
        }


def run(
    game: str,
    tables: int,
    moves: int,
    warmup: int,
    profile: Any = None,
    phases: Phases | None = None,
) -> dict[str, Any]:
    from django.conf import settings
    from django.db import connection

    from games import publish, scheduling, selectors, services
    from games.errors import NotEnoughChips
    from games.models import Hand, Seat, Table
    from games.plugins import engine_for
    from wallet.services import player_signup

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SEED_GRACE_MS = 0  # nobody is connected: no seed to wait for
    recorder = Recorder()
    scheduling.scheduler = recorder
    published: list[int] = []
    kinds: list[str] = []

    def measure(messages: Any, **_: Any) -> None:
        published.append(sum(len(json.dumps(m, separators=(",", ":"))) for _, m in messages))
        kinds.extend(str((m.get("payload") or {}).get("type")) for _, m in messages)

    publish.send = measure
    if phases is not None:
        phases.install(engine_for(game))  # (after the stand-in for send: timed too)
    statements = [0]

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements[0] += 1
        return execute(sql, params, many, context)

    engine = engine_for(game)
    ids = []
    for n in range(tables):
        users = [
            player_signup(username=f"s{n}-{i}", display_name=f"P{n}{i}", password="Bench-42-x")
            for i in range(4)
        ]
        table = services.table_create(owner=users[0], game=game, stake=1, seat_count=4)
        for position, user in enumerate(users):
            buy_in = most_buy_in(table)
            services.table_sit(table_id=table.pk, user=user, position=position, buy_in=buy_in)
        ids.append(table.pk)

    # Between hands, each player does what the browser does: sends a new seed
    # for the next commitment (``seed``), then presses Ready with it (``ready``).
    # Timed like a move (thread CPU, statements) once the warm-up is over.
    # Ready is split by whether it dealt the hand (the last player's does).
    between: dict[str, dict[str, list[float]]] = {
        name: {"cpu": [], "statements": []}
        for name in ("seed", "ready", "ready_that_deals", "settle", "summary_ends", "state")
    }

    def hands_played(table_id: int) -> int:
        return Table.objects.values_list("hands_played", flat=True).get(pk=table_id)

    def timed(name: str, table_id: int, call: Any) -> None:
        """``call()`` timed as ``name``, a service call at ``table_id``."""
        before = hands_played(table_id)
        statements[0] = 0
        started = time.thread_time()
        with connection.execute_wrapper(count):
            call()
        elapsed = (time.thread_time() - started) * 1000
        if name == "ready" and hands_played(table_id) != before:
            name = "ready_that_deals"
        if name == "summary_ends" and Table.objects.get(pk=table_id).status == Table.Status.SUMMARY:
            return  # (its clock has not run out yet: nothing done, not counted)
        if done >= warmup:
            between[name]["cpu"].append(elapsed)
            between[name]["statements"].append(statements[0])

    def ready(table_id: int) -> None:
        """Ready everyone; a Hold'em player who went broke buys in again first."""
        commitment = Table.objects.values_list("next_commitment", flat=True).get(pk=table_id)
        for seat in Seat.objects.filter(table_id=table_id, ready=False).select_related("user"):
            seed = os.urandom(8).hex()
            mine: dict[str, Any] = {
                "table_id": table_id,
                "user": seat.user,
                "client_seed": seed,
                "commitment": commitment,
            }
            timed("seed", table_id, partial(services.table_seed, **mine))
            try:
                timed("ready", table_id, partial(services.table_ready, **mine))
            except NotEnoughChips:
                table = Table.objects.get(pk=table_id)
                services.table_buy_in(table_id=table_id, user=seat.user, amount=most_buy_in(table))
                services.table_ready(table_id=table_id, user=seat.user, client_seed=seed)

    def next_move(table_id: int) -> tuple[Any, Any, int] | None:
        """(user, action, version) of the next human move, after ending a
        finished hand and dealing the next (not timed)."""
        for _ in range(10):
            table = Table.objects.get(pk=table_id)
            hand = (
                None
                if table.current_hand_id is None
                else Hand.objects.get(pk=table.current_hand_id)
            )
            if hand is None or hand.ended_at is not None:
                while recorder.settlements:
                    hand_id = recorder.settlements.pop()
                    timed("settle", table_id, partial(services.hand_settle, hand_id=hand_id))
                table.refresh_from_db()
                if table.status == Table.Status.SUMMARY and table.deadline is not None:
                    timeout = partial(
                        services.table_timeout, table_id=table_id, clock_version=table.clock_version
                    )
                    timed("summary_ends", table_id, timeout)
                ready(table_id)
                continue
            state = engine.loads(hand.state)
            actors = engine.status(state).actors
            if not actors:
                services.table_timeout(table_id=table_id, clock_version=table.clock_version)
                continue
            player = actors[0]
            seat = Seat.objects.select_related("user").get(
                table_id=table_id, user_id=hand.players[player]["user_id"]
            )
            action = engine.bot_action(engine.view(state, player), seed=table.version)
            return seat.user, action, table.version
        return None

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    cpu, wall, counts, sizes = [], [], [], []
    sent_as: list[str] = []
    pg_cpu = 0.0
    done = 0
    turn = 0
    while done < warmup + moves:
        table_id = ids[turn % len(ids)]
        turn += 1
        move = next_move(table_id)
        if move is None:
            continue
        user, action, version = move
        published.clear()
        kinds.clear()
        statements[0] = 0
        pg_before = _backend_cpu(backend)
        started_cpu, started = time.thread_time(), time.perf_counter()
        if profile is not None and done >= warmup:
            profile.enable()
        if phases is not None:
            phases.timing = done >= warmup
        with connection.execute_wrapper(count):
            services.table_act(
                table_id=table_id, user=user, action=action, client_id=f"m{done}", version=version
            )
        if profile is not None:
            profile.disable()
        if phases is not None:
            phases.timing = False
        elapsed_cpu, elapsed = time.thread_time() - started_cpu, time.perf_counter() - started
        pg = _backend_cpu(backend) - pg_before
        done += 1
        if done <= warmup:
            continue
        cpu.append(elapsed_cpu * 1000)
        wall.append(elapsed * 1000)
        counts.append(statements[0])
        sizes.append(sum(published))
        sent_as.append("delta" if "delta" in kinds else "state")
        pg_cpu += pg
        if done % 10 == 0:
            # What a socket reads when it connects or asks for a sync (the
            # mover's full state), every tenth move.
            read = partial(selectors.table_state, table_id=table_id, user=user)
            timed("state", table_id, read)
    mean_cpu = statistics.fmean(cpu)
    return {
        "game": game,
        "tables": tables,
        "moves": len(cpu),
        "moves_per_s_one_core": round(1000 / (mean_cpu + pg_cpu * 1000 / len(cpu)), 1),
        "service_cpu_ms": {
            "mean": round(mean_cpu, 3),
            "p50": round(_p(cpu, 50), 3),
            "p99": round(_p(cpu, 99), 3),
        },
        "wall_ms": {
            "mean": round(statistics.fmean(wall), 3),
            "p50": round(_p(wall, 50), 3),
        },
        "postgres_cpu_ms_per_move": round(pg_cpu * 1000 / len(cpu), 3),
        "statements_per_move": {
            "mean": round(statistics.fmean(counts), 2),
            "histogram": dict(sorted(Counter(counts).items())),
        },
        # Moves of a running hand go out as deltas; the hand's last move (and
        # any that changes the seats) as full states.
        "moves_sent_as_deltas": round(sent_as.count("delta") / len(sent_as), 3),
        "bytes_per_delta_move": round(
            statistics.fmean(
                [b for b, k in zip(sizes, sent_as, strict=True) if k == "delta"] or [0]
            )
        ),
        "bytes_per_full_state_move": round(
            statistics.fmean(
                [b for b, k in zip(sizes, sent_as, strict=True) if k == "state"] or [0]
            )
        ),
        "bytes_published_per_move": {
            "mean": round(statistics.fmean(sizes)),
            "p50": _p([float(s) for s in sizes], 50),
        },
        "between_hands": {
            name: {
                "calls": len(values["cpu"]),
                "service_cpu_ms": round(statistics.fmean(values["cpu"] or [0]), 3),
                "statements": round(statistics.fmean(values["statements"] or [0]), 2),
            }
            for name, values in between.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--game", choices=["tienlen", "holdem", "maubinh"], default="tienlen")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument(
        "--phases",
        action="store_true",
        help="also time the parts of a move in thread CPU (a few wrapped functions, "
        "no profiler) and print them",
    )
    parser.add_argument(
        "--profile",
        type=int,
        metavar="N",
        default=0,
        help="also profile the timed moves (cProfile: its overhead inflates the times) "
        "and print the N functions with the most cumulative time",
    )
    args = parser.parse_args()
    django_in_process()
    profile = cProfile.Profile() if args.profile else None
    phases = Phases() if args.phases else None
    result = run(args.game, args.tables, args.moves, args.warmup, profile, phases)
    if phases is not None:
        result["phases"] = phases.report(result["moves"])
    if profile is not None:
        stats = pstats.Stats(profile)
        stats.sort_stats("cumulative").print_stats(args.profile)
        stats.sort_stats("tottime").print_stats(args.profile)
    result["command"] = " ".join(["python -m bench.service", *sys.argv[1:]])
    result["date"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    print(json.dumps(result, indent=2))
    write_results(result, f"service-{args.game}")


if __name__ == "__main__":
    main()
