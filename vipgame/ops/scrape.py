"""``/metrics``: the events counted where they happen (``kernel.ops.metrics``)
and the figures read from the shared stores when Prometheus scrapes. Those
read every app (wallet's issuance, games' seats and hands), so they are the
site's."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

from kernel.ops import heartbeat, metrics
from kernel.ops.metrics import forget_dead_processes, multiprocess_dir

from . import health, stores

logger = logging.getLogger(__name__)


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


def bot_counts() -> tuple[int, int]:
    """Bots seated now, and bot accounts (the pool so far)."""
    from django.apps import apps

    seat, user = apps.get_model("games", "Seat"), apps.get_model("accounts", "User")
    return seat.objects.filter(is_bot=True).count(), user.objects.filter(is_bot=True).count()


class ScrapeCollector(Collector):
    """Figures read from PostgreSQL and Redis when Prometheus scrapes: the
    room's (backlog, chips, bots, queues, sweeper) and the stores' own
    (``stores``: connections, locks, memory...)."""

    def collect(self) -> Iterator[Metric]:
        yield from self._database()
        yield from stores.postgresql()
        yield from self._redis()
        yield from stores.redis_servers()

    def _database(self) -> Iterator[GaugeMetricFamily]:
        from django.db import connection
        from django.db.models import Sum

        from wallet.models import Account
        from wallet.services import ISSUANCE_KEY

        up = GaugeMetricFamily("vipgame_database_up", "Whether the last scrape read PostgreSQL.")
        try:
            backlog = health.settlement_backlog()
            balance = (
                Account.objects.filter(key=ISSUANCE_KEY).values_list("balance", flat=True).first()
            )
            issued = -(balance or 0)
            imbalance = Account.objects.aggregate(total=Sum("balance"))["total"] or 0
            in_use, pool = bot_counts()
        except Exception as exc:
            logger.warning("metrics: database unreachable: %s", exc)
            metrics.scrape_read_failed("database")
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
        yield from self._bots(in_use, pool)
        yield GaugeMetricFamily(
            "vipgame_chips_issued",
            "Chips issued so far (sign-up grants, bonuses, staff credits, less what was "
            "taken back): minus the balance of the issuance account.",
            value=issued,
        )
        yield GaugeMetricFamily(
            "vipgame_chips_imbalance",
            "The money check: the sum of every account's balance (the issuance account's "
            "negative one included), 0 while every chip moved from one account to another.",
            value=imbalance,
        )

    def _bots(self, in_use: int, pool: int) -> Iterator[GaugeMetricFamily]:
        from django.conf import settings

        yield GaugeMetricFamily(
            "vipgame_bots_in_use",
            "Bots seated at tables now (each bot of the pool sits at one table at a time).",
            value=in_use,
        )
        yield GaugeMetricFamily(
            "vipgame_bot_pool_size",
            "Bot accounts created so far (they are created when none is free).",
            value=pool,
        )
        yield GaugeMetricFamily(
            "vipgame_bot_pool_cap",
            "The most bot accounts there may be (BOT_POOL_SIZE).",
            value=settings.BOT_POOL_SIZE,
        )

    def _redis(self) -> Iterator[GaugeMetricFamily]:
        import redis

        up = GaugeMetricFamily("vipgame_redis_up", "Whether the last scrape read Redis.")
        queues = GaugeMetricFamily(
            "vipgame_celery_queue_length", "Tasks waiting in each Celery queue.", labels=["queue"]
        )
        try:
            names = celery_queues()
            # (the broker's and the cache's Redis: one server unless split by role)
            with heartbeat.broker_client().pipeline(transaction=False) as pipe:
                for name in names:
                    pipe.llen(name)
                    for step in PRIORITY_STEPS:
                        pipe.llen(f"{name}\x06\x16{step}")
                pipe.hlen("unacked")
                results = pipe.execute()
            results.append(heartbeat.redis_client().get(heartbeat.sweeper_key()))
        except (redis.RedisError, OSError) as exc:
            logger.warning("metrics: Redis unreachable: %s", exc)
            metrics.scrape_read_failed("redis")
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


def render() -> bytes:
    """The Prometheus text exposition of every metric."""
    path = multiprocess_dir()
    registry: CollectorRegistry
    # The scrape-time reads first: a read that fails is counted
    # (vipgame_scrape_read_failures_total) before the counters are collected,
    # so that very answer shows it.
    registry = CollectorRegistry()
    registry.register(ScrapeCollector())
    if path:
        forget_dead_processes(path)
        multiprocess.MultiProcessCollector(registry, path=path)
    else:
        registry.register(_InProcess())
    return generate_latest(registry)


class _InProcess(Collector):
    """The default registry's metrics (this process only: no multiprocess dir)."""

    def collect(self) -> Iterator[Any]:
        yield from REGISTRY.collect()
