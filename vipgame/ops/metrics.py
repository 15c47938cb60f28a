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
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

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
HANDS = Counter("vipgame_hands", "Hands dealt and finished, by game and event.", ["game", "event"])


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


# -- scrape time -------------------------------------------------------------------


def celery_queues() -> list[str]:
    """The queues the workers read: the default one, those of CELERY_TASK_QUEUES
    and those named in CELERY_TASK_ROUTES."""
    from django.conf import settings

    names = [settings.CELERY_TASK_DEFAULT_QUEUE]
    for queue in getattr(settings, "CELERY_TASK_QUEUES", None) or ():
        names.append(getattr(queue, "name", queue))
    routes = getattr(settings, "CELERY_TASK_ROUTES", None) or {}
    if isinstance(routes, dict):
        for route in routes.values():
            if isinstance(route, dict) and route.get("queue"):
                names.append(route["queue"])
    return list(dict.fromkeys(str(n) for n in names))


# kombu's Redis transport keeps a queue in a list, with one more list per
# priority step (``<queue>\x06\x16<n>``); tasks a worker holds (ETA timers
# included) are in the ``unacked`` hash until acknowledged.
PRIORITY_STEPS = (3, 6, 9)


class ScrapeCollector(Collector):
    """Figures read from PostgreSQL and Redis when Prometheus scrapes."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from . import health

        yield from self._database()
        yield from self._redis(health)

    def _database(self) -> Iterator[GaugeMetricFamily]:
        from django.db import connection

        from wallet.models import Account
        from wallet.services import ISSUANCE_KEY

        from . import health

        up = GaugeMetricFamily("vipgame_database_up", "Whether the last scrape read PostgreSQL.")
        try:
            backlog = health.settlement_backlog()
            balance = (
                Account.objects.filter(key=ISSUANCE_KEY).values_list("balance", flat=True).first()
            )
            issued = -(balance or 0)
        except Exception as exc:
            logger.warning("metrics: database unreachable: %s", exc)
            if getattr(connection, "pool", None) is None:
                connection.close()
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield GaugeMetricFamily(
            "vipgame_settlement_backlog", "Finished hands not yet settled.", value=backlog
        )
        yield GaugeMetricFamily(
            "vipgame_chips_issued",
            "Chips issued so far (sign-up grants, bonuses, staff credits, less what was "
            "taken back): minus the balance of the issuance account.",
            value=issued,
        )

    def _redis(self, health: Any) -> Iterator[GaugeMetricFamily]:
        import redis

        up = GaugeMetricFamily("vipgame_redis_up", "Whether the last scrape read Redis.")
        queues = GaugeMetricFamily(
            "vipgame_celery_queue_length", "Tasks waiting in each Celery queue.", labels=["queue"]
        )
        try:
            client = health.redis_client()
            names = celery_queues()
            with client.pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.llen(name)
                    for step in PRIORITY_STEPS:
                        pipe.llen(f"{name}\x06\x16{step}")
                pipe.hlen("unacked")
                pipe.get(health.sweeper_key())
                results = pipe.execute()
        except (redis.RedisError, OSError) as exc:
            logger.warning("metrics: Redis unreachable: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        per_queue = 1 + len(PRIORITY_STEPS)
        for index, name in enumerate(names):
            queues.add_metric([name], sum(results[index * per_queue : (index + 1) * per_queue]))
        yield queues
        yield GaugeMetricFamily(
            "vipgame_celery_unacked_tasks",
            "Tasks taken by workers and not yet done (ETA timers included).",
            value=results[-2],
        )
        last = results[-1]
        if last is not None:
            with contextlib.suppress(ValueError):
                yield GaugeMetricFamily(
                    "vipgame_sweeper_last_run_age_seconds",
                    "Seconds since the sweeper last finished a run.",
                    value=max(0.0, time.time() - float(last)),
                )


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


def render() -> bytes:
    """The Prometheus text exposition of every metric."""
    path = multiprocess_dir()
    registry: CollectorRegistry
    if path:
        forget_dead_processes(path)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=path)
    else:
        registry = CollectorRegistry()
        registry.register(_InProcess())
    registry.register(ScrapeCollector())
    return generate_latest(registry)


class _InProcess(Collector):
    """The default registry's metrics (this process only: no multiprocess dir)."""

    def collect(self) -> Iterator[Any]:
        yield from REGISTRY.collect()


# -- recording -----------------------------------------------------------------------


def socket_opened(kind: str) -> None:
    SOCKETS_OPEN.labels(kind).inc()
    SOCKETS_OPENED.labels(kind).inc()


def socket_closed(kind: str) -> None:
    SOCKETS_OPEN.labels(kind).dec()


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


def timer_fired(clock: str, lateness_s: float) -> None:
    TIMER_LATENESS_SECONDS.labels(clock or "none").observe(max(0.0, lateness_s))


def sweeper_ran(seconds: float) -> None:
    SWEEPER_SECONDS.observe(seconds)
