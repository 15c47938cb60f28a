"""Where a test run's time goes: the wall, and the machine's CPU by kind of process.

Runs a command (by default ``make test``) and, while it runs, samples every
process on the machine twice a second (``psutil``): the CPU each one used
since the run began, grouped by what it is (pytest, Chromium, Daphne,
Celery, PostgreSQL, ...). The machine's busy time as the kernel counts it
(``/proc/stat``) is exact; the split by kind is a sample (a process that
lives less than half a second, or the last half second of one that ends, is
missed), so the kinds add up to a little less than the machine's total. Run
it with nothing else on the machine: every process counts.

    .venv/bin/python -m bench.suite                     # make test
    .venv/bin/python -m bench.suite -- make test-fast
    .venv/bin/python -m bench.suite --by-module 40     # and where, by test module

It prints the wall, the machine's CPU seconds and cores busy, the CPU by
kind, and how many core-seconds an 8-minute run would have, and writes
``bench/results/suite.json``. With ``--by-module N`` every pytest process of
the run loads ``bench.testcpu``, which reads each test's CPU and that of the
processes it started (their Daphne, Celery, Chromium...): the N test modules
that cost the most are printed, all of them are written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psutil

from bench import testcpu
from bench.stack import write_results

#: (kind, words of the command line, all of which must be in it), first match wins.
KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("chromium", ("chrom",)),
    ("daphne", ("daphne",)),
    ("celery", ("celery",)),
    ("postgres", ("postgres",)),
    ("redis", ("redis-server",)),
    ("pgbouncer", ("pgbouncer",)),
    ("nginx", ("nginx",)),
    ("node", ("node ",)),
    ("mypy", ("mypy",)),
    ("ruff", ("ruff",)),
    ("lint-imports", ("lint-imports",)),
    ("manage.py", ("manage.py",)),
    ("pytest", ("pytest",)),
    # pytest-xdist's workers: execnet starts them with ``-c import sys;exec(...)``
    ("pytest", ("import sys;exec(eval(sys.stdin",)),
    ("python", ("python",)),
)
BUDGET_S = 8 * 60


def kind_of(command: str) -> str:
    """The kind of process a command line is (``KINDS``), else ``other``."""
    for kind, words in KINDS:
        if all(word in command for word in words):
            return kind
    return "other"


class Sampler:
    """Every process's CPU seconds since the sampler started, by kind."""

    def __init__(self, every_s: float = 0.5) -> None:
        self.every_s = every_s
        self.started: dict[tuple[int, float], float] = {}  # CPU at the start, by process
        self.last: dict[tuple[int, float], tuple[float, str]] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.me = os.getpid()

    def sample(self, first: bool = False) -> None:
        for proc in psutil.process_iter(["pid", "create_time", "cmdline", "cpu_times"]):
            info = proc.info
            times = info["cpu_times"]
            if times is None or info["pid"] == self.me:
                continue
            key = (info["pid"], info["create_time"])
            cpu = times.user + times.system
            if first:
                self.started[key] = cpu
            command = " ".join(info["cmdline"] or ())
            known = self.last.get(key)
            # (a process that has ended its exec keeps the kind it was seen as)
            kind = known[1] if known and not command else kind_of(command)
            self.last[key] = (cpu, kind)

    def _run(self) -> None:
        while not self.stop.wait(self.every_s):
            with contextlib.suppress(psutil.Error):
                self.sample()

    def __enter__(self) -> Sampler:
        self.sample(first=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.sample()

    def by_kind(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for key, (cpu, kind) in self.last.items():
            used = cpu - self.started.get(key, 0.0)
            totals[kind] = totals.get(kind, 0.0) + max(0.0, used)
        return dict(sorted(totals.items(), key=lambda item: -item[1]))


def machine_busy_s() -> float:
    """The machine's busy CPU seconds since boot, every core (``/proc/stat``)."""
    times = psutil.cpu_times()
    return float(sum(times) - times.idle - getattr(times, "iowait", 0.0))


def additions_s() -> float:
    """The machine's speed: a Python loop of 10 M additions (``total += i``), best of 3 s."""
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - began)
    return best


def run(command: list[str], *, speed: bool = True, by_module: bool = False) -> dict[str, Any]:
    additions = additions_s() if speed else None
    env = dict(os.environ)
    tests = Path(tempfile.mkdtemp(prefix="bench-testcpu-")) if by_module else None
    if tests is not None:
        env[testcpu.DIR_VARIABLE] = str(tests)
        env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} -p bench.testcpu".strip()
    busy_before = machine_busy_s()
    began = time.perf_counter()
    with Sampler() as sampler:
        status = subprocess.run(command, check=False, env=env).returncode
    wall = time.perf_counter() - began
    busy = machine_busy_s() - busy_before
    kinds = sampler.by_kind()
    cores = psutil.cpu_count() or 1
    return {
        "command": command,
        "exit_status": status,
        "additions_10m_s": None if additions is None else round(additions, 2),
        "cores": cores,
        "wall_s": round(wall, 1),
        "machine_cpu_s": round(busy, 1),
        "cores_busy": round(busy / wall, 2),
        "cpu_s_by_kind": {kind: round(value, 1) for kind, value in kinds.items()},
        "sampled_share": round(sum(kinds.values()) / busy, 3) if busy else None,
        # (what the machine can give a run of BUDGET_S: all its cores, all the time)
        "core_seconds_in_8_minutes": cores * BUDGET_S,
        "by_module": None if tests is None else testcpu.by_module(testcpu.read(tests)),
    }


def print_modules(modules: list[dict[str, Any]], top: int) -> None:
    own = sum(m["own_cpu_s"] for m in modules)
    theirs = sum(m["processes_cpu_s"] for m in modules)
    print(
        f"\n  the tests: {sum(m['tests'] for m in modules)}, their processes' own CPU "
        f"{own:.1f} s, the processes they started {theirs:.1f} s (bench.testcpu)"
    )
    print(f"  {'CPU-s':>8} {'own':>7} {'started':>8} {'wall-s':>8} {'tests':>5}  module")
    for m in modules[:top]:
        print(
            f"  {m['cpu_s']:8.1f} {m['own_cpu_s']:7.1f} {m['processes_cpu_s']:8.1f} "
            f"{m['wall_s']:8.1f} {m['tests']:5d}  {m['module']}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="*", default=["make", "test"])
    parser.add_argument(
        "--by-module", type=int, default=0, metavar="N",
        help="print the N test modules that cost the most CPU (bench.testcpu)",
    )  # fmt: skip
    args = parser.parse_args()
    result = run(args.command or ["make", "test"], by_module=bool(args.by_module))
    print(
        f"\n{' '.join(result['command'])}: exit {result['exit_status']}, "
        f"wall {result['wall_s']} s, machine CPU {result['machine_cpu_s']} s "
        f"({result['cores_busy']} of {result['cores']} cores busy; "
        f"10 M additions {result['additions_10m_s']} s)"
    )
    for kind, value in result["cpu_s_by_kind"].items():
        print(f"  {kind:14s} {value:8.1f} CPU-s")
    print(
        f"  (the kinds: {result['sampled_share']:.0%} of the machine's CPU; "
        f"8 minutes is {result['core_seconds_in_8_minutes']} core-seconds)"
    )
    if result["by_module"] is not None:
        print_modules(result["by_module"], args.by_module)
    write_results(result, "suite")
    raise SystemExit(result["exit_status"])


if __name__ == "__main__":
    main()
