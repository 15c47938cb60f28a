"""A pytest plugin: the CPU each test costs, its own process's and its processes'.

``python -m bench.suite --by-module`` loads it into every pytest process of
the run (``PYTEST_ADDOPTS=-p bench.testcpu``) and reads what it wrote. Around
each test (setup, call and teardown) it reads the test process's own CPU and
that of its processes: the live ones, its children and theirs (Daphne,
Celery, the Playwright driver and its Chromium, ``manage.py``, nginx...), and
the ones already ended and reaped (``os.times()``'s children's times). What
it cannot see: the database and Redis servers, and a process that ended
after leaving the test's tree (an orphan reaped by init). A module's stack
(the browser tests' Daphne, Celery and Chromium) works for whichever of its
tests runs: read the figures by module, not by test.

It writes one JSON line a test to ``$BENCH_TEST_CPU_DIR/<worker>.jsonl``
and does nothing when that variable is unset.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

import psutil
import pytest

DIR_VARIABLE = "BENCH_TEST_CPU_DIR"

_out: TextIO | None = None


def cpu_now() -> tuple[float, float]:
    """(this process's CPU seconds, its processes' CPU seconds, live and reaped)."""
    own = os.times()
    theirs = own.children_user + own.children_system
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # (it ended between the listing and the reading)
            continue
        # (a child's own reaped children are in its children's times)
        theirs += times.user + times.system + times.children_user + times.children_system
    return own.user + own.system, theirs


def _output() -> TextIO | None:
    global _out
    folder = os.environ.get(DIR_VARIABLE)
    if not folder:
        return None
    if _out is None:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        Path(folder).mkdir(parents=True, exist_ok=True)
        _out = (Path(folder) / f"{worker}.jsonl").open("a")
    return _out


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    out = _output()
    if out is None:
        yield
        return
    began = time.monotonic()
    own, theirs = cpu_now()
    yield
    own_after, theirs_after = cpu_now()
    row = {
        "test": item.nodeid,
        "wall_s": round(time.monotonic() - began, 3),
        "own_cpu_s": round(own_after - own, 3),
        "processes_cpu_s": round(theirs_after - theirs, 3),
    }
    out.write(json.dumps(row) + "\n")
    out.flush()


def read(folder: Path) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line]
    return rows


def by_module(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tests' rows summed by module, the most CPU first."""
    modules: dict[str, dict[str, Any]] = {}
    for row in rows:
        name = row["test"].split("::", 1)[0]
        module = modules.setdefault(
            name,
            {
                "module": name,
                "tests": 0,
                "wall_s": 0.0,
                "own_cpu_s": 0.0,
                "processes_cpu_s": 0.0,
            },
        )
        module["tests"] += 1
        for key in ("wall_s", "own_cpu_s", "processes_cpu_s"):
            module[key] += row[key]
    for module in modules.values():
        for key in ("wall_s", "own_cpu_s", "processes_cpu_s"):
            module[key] = round(module[key], 1)
        # (a process that ended outside the tree can make a test's share negative)
        module["cpu_s"] = round(module["own_cpu_s"] + module["processes_cpu_s"], 1)
    return sorted(modules.values(), key=lambda m: -m["cpu_s"])
