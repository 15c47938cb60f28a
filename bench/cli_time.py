"""Command-line cost of ``maubinh.arrange`` against ``maubinh.compare``, side by side.

Runs ``python -m games.rules`` with each request ``--runs`` times, alternating
the two so a busy shared machine affects both alike, and prints the median
and p90 wall time and the median CPU time (user + system of the child, which
other processes do not inflate) of each, and the differences.

    .venv/bin/python -m bench.cli_time --runs 30
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "cli_time.json"
HAND = ["Qc", "Qs", "Td", "5s", "3h", "Kc", "9c", "9s", "7s", "2d", "Ac", "8h", "8c"]
REQUESTS = {
    "compare": {
        "op": "maubinh.compare",
        "a": ["As", "Ks", "Qs", "Js", "9s"],
        "b": ["2c", "2d", "3h"],
    },
    "arrange": {"op": "maubinh.arrange", "cards": HAND},
}


def run_once(request: dict[str, Any]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "games.rules"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
    )
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    json.loads(done.stdout)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--preset", default="vipgame")
    args = parser.parse_args()
    times: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in REQUESTS}
    for request in REQUESTS.values():  # warm the file cache
        run_once({**request, "preset": args.preset})
    for _ in range(args.runs):
        for name, request in REQUESTS.items():
            wall, cpu = run_once({**request, "preset": args.preset})
            times[name]["wall"].append(wall)
            times[name]["cpu"].append(cpu)
    report: dict[str, Any] = {
        "command": " ".join([".venv/bin/python -m bench.cli_time", *sys.argv[1:]]),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    for name, t in times.items():
        walls = sorted(t["wall"])
        report[name] = {
            "wall_median_ms": round(statistics.median(walls), 1),
            "wall_p90_ms": round(walls[int(0.9 * (len(walls) - 1))], 1),
            "cpu_median_ms": round(statistics.median(t["cpu"]), 1),
        }
        print(
            f"{name}: wall median {report[name]['wall_median_ms']} ms, "
            f"p90 {report[name]['wall_p90_ms']} ms; CPU median {report[name]['cpu_median_ms']} ms"
        )
    for key in ("wall_median_ms", "cpu_median_ms"):
        extra = round(report["arrange"][key] - report["compare"][key], 1)
        report[f"arrange_minus_compare_{key}"] = extra
        print(f"arrange - compare ({key.replace('_ms', '')}): {extra:+.1f} ms")
    print(f"load average {report['load_average']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
