"""Soak: thousands of hands of each game with players dropping and coming back.

Tables of all three games play at once on the full stack (two Daphne, Celery
with beat); every player drops its own socket now and then (``--chaos``, the
chance per message) and reconnects to either server, resyncing by version.
It runs until every game has ``--hands`` finished hands (or ``--minutes``
pass), then checks the money: Σ balances = 0, no negative balance, every
finished hand settled exactly once, no hand stuck, no traceback logged.

    python -m bench.soak --hands 2000                 # the three games at once
    python -m bench.soak --hands 2000 --games tienlen  # one game
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.players import GAMES, Run, create_tables, money_ok, players_for, settled_money_checks
from bench.stack import Stack, setup_django, write_results

# Short clocks so that hands follow each other quickly (players move at once).
TIMERS = {"turn_seconds": 10, "reveal_seconds": 1, "summary_seconds": 1, "arrange_seconds": 30}


def finished_by_game(games: list[str]) -> dict[str, int]:
    from django.db.models import Count

    from games.models import Hand

    rows = (
        Hand.objects.filter(ended_at__isnull=False, voided=False)
        .values("game")
        .annotate(n=Count("pk"))
    )
    counts = dict.fromkeys(games, 0)
    counts.update({row["game"]: row["n"] for row in rows if row["game"] in counts})
    return counts


def soak(
    games: list[str], tables: int, hands: int, minutes: float, chaos: float, workdir: Path
) -> dict[str, Any]:
    with Stack(workdir) as stack:
        setup_django()
        specs = [s for game in games for s in create_tables(tables, game, prefix="s", **TIMERS)]
        start = time.perf_counter()
        run = Run((start, start + minutes * 60))
        urls = [f"ws://127.0.0.1:{port}" for port in stack.ports]
        players = players_for(run, specs, urls, chaos=chaos)

        def play() -> None:
            async def everyone() -> None:
                await asyncio.gather(*(p.play(run.window[1]) for p in players))

            asyncio.run(everyone())

        thread = threading.Thread(target=play, daemon=True)
        thread.start()
        progress: list[tuple[float, dict[str, int]]] = []
        while time.perf_counter() < run.window[1]:
            time.sleep(5)
            counts = finished_by_game(games)
            progress.append((round(time.perf_counter() - start, 1), counts))
            print(f"{progress[-1][0]:>7} s  {counts}", flush=True)
            if all(n >= hands for n in counts.values()):
                break
        elapsed = time.perf_counter() - start
        run.stop()  # the players stop, now
        thread.join(timeout=60)
        money = settled_money_checks(30)
        counts = finished_by_game(games)
        from games.models import Table

        stuck = Table.objects.filter(deadline__lt=_ago(30), pk__in=[s.id for s in specs]).count()
        errors = stack.errors_in_logs()
        result = {
            "games": games,
            "tables_per_game": tables,
            "chaos": chaos,
            "seconds": round(elapsed, 1),
            "hands": counts,
            "hands_per_s": {g: round(n / elapsed, 2) for g, n in counts.items()},
            "reconnects": run.reconnects,
            "refusals": dict(run.errors),
            "money": money,
            "stuck_tables": stuck,
            "server_errors": errors[:20],
            "progress": progress,
        }
        result["passed"] = bool(
            money_ok(money)
            and not stuck
            and not errors
            and all(n >= hands for n in counts.values())
        )
        return result


def _ago(seconds: float) -> Any:
    from datetime import timedelta

    from django.utils import timezone

    return timezone.now() - timedelta(seconds=seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20, help="tables per game")
    parser.add_argument("--hands", type=int, default=2000, help="hands per game")
    parser.add_argument("--minutes", type=float, default=45)
    parser.add_argument("--chaos", type=float, default=0.01)
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vipgame-soak-") as tmp:
        result = soak(args.games, args.tables, args.hands, args.minutes, args.chaos, Path(tmp))
    summary = {k: v for k, v in result.items() if k != "progress"}
    print(json.dumps(summary, indent=2, default=str))
    write_results(result, f"soak-{'-'.join(args.games)}")
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
