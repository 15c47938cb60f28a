"""Benchmark of the Mậu Binh auto-arranger: speed, and strength against baselines.

* Speed: median and p99 wall time of one ``arrange`` (best split, hints and
  instant win) over random 13-card hands, after a warm-up; also the thread's
  CPU time, which other processes on a shared machine do not inflate.
* Strength: simulated 4-player deals settled with the full rules (bonuses,
  sập, instant wins). In each deal the arranger plays one seat and a baseline
  the other three, once with the arranger in each seat (duplicate style, so
  the deal's luck cancels); the deal's score is the arranger's average net
  units. Baselines: greedy (strongest chi 1, then strongest chi 2) and a
  uniformly random valid split. Reported with the standard error over deals.

    .venv/bin/python -m bench.arrange                  # 2,000 timings, 20,000 deals
    .venv/bin/python -m bench.arrange --quick          # 200 timings, 500 deals
    .venv/bin/python -m bench.arrange --preset all --cpu 1

``--cpu N`` pins the process to that one core (Linux), so the timings are
one core's. Prints a summary and writes bench/results/arrange.json (with the
command line, the core and the load average, since the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from games.rules.maubinh.arranger import arrange, arranger_for, split_arrangement
from games.rules.maubinh.instant import declared_instant, top_pair
from games.rules.maubinh.rules import PRESETS, Ruleset
from games.rules.maubinh.settle import Contender, settle

RESULTS = Path(__file__).resolve().parent / "results" / "arrange.json"
PLAYERS = 4


def _spread(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "median_ms": round(statistics.median(times), 3),
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
        "mean_ms": round(statistics.fmean(times), 3),
        "max_ms": round(times[-1], 3),
    }


def time_arrange(rules: Ruleset, hands: int, seed: int) -> dict[str, Any]:
    """Wall time per arrange, and the thread's CPU time (what one core spends,
    without the waits a busy shared machine adds to the wall time)."""
    rng = random.Random(seed)
    arrange(rules, rng.sample(range(52), 13))
    wall, cpu = [], []
    for _ in range(hands):
        cards = rng.sample(range(52), 13)
        started, started_cpu = time.perf_counter(), time.thread_time()
        arrange(rules, cards)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return {"hands": hands, **_spread(wall), "cpu": _spread(cpu)}


def _mean_se(values: list[float]) -> dict[str, float]:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5
    return {"mean_units": round(mean, 4), "standard_error": round(se, 4), "z": round(mean / se, 1)}


def play(rules: Ruleset, deals: int, seed: int) -> dict[str, dict[str, float]]:
    arranger = arranger_for(rules)
    rng = random.Random(seed)
    deck = list(range(52))
    scores: dict[str, list[float]] = {"greedy": [], "random": []}
    for _ in range(deals):
        rng.shuffle(deck)
        hands = [deck[13 * p : 13 * p + 13] for p in range(PLAYERS)]
        instants = [declared_instant(rules, h) for h in hands]
        pairs = [top_pair(h) for h in hands]
        splits = {
            "arranger": [arranger.best_split(h) for h in hands],
            "greedy": [arranger.greedy_split(h) for h in hands],
            "random": [arranger.random_split(h, rng) for h in hands],
        }
        for baseline in scores:
            total = 0.0
            for hero in range(PLAYERS):
                players = [
                    Contender(
                        split_arrangement(h, splits["arranger" if p == hero else baseline][p]),
                        instants[p],
                        pairs[p],
                    )
                    for p, h in enumerate(hands)
                ]
                total += settle(rules, players).net[hero]
            scores[baseline].append(total / PLAYERS)
    return {baseline: {"deals": deals, **_mean_se(v)} for baseline, v in scores.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="vipgame", choices=[*PRESETS, "all"])
    parser.add_argument("--timings", type=int, default=2_000)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="200 timings and 500 deals")
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this core")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.quick:
        args.timings, args.deals = 200, 500
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    presets = list(PRESETS) if args.preset == "all" else [args.preset]
    report: dict[str, Any] = {
        "command": " ".join([".venv/bin/python -m bench.arrange", *sys.argv[1:]]),
        "options": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "cores": sorted(os.sched_getaffinity(0)),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "presets": {},
    }
    for preset in presets:
        rules = PRESETS[preset]
        speed = time_arrange(rules, args.timings, args.seed)
        print(
            f"{preset}: arrange median {speed['median_ms']} ms, p99 {speed['p99_ms']} ms "
            f"(CPU time: median {speed['cpu']['median_ms']} ms, p99 {speed['cpu']['p99_ms']} ms)"
        )
        strength = play(rules, args.deals, args.seed)
        for baseline, result in strength.items():
            print(
                f"{preset}: arranger vs {baseline}: {result['mean_units']:+.4f} units/deal "
                f"(se {result['standard_error']}, {result['z']} se)"
            )
        report["presets"][preset] = {"speed": speed, "strength": strength}
    report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
