"""Prometheus metrics (prometheus-client).

Two kinds, each the one that stays correct across several Daphne processes and
Celery workers:

* Events counted where they happen (sockets opened, moves, the action → state
  latency, timer lateness, the sweeper's duration, hands dealt and finished).
  With ``PROMETHEUS_MULTIPROC_DIR`` set (production: every process of a host
  gets the same empty directory) prometheus-client's multiprocess mode keeps
  them in per-process files that ``/metrics`` adds up; without it (one
  process, tests) in memory.
* Figures read at scrape time from the shared stores, so every process answers
  alike: the settlement backlog and the chips issued (PostgreSQL), Celery's
  queue lengths and the tasks held by workers (Redis), the sweeper's last run.
  They read every app, so the site collects them (``vipgame.ops.scrape``, which
  also renders ``/metrics``), with the database's and each Redis role's own
  figures (``vipgame.ops.stores``).

The error counters are here too: HTTP 5xx by view, socket error frames by
code, Celery task failures and retries, and the scrape-time reads that failed.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
)

logger = logging.getLogger(__name__)
CONTENT_TYPE = CONTENT_TYPE_LATEST

SOCKETS_OPEN = Gauge(
    "vipgame_sockets_open",
    "WebSocket connections open now, by kind (lobby, table).",
    ["kind"],
    multiprocess_mode="livesum",
)
SOCKETS_OPENED = Counter(
    "vipgame_sockets_opened", "WebSocket connections accepted, by kind.", ["kind"]
)
SOCKETS_SPREAD = Counter(
    "vipgame_sockets_spread",
    "WebSockets closed (1012) by a process holding more than its share, to reconnect "
    "to an emptier one (kernel.ops.spread).",
)
SOCKETS_SILENT = Counter(
    "vipgame_sockets_silent_closed",
    "WebSockets closed (4410) because their client sent nothing, not even its ping, "
    "for WS_SILENT_CLOSE_S, by kind.",
    ["kind"],
)
SOCKETS_SHED = Counter(
    "vipgame_sockets_shed",
    "WebSocket handshakes shed (closed with 1013) because too many were opening.",
)
MOVES = Counter(
    "vipgame_moves",
    "Moves applied to hands, by game and by whom (player, bot, timeout).",
    ["game", "by"],
)
ACTION_STATE_SECONDS = Histogram(
    "vipgame_action_state_seconds",
    "From receiving an action on a socket to having published the state it caused "
    "(every seat's group sent to the channel layer), by game and action type.",
    ["game", "action"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
MOVE_FANOUT_SECONDS = Histogram(
    "vipgame_move_fanout_seconds",
    "From receiving a move (an act) on a socket, in any process, to one recipient's "
    "frame of the state it caused written to that recipient's socket, by game: one "
    "observation per recipient (the wall clock: processes of several hosts compare).",
    ["game"],
    # Fine below 0.3 s: the load target is a p99 of 150 ms (bench.tables reads
    # the quantiles from these buckets).
    buckets=(0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1,
             0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0),
)  # fmt: skip
TIMER_LATENESS_SECONDS = Histogram(
    "vipgame_timer_lateness_seconds",
    "How long after its deadline a table clock was acted on, by clock.",
    ["clock"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0),
)
SWEEPER_SECONDS = Histogram(
    "vipgame_sweeper_seconds",
    "Duration of one sweeper run.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0),
)
GC_PAUSE_SECONDS = Histogram(
    "vipgame_gc_pause_seconds",
    "How long the process stood still for one collection of Python's garbage "
    "collector, by generation (2: a full collection; kernel.ops.pauses).",
    ["generation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
STATE_READS = Counter(
    "vipgame_state_reads",
    "Full table states read from the database for one socket, by why: its opening "
    "(a move landed meanwhile), a client's sync, its authentication, a refused move, "
    "a heartbeat that found it behind (catch_up), a delta whose base never came (gap).",
    ["reason"],
)
OUTAGES = Counter(
    "vipgame_outages",
    "Outages: no serving process reached PostgreSQL and Redis for longer than "
    "games.services.outages.OUTAGE_GAP.",
)
OUTAGE_SECONDS = Counter(
    "vipgame_outage_seconds", "Seconds of the outages (games.services.outages)."
)
CLOCKS_GIVEN_AGAIN = Counter(
    "vipgame_clocks_given_again",
    "Players' clocks given again whole because they ran during an outage, by clock.",
    ["clock"],
)
HANDS = Counter("vipgame_hands", "Hands dealt and finished, by game and event.", ["game", "event"])
BOTS_REFUSED = Counter(
    "vipgame_bots_refused",
    "Bots asked for and refused, by reason: pool (every bot busy and BOT_POOL_SIZE "
    "reached), house (the house cannot lend the chips), player and address (the "
    "asker's share of the pool).",
    ["reason"],
)

# -- errors ------------------------------------------------------------------------
HTTP_SERVER_ERRORS = Counter(
    "vipgame_http_server_errors",
    "HTTP responses with a 5xx status, by view (its URL name; unresolved when the "
    "request failed before its view was found) and status.",
    ["view", "status"],
)
SOCKET_ERRORS = Counter(
    "vipgame_socket_errors",
    "Error frames sent on WebSockets (a message refused, a handshake turned away), "
    "by kind (lobby, table) and error code (server_error, busy, rate_limited...).",
    ["kind", "code"],
)
CELERY_TASK_FAILURES = Counter(
    "vipgame_celery_task_failures",
    "Celery tasks that ended in an exception (after their last retry), by task.",
    ["task"],
)
CELERY_TASK_RETRIES = Counter(
    "vipgame_celery_task_retries",
    "Celery tasks that failed and were scheduled to run again, by task.",
    ["task"],
)
SCRAPE_READ_FAILURES = Counter(
    "vipgame_scrape_read_failures",
    "Reads of a store at scrape time that failed or timed out (their gauges are absent "
    "from that scrape), by source: database (the room's figures), postgresql (its "
    "statistics), redis (queues, sweeper), redis_<role> (that role's INFO).",
    ["source"],
)


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


_LIVE_FILE = re.compile(r"^gauge_live\w*_(\d+)\.db$")


def forget_dead_processes(path: str) -> None:
    """Drop the live gauges of processes that are gone (a restarted Daphne or
    Celery child): their open sockets are not open any more."""
    for entry in Path(path).iterdir():
        match = _LIVE_FILE.match(entry.name)
        if match is None:
            continue
        pid = int(match.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, path)
        except PermissionError:
            pass  # alive, another user's


# -- recording -----------------------------------------------------------------------


def socket_opened(kind: str) -> None:
    SOCKETS_OPEN.labels(kind).inc()
    SOCKETS_OPENED.labels(kind).inc()


def socket_closed(kind: str) -> None:
    SOCKETS_OPEN.labels(kind).dec()


def socket_spread() -> None:
    SOCKETS_SPREAD.inc()


def socket_silent(kind: str) -> None:
    SOCKETS_SILENT.labels(kind).inc()


def state_read(reason: str) -> None:
    STATE_READS.labels(reason).inc()


def socket_shed() -> None:
    SOCKETS_SHED.inc()


def table_committed(game: str, *, move_by: str | None, dealt: bool, finished: bool) -> None:
    if move_by is not None:
        MOVES.labels(game, move_by).inc()
    if dealt:
        HANDS.labels(game, "dealt").inc()
    if finished:
        HANDS.labels(game, "finished").inc()


def action_published(game: str, action: str, seconds: float) -> None:
    ACTION_STATE_SECONDS.labels(game, action).observe(seconds)


def move_fanned_out(game: str, seconds: float) -> None:
    # (max: wall clocks of two hosts can disagree by a little)
    MOVE_FANOUT_SECONDS.labels(game).observe(max(0.0, seconds))


def timer_fired(clock: str, lateness_s: float) -> None:
    TIMER_LATENESS_SECONDS.labels(clock or "none").observe(max(0.0, lateness_s))


def bot_refused(reason: str) -> None:
    BOTS_REFUSED.labels(reason).inc()


def sweeper_ran(seconds: float) -> None:
    SWEEPER_SECONDS.observe(seconds)


def outage_seen(seconds: float) -> None:
    OUTAGES.inc()
    OUTAGE_SECONDS.inc(seconds)


def clock_given_again(kind: str) -> None:
    CLOCKS_GIVEN_AGAIN.labels(kind).inc()


def http_server_error(view: str, status: int) -> None:
    HTTP_SERVER_ERRORS.labels(view, str(status)).inc()


def socket_error(kind: str, code: str) -> None:
    SOCKET_ERRORS.labels(kind, code).inc()


def celery_task_failed(task: str) -> None:
    CELERY_TASK_FAILURES.labels(task).inc()


def celery_task_retried(task: str) -> None:
    CELERY_TASK_RETRIES.labels(task).inc()


def scrape_read_failed(source: str) -> None:
    SCRAPE_READ_FAILURES.labels(source).inc()
