"""A scheduled tournament of bots played to the end, in one process: what its
table merges cost, and that nothing is lost.

A scheduled tournament of ``--players`` bots (default 512) starts at tables
of the game's tournament size; every table's hands are played through the
real services (``games.services``: deal, the bots' moves, the time-outs,
the settlement) against PostgreSQL, with Celery replaced by a discrete-event
loop (what would be queued runs at once, a clock runs out when the simulated
time reaches it: no waiting) and a simulated clock (the levels rise with it).
After every hand a table may balance, break up and merge
(``tournaments.tables.balance``); each call that moves players is timed
(wall and thread CPU, with the seating of its players at the other tables),
apart for the breaks (a table broken up: a merge) and the single moves.

At the end: every entry finished with a rank, the prizes paid once and
exactly (``buy_in`` x players), the prize pool 0, the ledger's Σ 0, no account
below 0 but issuance, every hand settled once, every table closed.

It creates a fresh database ``<name>_bench`` from ``DATABASE_URL`` (PostgreSQL),
migrates it, prints the numbers and writes JSON to
``bench/results/tournament-<game>-<players>.json``.

    python -m bench.tournament --players 512 --game tienlen
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import sys
import time
from datetime import datetime, timedelta
from typing import Any

from bench.stack import django_in_process, percentile, write_results


class Loop:
    """Stands in for Celery and the clock: what would be queued runs at once;
    a clock's timer runs when the simulated time reaches it."""

    def __init__(self, start: datetime) -> None:
        self.now = start
        self.ready: list[tuple[str, tuple[Any, ...]]] = []
        self.timers: list[tuple[datetime, int, int, int]] = []
        self._order = itertools.count()

    def clock(self) -> datetime:
        return self.now

    # (the scheduler's interface: games.scheduling)
    def timer(self, table_id: int, clock_version: int, at: datetime) -> None:
        heapq.heappush(self.timers, (at, next(self._order), table_id, clock_version))

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None:
        self.ready.append(("move", (table_id, hand_id, position)))

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None:
        self.ready.append(("ready", (table_id, position)))

    def settle(self, hand_id: int) -> None:
        self.ready.append(("settle", (hand_id,)))


def _timed(stats: dict[str, list[float]], function: Any) -> Any:
    """``function`` timed (wall and thread CPU) when it moved players."""
    from tournaments.models import Entry

    def run(work: Any, tournament: Any) -> Any:
        seats_before = len(work.seats)
        wall, cpu = time.perf_counter(), time.thread_time()
        result = function(work, tournament)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        moved = seats_before - len(work.seats)
        if moved:
            kind = "break" if work.table.status == "closed" else "move"
            stats[f"{kind}_wall_ms"].append(wall * 1000)
            stats[f"{kind}_cpu_ms"].append(cpu * 1000)
            stats[f"{kind}_players"].append(moved)
            waiting = Entry.objects.filter(
                tournament=tournament, moving_chips__isnull=False
            ).count()
            stats["left_waiting"].append(waiting)
        return result

    return run


def run(game: str, players: int, starting_chips: int, level_seconds: int) -> dict[str, Any]:
    from django.conf import settings
    from django.db.models import Sum

    from games import clock, publish, scheduling, services
    from games.errors import GameError
    from games.models import Hand, Table
    from tournaments import services as tournaments
    from tournaments import tables as tournament_tables
    from tournaments.models import Entry, Tournament, TournamentTable
    from wallet.models import Account
    from wallet.services import player_signup

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SEED_GRACE_MS = 0  # nobody is connected: no seed to wait for
    settings.BOT_POOL_SIZE = players + 10
    settings.TIMER_QUEUE_AHEAD_S = 10**9  # every clock's timer queued when set (no sweeper)
    loop = Loop(datetime(2026, 1, 1, 12, tzinfo=clock.now().tzinfo))
    clock.now = loop.clock
    scheduling.scheduler = loop
    publish.send = lambda messages, **_: None  # (nobody is connected: nothing is sent)
    stats: dict[str, list[float]] = {
        name: []
        for name in (
            "break_wall_ms", "break_cpu_ms", "break_players",
            "move_wall_ms", "move_cpu_ms", "move_players", "left_waiting",
        )
    }  # fmt: skip
    tournament_tables.balance = _timed(stats, tournament_tables.balance)

    person = player_signup(username="bench-host", display_name="Host", password="Bench-42-x")
    tournament = tournaments.tournament_schedule(
        game=game, starts_at=loop.now + timedelta(seconds=1), buy_in=100, fee=10,
        max_entrants=players + 1, late_levels=0, starting_chips=starting_chips,
        level_seconds=level_seconds, allow_bots=True,
    )  # fmt: skip
    tournaments.tournament_register(tournament_id=tournament.pk, user=person)
    added = 0
    while added < players - 1:
        added += tournaments.tournament_add_bots(
            tournament_id=tournament.pk, count=min(100, players - 1 - added)
        )
    loop.now += timedelta(seconds=2)
    started = time.perf_counter()
    assert tournaments.tournament_start(tournament_id=tournament.pk)
    start_s = time.perf_counter() - started
    first_tables = TournamentTable.objects.filter(tournament=tournament).count()

    calls = 0
    began = time.perf_counter()
    while True:
        while loop.ready:
            kind, args = loop.ready.pop(0)
            calls += 1
            try:
                if kind == "move":
                    services.table_bot_move(table_id=args[0], hand_id=args[1], position=args[2])
                elif kind == "ready":
                    services.table_bot_ready(table_id=args[0], position=args[1])
                else:
                    services.hand_settle(hand_id=args[0])
            except GameError:
                pass  # (a move gone stale: the table moved on, as with Celery)
        tournament.refresh_from_db(fields=["status"])
        if tournament.status != Tournament.Status.RUNNING:
            break
        if not loop.timers:
            # (as beat does: players between tables, a start, ...)
            if not tournaments.seat_players(tournament.pk):
                raise SystemExit("stuck: no clock runs and nothing is queued")
            continue
        at, _, table_id, version = heapq.heappop(loop.timers)
        loop.now = max(loop.now, at)
        calls += 1
        services.table_timeout(table_id=table_id, clock_version=version)
    played_s = time.perf_counter() - began

    # -- nothing lost ------------------------------------------------------
    tournament.refresh_from_db()
    entries = list(Entry.objects.filter(tournament=tournament))
    ranks = sorted(e.rank or 0 for e in entries)
    pool = Account.objects.get(key=tournament.pool_key).balance
    total = Account.objects.aggregate(total=Sum("balance"))["total"]
    negative = Account.objects.exclude(kind=Account.Kind.ISSUANCE).filter(balance__lt=0).count()
    hands = Hand.objects.filter(table__tournament_table__tournament=tournament)
    checks = {
        "finished": tournament.status == Tournament.Status.FINISHED,
        "every entry ranked once": ranks == list(range(1, players + 1)),
        "prizes paid exactly": sum(e.prize or 0 for e in entries) == 100 * players,
        "prize pool empty": pool == 0,
        "ledger sums to 0": total == 0,
        "no negative account": negative == 0,
        "every hand settled": not hands.filter(settled=False).exists(),
        "every table closed": not Table.objects.filter(tournament_table__tournament=tournament)
        .exclude(status=Table.Status.CLOSED)
        .exists(),
    }

    def summary(values: list[float]) -> dict[str, Any]:
        if not values:
            return {"count": 0}
        return {
            "count": len(values),
            "p50": round(percentile(values, 50) or 0, 2),
            "p99": round(percentile(values, 99) or 0, 2),
            "max": round(max(values), 2),
        }

    return {
        "game": game,
        "players": players,
        "tables_at_start": first_tables,
        "tables_opened": TournamentTable.objects.filter(tournament=tournament).count(),
        "hands": hands.count(),
        "service_calls": calls,
        "simulated_minutes": round((loop.now - tournament.started_at).total_seconds() / 60, 1)
        if tournament.started_at
        else None,
        "start_s": round(start_s, 2),
        "played_s": round(played_s, 1),
        "merge (a table broken up, its players seated elsewhere)": {
            "wall_ms": summary(stats["break_wall_ms"]),
            "cpu_ms": summary(stats["break_cpu_ms"]),
            "players_moved": summary(stats["break_players"]),
        },
        "balance (one player moved)": {
            "wall_ms": summary(stats["move_wall_ms"]),
            "cpu_ms": summary(stats["move_cpu_ms"]),
        },
        "players left waiting for a seat after a move": summary(stats["left_waiting"]),
        "checks": checks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--game", choices=["tienlen", "holdem", "maubinh"], default="tienlen")
    parser.add_argument("--players", type=int, default=512)
    parser.add_argument("--starting-chips", type=int, default=300)
    parser.add_argument("--level-seconds", type=int, default=60)
    args = parser.parse_args()
    django_in_process(HOUSE_SIT_AND_GOS="")
    result = run(args.game, args.players, args.starting_chips, args.level_seconds)
    result["command"] = " ".join(["python -m bench.tournament", *sys.argv[1:]])
    result["date"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    print(json.dumps(result, indent=2, ensure_ascii=False))
    write_results(result, f"tournament-{args.game}-{args.players}")
    if not all(result["checks"].values()):
        sys.exit("a money or completion check failed")


if __name__ == "__main__":
    main()
