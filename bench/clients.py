"""The load client of ``bench.tables``, spread over processes (issue 33 item 7).

One Python process holding thousands of sockets is late itself: a state that
reached its socket waits for the loop to read it, and that wait was counted as
the server's. Here the tables are dealt out to ``K`` processes (a table's four
seats stay in one, so that a move and its arrivals are timed on one clock),
each with its own asyncio loop, started with ``spawn`` (no inherited threads
or database connections). Each measures its own players (``measure``) and how
late its own loop wakes (``LoopLag``: a ticker every 50 ms), and sends them
back; ``merge`` adds them up for ``bench.tables.summarise``.

The processes start together: each waits at a barrier once it has imported
everything, and the run's clock starts when the last is ready (the parent's
wall time, which each turns into its own ``perf_counter``).
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import queue
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.players import PING_S, Run, TableSpec, players_for
from bench.stack import percentile

GRACE_S = 15.0
TICK_S = 0.05
#: How long the parent waits for its client processes to import and be ready.
START_TIMEOUT_S = 120.0
#: The client processes' collector: the values of Daphne's default
#: ``GC_THRESHOLDS``. Not through ``kernel.ops.pauses.tune``, which would time
#: the client's collections into the servers' metric files.
CLIENT_GC_THRESHOLDS = (50_000, 20, 100)


@dataclass
class Window:
    """When the run started, the warm-up and the measured window (seconds)."""

    warmup: float
    seconds: float
    think: float = 0.0
    ramp: float = 0.0
    grace: float = GRACE_S  # listening on after the window: the last moves' states
    ping: float = PING_S  # seconds between a socket's pings


class LoopLag:
    """How late this process's event loop wakes: a ticker asks to be woken
    every ``TICK_S`` and notes by how much it was late (a loop busy with other
    sockets' frames). Also the process's CPU time over the window, read at
    the first tick past each of its ends."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.lags: list[float] = []
        self.cpu: list[float] = []
        # The collector's pauses in the window, by generation (ms): a full
        # collection over thousands of sockets' objects holds the loop still.
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._collecting = 0.0

    def _collector(self, phase: str, info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._collecting = now
        elif self._collecting and self.run.in_window(self._collecting):
            self.pauses[info["generation"]].append((now - self._collecting) * 1000)

    async def tick(self) -> None:
        start, end = self.run.window
        gc.callbacks.append(self._collector)
        try:
            while True:
                due = time.perf_counter() + TICK_S
                await asyncio.sleep(TICK_S)
                now = time.perf_counter()
                if self.run.in_window(due):
                    self.lags.append(now - due)
                if (not self.cpu and now >= start) or (len(self.cpu) == 1 and now >= end):
                    self.cpu.append(time.process_time())
                if now >= end or self.run.stopped:
                    return
        finally:
            gc.callbacks.remove(self._collector)

    def summary(self) -> dict[str, Any]:
        lags = [lag * 1000 for lag in self.lags]
        return {
            "ticks": len(lags),
            "ms": {q: percentile(lags, q) for q in (50, 95, 99)},
            "max_ms": max(lags, default=None),
            "mean_ms": statistics.fmean(lags) if lags else None,
            "collections": {g: len(p) for g, p in self.pauses.items()},
            "full_collection_max_ms": max(self.pauses[2], default=None),
        }

    def cpu_s(self) -> float | None:
        return self.cpu[1] - self.cpu[0] if len(self.cpu) == 2 else None


@dataclass
class Measured:
    """What one client process's players saw in the window, in a form that adds
    up over processes (every list is of milliseconds)."""

    actions: int = 0
    latencies: list[float] = field(default_factory=list)  # move -> every seat
    each_seat: list[float] = field(default_factory=list)  # move -> one seat, each
    acks: list[float] = field(default_factory=list)
    pings: list[float] = field(default_factory=list)
    lost: int = 0
    duplicated: int = 0
    acked_as_duplicate: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    resent: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    error_times: list[float] = field(default_factory=list)
    received: Counter[str] = field(default_factory=Counter)
    received_bytes: Counter[str] = field(default_factory=Counter)


def measure(run: Run) -> Measured:
    found = Measured()
    versions: Counter[tuple[int, int]] = Counter()
    measured = [a for a in run.actions.values() if run.in_window(a.sent)]
    found.actions = len(measured)
    for action in measured:
        if action.refused:
            found.refused[action.refused] += 1
            continue
        if action.version is None:
            found.lost += 1
            continue
        versions[(action.table, action.version)] += 1
        if action.acked is not None:
            found.acks.append((action.acked - action.sent) * 1000)
        reached = run.reached_each(action.table, action.version)
        if reached is None:
            found.lost += 1
        else:
            found.latencies.append((max(reached) - action.sent) * 1000)
            found.each_seat.extend((at - action.sent) * 1000 for at in reached)
    found.pings = [p * 1000 for p in run.pings]
    found.duplicated = sum(1 for n in versions.values() if n > 1)
    found.acked_as_duplicate = sum(1 for a in measured if a.duplicate)
    found.errors, found.resent = Counter(run.errors), Counter(run.resent)
    found.reconnects = run.reconnects
    found.error_times = [round(t, 1) for t in run.error_times]
    found.received, found.received_bytes = Counter(run.received), Counter(run.received_bytes)
    return found


def merge(parts: list[Measured]) -> Measured:
    """The processes' measurements as one (their tables are disjoint)."""
    total = Measured()
    for part in parts:
        total.actions += part.actions
        total.lost += part.lost
        total.duplicated += part.duplicated
        total.acked_as_duplicate += part.acked_as_duplicate
        total.reconnects += part.reconnects
        for name in ("latencies", "each_seat", "acks", "pings", "error_times"):
            getattr(total, name).extend(getattr(part, name))
        for name in ("refused", "errors", "resent", "received", "received_bytes"):
            getattr(total, name).update(getattr(part, name))
    return total


async def drive(
    specs: list[TableSpec], urls: list[str], start: float, window: Window
) -> tuple[Run, LoopLag]:
    """Play from ``start`` (this process's ``perf_counter``) until the window
    closes, then listen a little longer (no new moves) so that the last moves'
    states can arrive. The players connect over the first ``ramp`` seconds."""
    run = Run(
        (start + window.warmup, start + window.warmup + window.seconds), window.think, window.ping
    )
    lag = LoopLag(run)
    players = players_for(run, specs, urls)
    await asyncio.gather(
        lag.tick(), *(p.play(run.window[1] + window.grace, window.ramp) for p in players)
    )
    return run, lag


def client_process(
    index: int,
    specs: list[TableSpec],
    urls: list[str],
    window: Window,
    barrier: Any,
    started: Any,
    results: Any,
) -> None:
    """One client process: wait for the others, play, send back what it saw.

    Its collector is tuned as Daphne's: what it imported is frozen and the
    thresholds raised. With the defaults, each of two processes holding
    2,000 sockets ran one full collection in a 1,000-table run's window,
    353.4 and 313.6 ms long, and its loop stood still that long (its
    longest lags: 309.7 and 295.0 ms), counted in what its players saw."""
    try:
        gc.set_threshold(*CLIENT_GC_THRESHOLDS)
        gc.collect()
        gc.freeze()
        barrier.wait(START_TIMEOUT_S)  # imported: the parent sets the clock,
        barrier.wait(START_TIMEOUT_S)  # then every process goes
        # The parent's wall time at the start, as this process's perf_counter.
        start = started.value + (time.perf_counter() - time.time())
        run, lag = asyncio.run(drive(specs, urls, start, window))
        results.put((index, measure(run), lag.summary(), lag.cpu_s(), None))
    except BaseException as exc:  # said to the parent, which fails the run
        results.put((index, None, None, None, f"{type(exc).__name__}: {exc}"))
        raise


@dataclass
class Spread:
    """What the client processes saw, merged, and each one's own figures."""

    measured: Measured
    processes: list[dict[str, Any]]
    window: tuple[float, float]  # the parent's perf_counter

    @property
    def cpu_s(self) -> float:
        return sum(p["cpu_s"] or 0.0 for p in self.processes)


def deal(specs: list[TableSpec], count: int) -> list[list[TableSpec]]:
    """The tables dealt out to ``count`` processes in turn (whole tables)."""
    return [specs[i::count] for i in range(count) if specs[i::count]]


def play_spread(
    specs: list[TableSpec],
    urls: list[str],
    count: int,
    window: Window,
    on_start: Any = None,
) -> Spread:
    """Play with the tables spread over ``count`` client processes.
    ``on_start()`` runs in this process the moment the run's clock starts
    (the parent's timers for the window start from it)."""
    context = multiprocessing.get_context("spawn")
    shares = deal(specs, count)
    barrier = context.Barrier(len(shares) + 1)
    started = context.Value("d", 0.0)
    results = context.Queue()
    processes = [
        context.Process(
            target=client_process,
            args=(i, share, urls, window, barrier, started, results),
            name=f"bench-client-{i}",
            daemon=True,
        )
        for i, share in enumerate(shares)
    ]
    for process in processes:
        process.start()
    try:
        # Every client has imported what it needs: the clock starts now, and
        # the clients read it once past the second wait. (Set before the first
        # wait, the clients' clock ran while they imported, up to 10 s and more
        # under a loaded machine, and the server's window, which starts with
        # ``on_start``, began that much after theirs: a two-table test's
        # window then held none of the server's frames.)
        barrier.wait(START_TIMEOUT_S)
        started.value = time.time()
        begin = time.perf_counter()
        barrier.wait(START_TIMEOUT_S)
        if on_start is not None:
            on_start()
        parts: dict[int, tuple[Measured, dict[str, Any], float | None]] = {}
        deadline = time.monotonic() + window.warmup + window.seconds + window.grace + 120
        while len(parts) < len(processes):
            try:
                index, measured, lag, cpu, failed = results.get(timeout=1.0)
            except queue.Empty:
                dead = [p.name for p in processes if p.exitcode not in (None, 0)]
                if dead or time.monotonic() > deadline:
                    raise RuntimeError(f"client processes failed or hung: {dead}") from None
                continue
            if failed is not None:
                raise RuntimeError(f"client process {index} failed: {failed}")
            parts[index] = (measured, lag, cpu)
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()
    return Spread(
        merge([parts[i][0] for i in sorted(parts)]),
        [process_figures(shares[i], parts[i][1], parts[i][2]) for i in sorted(parts)],
        (begin + window.warmup, begin + window.warmup + window.seconds),
    )


def process_figures(
    share: list[TableSpec], lag: dict[str, Any], cpu: float | None
) -> dict[str, Any]:
    return {
        "tables": len(share),
        "sockets": 4 * len(share),
        "loop_lag": lag,
        "cpu_s": None if cpu is None else round(cpu, 2),
    }


def play_here(specs: list[TableSpec], urls: list[str], window: Window) -> Spread:
    """Play in this process (``--clients 1``, as before: the load client is
    this process's main thread)."""
    start = time.perf_counter()
    run, lag = asyncio.run(drive(specs, urls, start, window))
    return Spread(measure(run), [process_figures(specs, lag.summary(), lag.cpu_s())], run.window)
