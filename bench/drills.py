"""Fault drills: the stack loses a process mid-hand and the room carries on.

* ``daphne``: ``kill -9`` one of the two Daphne processes mid-hand. Its
  players reconnect to the other one, resync by version, and every hand that
  was in play completes.
* ``celery``: ``kill -9`` the Celery worker while turn clocks are pending and
  start a new one. The sweeper (beat) fires every clock within its deadline
  + 5 s.
* ``redis``: restart Redis (the stack's own; everything in it is lost) mid-hand.
  Players resync and play on; hands keep finishing; no process exits.
* ``sentinel``: every role on a Sentinel-watched primary (bench/sentinel.py);
  ``kill -9`` the primary mid-hand. The sentinels promote the replica, every
  process follows it (no process exits or is restarted), and no table pauses
  longer than ``SENTINEL_MOVES_AGAIN_S``.
* ``postgres``: PostgreSQL ends every connection of the servers mid-hand,
  twice (``pg_terminate_backend``, as a restart or a fail-over would). The
  messages in flight get ``server_error``, the sockets stay open, hands keep
  finishing, and nothing is logged as an error.

After every drill: Σ balances = 0, no negative balance, every finished hand
settled exactly once, no hand stuck, no traceback in the servers' logs.

    python -m bench.drills all
    python -m bench.drills celery --tables 6
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.players import Run, TableSpec, create_tables, money_ok, players_for, settled_money_checks
from bench.stack import RESULTS, Stack, setup_django, wait_until, write_results

TIMERS = {"turn_seconds": 8, "summary_seconds": 2, "reveal_seconds": 1}


def urls(stack: Stack) -> list[str]:
    return [f"ws://127.0.0.1:{port}" for port in stack.ports]


def hands_in_play(specs: list[TableSpec]) -> dict[int, int]:
    """table -> the hand in play there (if any)."""
    from games.models import Table

    return dict(
        Table.objects.filter(pk__in=[s.id for s in specs], current_hand__ended_at__isnull=True)
        .exclude(current_hand=None)
        .values_list("pk", "current_hand_id")
    )


def wait_for_hands(specs: list[TableSpec]) -> dict[int, int] | None:
    """The hands in play to interrupt: every table's, if every table is mid-hand
    within a minute (on a loaded machine, the other half of a parallel test
    run, the first deals can take that long), else those of the tables that
    are mid-hand within the next minute; None if none is."""

    def every_table() -> dict[int, int] | None:
        playing = hands_in_play(specs)
        return playing if len(playing) == len(specs) else None

    return wait_until(every_table, 60) or wait_until(lambda: hands_in_play(specs), 60)


def play_in_background(run: Run, specs: list[TableSpec], stack: Stack) -> threading.Thread:
    players = players_for(run, specs, urls(stack))

    def main() -> None:
        async def everyone() -> None:
            await asyncio.gather(*(p.play(run.window[1]) for p in players))

        asyncio.run(everyone())

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    return thread


def finished_hands(hand_ids: list[int]) -> bool:
    from games.models import Hand

    return Hand.objects.filter(pk__in=hand_ids, settled=True).count() == len(hand_ids)


def hands_finished_since(specs: list[TableSpec], after: float) -> int:
    from datetime import UTC, datetime

    from games.models import Hand

    moment = datetime.fromtimestamp(after, tz=UTC)
    return Hand.objects.filter(
        table__in=[s.id for s in specs], ended_at__gt=moment, settled=True
    ).count()


def final_checks(
    stack: Stack, result: dict[str, Any], specs: list[TableSpec], *, quiet_logs: bool = True
) -> None:
    """Money right, nothing stuck and (``quiet_logs``) no traceback in the logs."""
    from games.models import Table

    # Stop the players' tables from dealing again, then let the last hands settle.
    result["money"] = settled_money_checks(20)
    now_overdue = Table.objects.filter(
        pk__in=[s.id for s in specs], deadline__lt=_seconds_ago(15)
    ).count()
    result["stuck_tables"] = now_overdue
    result["server_errors"] = stack.errors_in_logs()[:20]
    result["passed"] = bool(
        result.get("passed", True)
        and money_ok(result["money"])
        and now_overdue == 0
        and not (quiet_logs and result["server_errors"])
    )


def _seconds_ago(seconds: float) -> Any:
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(seconds=seconds)


def players_mid_hand(
    stack: Stack, tables: int, prefix: str
) -> tuple[list[TableSpec], Run, threading.Thread, list[int]]:
    """Tiến Lên tables with socket players playing in the background, once
    every table has a hand in play: (tables, the run, its thread, those hands)."""
    specs = create_tables(tables, "tienlen", prefix=prefix, **TIMERS)
    start = time.perf_counter()
    run = Run((start, start + 150))
    thread = play_in_background(run, specs, stack)
    # On a loaded machine (the other half of a parallel test run) the first
    # deals can take a while: wait up to a minute for every table's hand.
    in_play = wait_for_hands(specs)
    return specs, run, thread, list((in_play or {}).values())


# -- the drills -------------------------------------------------------------------


def drill_daphne(stack: Stack, tables: int) -> dict[str, Any]:
    """Kill one Daphne mid-hand: its players move to the other, hands complete."""
    specs, run, thread, interrupted = players_mid_hand(stack, tables, "dd")
    killed_at = time.time()
    stack.kill("daphne-a")
    completed = wait_until(lambda: finished_hands(interrupted), timeout=40)
    more = wait_until(lambda: hands_finished_since(specs, killed_at) >= 2 * len(specs), 40)
    run.stop()  # the players stop, now
    thread.join(timeout=30)
    result: dict[str, Any] = {
        "drill": "daphne",
        "tables": tables,
        "hands_interrupted": len(interrupted),
        "interrupted_hands_completed": bool(completed and interrupted),
        "hands_completed_after_kill": hands_finished_since(specs, killed_at),
        "reconnects": run.reconnects,
        "errors": dict(run.errors),
        "resent": dict(run.resent),
    }
    result["passed"] = bool(completed and interrupted and more and run.reconnects > 0)
    stack.start("daphne-a")
    stack.wait_ready("daphne-a")
    final_checks(stack, result, specs)
    return result


def drill_celery(stack: Stack, tables: int) -> dict[str, Any]:
    """Kill the worker with turn clocks pending: the restarted worker's sweeper
    fires each of them within deadline + 5 s."""
    from games.models import Table

    specs = create_tables(tables, "tienlen", prefix="dc", **TIMERS)
    start = time.perf_counter()
    run = Run((start, start + 120))
    thread = play_in_background(run, specs, stack)
    # On a loaded machine (the other half of a parallel test run) the first
    # deals can take a while: wait for them, then for every table's turn clock.
    wait_until(lambda: len(hands_in_play(specs)) == len(specs), 60)
    run.acting = False  # the players think: every table's turn clock is pending
    time.sleep(1)
    ids = [s.id for s in specs]
    wait_until(lambda: Table.objects.filter(pk__in=ids, clock="turn").exists(), 20)
    pending = {
        t.pk: (t.deadline, t.clock_version) for t in Table.objects.filter(pk__in=ids, clock="turn")
    }
    stack.kill("celery")
    time.sleep(2)
    stack.start("celery")
    fired: dict[int, float] = {}

    def all_fired() -> bool:
        for table in Table.objects.filter(pk__in=pending):
            if table.pk not in fired and table.clock_version > pending[table.pk][1]:
                fired[table.pk] = time.time()
        return len(fired) == len(pending)

    wait_until(all_fired, timeout=30, step=0.1)
    late = {
        table: round(fired[table] - deadline.timestamp(), 2)
        for table, (deadline, _) in pending.items()
        if table in fired and deadline is not None
    }
    run.acting = True
    time.sleep(5)  # the players play on for a while
    run.stop()
    thread.join(timeout=30)
    result: dict[str, Any] = {
        "drill": "celery",
        "tables": tables,
        "clocks_pending_at_kill": len(pending),
        "clocks_fired": len(fired),
        "fired_after_deadline_s": late,
        "max_after_deadline_s": max(late.values(), default=None),
    }
    result["passed"] = bool(
        pending and len(fired) == len(pending) and all(v <= 5 for v in late.values())
    )
    final_checks(stack, result, specs)
    return result


def drill_redis(stack: Stack, tables: int) -> dict[str, Any]:
    """Restart Redis mid-hand: players resync and play on."""
    stack.supervise()
    specs, run, thread, interrupted = players_mid_hand(stack, tables, "dr")
    restarted_at = time.time()
    stack.restart_redis(down_for=3.2)  # (as long as the restart of issue 33)
    more = wait_until(lambda: hands_finished_since(specs, restarted_at) >= 2 * len(specs), 60)
    completed = wait_until(lambda: finished_hands(interrupted), timeout=10)
    run.stop()
    thread.join(timeout=30)
    result: dict[str, Any] = {
        "drill": "redis",
        "tables": tables,
        "hands_interrupted": len(interrupted),
        "interrupted_hands_completed": bool(completed and interrupted),
        "hands_completed_after_restart": hands_finished_since(specs, restarted_at),
        "reconnects": run.reconnects,
        "processes_restarted_by_the_supervisor": dict(stack.restarts),
        "errors": dict(run.errors),
        "resent": dict(run.resent),
    }
    # Every process outlives Redis (the worker retries its broker without end;
    # kombu 5.7 no longer dies on the stale connection, celery/kombu#2582):
    # the supervisor, there as systemd is in production, restarts none.
    result["passed"] = bool(completed and interrupted and more and not stack.restarts)
    # Losing Redis makes libraries log tracebacks we cannot prevent (Celery's
    # consumer restarting its steps, channels_redis's receive task reporting
    # the lost connection). They are listed in the result, not counted as failures.
    final_checks(stack, result, specs, quiet_logs=False)
    return result


# The bound the fail-over drill holds every table to: its longest pause (no
# hand event) from the primary's death until play has gone on for a while
# on the promoted replica. A move needs only PostgreSQL, but the others at
# the table hear of it through the channel layer: what was published while
# there was no primary is lost, and they catch up at their next ping (every
# 10 s) or when the turn's clock fires (the sweeper, through the broker, once
# it is back). Measured: docs/operations.md "Redis: roles, Sentinel, fail-over".
SENTINEL_MOVES_AGAIN_S = 20.0


def event_times(specs: list[TableSpec], after: float) -> dict[int, list[float]]:
    """table -> the times of its hand events since ``after``, in order."""
    from datetime import UTC, datetime

    from games.models import HandEvent

    moment = datetime.fromtimestamp(after, tz=UTC)
    times: dict[int, list[float]] = {s.id: [] for s in specs}
    for table, at in (
        HandEvent.objects.filter(hand__table__in=list(times), created_at__gt=moment)
        .order_by("created_at")
        .values_list("hand__table", "created_at")
    ):
        times[table].append(at.timestamp())
    return times


def longest_pauses(times: dict[int, list[float]], start: float, end: float) -> dict[int, float]:
    """table -> its longest time without a hand event between ``start`` and ``end``."""
    pauses = {}
    for table, moments in times.items():
        points = [start, *(t for t in moments if t <= end), end]
        pauses[table] = round(max(b - a for a, b in itertools.pairwise(points)), 2)
    return pauses


def drill_sentinel(stack: Stack, tables: int) -> dict[str, Any]:
    """Kill the Redis primary mid-hand: the sentinels promote the replica and
    no table pauses longer than ``SENTINEL_MOVES_AGAIN_S``; no process exits
    (nothing supervises them here), every interrupted hand completes."""
    group = stack.sentinels
    assert group is not None, "the sentinel drill needs Stack(sentinels=True)"
    specs, run, thread, interrupted = players_mid_hand(stack, tables, "ds")
    killed_at = time.time()
    old = group.kill_primary()
    new = group.wait_for_failover(old, timeout=30)
    promoted_at = time.time()

    def played_on() -> bool:
        """Every table has moved for a while on the new primary."""
        times = event_times(specs, promoted_at)
        return all(moments and moments[-1] > promoted_at + 8 for moments in times.values())

    wait_until(played_on, timeout=SENTINEL_MOVES_AGAIN_S + 20)
    completed = wait_until(lambda: finished_hands(interrupted), timeout=20)
    more = wait_until(lambda: hands_finished_since(specs, killed_at) >= 2 * len(specs), 20)
    ended_at = time.time()
    times = event_times(specs, killed_at)
    pauses = longest_pauses(times, killed_at, ended_at)
    run.stop()
    thread.join(timeout=30)
    exited = sorted(name for name, p in stack.processes.items() if p.poll() is not None)
    result: dict[str, Any] = {
        "drill": "sentinel",
        "tables": tables,
        "hands_interrupted": len(interrupted),
        "interrupted_hands_completed": bool(completed and interrupted),
        "replica_promoted_after_s": round(promoted_at - killed_at, 2) if new else None,
        "longest_pause_s": pauses,
        "bound_s": SENTINEL_MOVES_AGAIN_S,
        "watched_s": round(ended_at - killed_at, 1),
        "moves_after_kill": {table: len(moments) for table, moments in times.items()},
        "hands_completed_after_kill": hands_finished_since(specs, killed_at),
        "processes_exited": exited,
        "reconnects": run.reconnects,
        "errors": dict(run.errors),
        "resent": dict(run.resent),
    }
    result["passed"] = bool(
        completed
        and interrupted
        and more
        and new
        and max(pauses.values()) <= SENTINEL_MOVES_AGAIN_S
        and not exited
    )
    # Losing the primary makes libraries log what they cannot prevent (the
    # channel layer's receive task, Celery's consumer restarting its steps):
    # listed in the result, not counted as failures.
    final_checks(stack, result, specs, quiet_logs=False)
    return result


def drill_postgres(stack: Stack, tables: int) -> dict[str, Any]:
    """PostgreSQL ends every connection of the servers mid-hand, twice, as a
    restart or a fail-over would: what was in flight is answered with
    ``server_error`` (the socket stays open), the workers check their kept
    connection before each task, and the hands complete."""
    specs, run, thread, interrupted = players_mid_hand(stack, tables, "dp")
    dropped_at = time.time()
    dropped = stack.drop_database_connections()
    time.sleep(3)
    dropped += stack.drop_database_connections()
    completed = wait_until(lambda: finished_hands(interrupted), timeout=40)
    more = wait_until(lambda: hands_finished_since(specs, dropped_at) >= 2 * len(specs), 40)
    run.stop()
    thread.join(timeout=30)
    result: dict[str, Any] = {
        "drill": "postgres",
        "tables": tables,
        "connections_dropped": dropped,
        "hands_interrupted": len(interrupted),
        "interrupted_hands_completed": bool(completed and interrupted),
        "hands_completed_after_the_drop": hands_finished_since(specs, dropped_at),
        "reconnects": run.reconnects,
        "errors": dict(run.errors),
        "resent": dict(run.resent),
    }
    result["passed"] = bool(completed and interrupted and more and dropped > 0)
    final_checks(stack, result, specs)
    return result


DRILLS: dict[str, Callable[[Stack, int], dict[str, Any]]] = {
    "daphne": drill_daphne,
    "celery": drill_celery,
    "redis": drill_redis,
    "postgres": drill_postgres,
    "sentinel": drill_sentinel,
}


def run_drill(
    name: str, tables: int, workdir: Path, database_url: str | None = None
) -> dict[str, Any]:
    """One drill on a stack of its own (``database_url``: the tests' database)."""
    with Stack(
        workdir, database_url=database_url, own_redis=name == "redis", sentinels=name == "sentinel"
    ) as stack:
        if database_url is None:
            setup_django()
            from django.db import connections

            connections.close_all()  # a previous drill's database was dropped
        return DRILLS[name](stack, tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("drill", choices=[*DRILLS, "all"])
    parser.add_argument("--tables", type=int, default=4)
    args = parser.parse_args()
    if args.drill == "all":  # each drill in a process of its own (its own settings)
        codes = [
            subprocess.call(
                [sys.executable, "-m", "bench.drills", name, "--tables", str(args.tables)]
            )
            for name in DRILLS
        ]
        sys.exit(max(codes))
    names = [args.drill]
    results = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"vipgame-drill-{name}-") as tmp:
            result = run_drill(name, args.tables, Path(tmp))
            logs = RESULTS / f"drill-{name}-logs"
            shutil.rmtree(logs, ignore_errors=True)
            shutil.copytree(
                tmp, logs, ignore=shutil.ignore_patterns("*.sock", "pg", "beat-*", "*.rdb")
            )
        results.append(result)
        print(json.dumps(result, indent=2, default=str))
    write_results(results, f"drills-{args.drill}")
    sys.exit(0 if all(r["passed"] for r in results) else 1)


if __name__ == "__main__":
    main()
