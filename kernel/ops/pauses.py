"""The garbage collector's pauses (issue 33 item 7).

A Daphne process serving 2,000 sockets holds about 400,000 objects that the
collector tracks. With CPython's default thresholds (700, 10, 10) the many
short-lived objects of every frame and query keep surviving the young
collections, so a full collection ran every ~8 s in each Daphne at 1,000
tables and found next to nothing (0 to 500 objects) while the process stood
still for 400 to 880 ms: every socket's frames waited, the longest of the
stalls behind the room's p99 of 0.9 s (bench/RESULTS.md, "The collector's
pauses").

``tune`` (called where Daphne has loaded its code: ``vipgame.asgi``) moves
what the process loaded so far out of the collector's sight for good
(``gc.freeze``: modules, settings, URL patterns, translations; none of it is
ever garbage), raises the thresholds (``GC_THRESHOLDS``) so that fewer
objects are promoted to the old generation only to die there by reference
counting, and times every collection into ``vipgame_gc_pause_seconds`` by
generation, so that an operator sees a pause grow before players feel it."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Sequence
from typing import Any

from .metrics import GC_PAUSE_SECONDS

_started: list[float] = []


def _timed(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[:] = [time.perf_counter()]
        return
    if not _started:
        return
    # A collection can start anywhere, and what it interrupted must go on:
    # a metric that cannot be written is lost, never raised here (CPython
    # would print it on stderr at every collection).
    with contextlib.suppress(Exception):
        GC_PAUSE_SECONDS.labels(generation=str(info["generation"])).observe(
            time.perf_counter() - _started[0]
        )


def tune(thresholds: Sequence[int], *, freeze: bool) -> None:
    """This process's collector: ``thresholds`` (gen0, gen1, gen2 as
    ``gc.set_threshold`` takes them), what is loaded now frozen (``freeze``),
    and every collection timed. Called again, it changes nothing more.

    Not for a process that forks children afterwards (Celery's main process):
    with ``PROMETHEUS_MULTIPROC_DIR`` the metric's per-process file is made in
    it and inherited, and the children's first collection failed on it."""
    gc.set_threshold(*thresholds)
    if freeze:
        gc.collect()
        gc.freeze()
    if _timed not in gc.callbacks:
        gc.callbacks.append(_timed)
