"""The database's and each Redis role's own figures, read when Prometheus
scrapes ``/metrics``: what postgres_exporter and redis_exporter would show,
for the one database and the Redis servers this room uses, with no other
process to run (docs/observability.md "PostgreSQL and Redis").

Cheap and never failing the scrape: one statement on PostgreSQL (its
statistics views, in a transaction whose ``statement_timeout`` is
``READY_TIMEOUT_S``, on a pooled connection waited for at most as long) and
one ``INFO`` per Redis server (the roles' reads side by side, each with the
probes' ``READY_TIMEOUT_S`` socket time-outs). A read that fails is logged
and counted (``vipgame_scrape_read_failures_total{source}``), and its gauges
are left out of that scrape.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import redis
from django.conf import settings
from django.db import connection, transaction
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from kernel.ops import metrics
from kernel.ops.heartbeat import client_for

logger = logging.getLogger(__name__)

#: ``pg_stat_activity.state`` of a client backend, as the label spells it.
STATES = (
    "active",
    "idle",
    "idle_in_transaction",
    "idle_in_transaction_aborted",
    "fastpath_function_call",
    "disabled",
)

# One statement, one scan of pg_stat_activity (at most max_connections rows)
# and one row of pg_stat_database. The scrape's own session is left out, and
# from the oldest transaction the backups' (pg_dump holds one transaction for
# the whole dump: the nightly backup would look like a stuck session).
# Sessions of other roles show no state unless the application's role has
# pg_read_all_stats (pg_monitor): docs/observability.md.
STATS_SQL = """
SELECT
  (SELECT coalesce(json_object_agg(state, n), '{}'::json) FROM (
     SELECT coalesce(state, 'unknown') AS state, count(*) AS n
     FROM pg_stat_activity
     WHERE datname = current_database() AND backend_type = 'client backend'
       AND pid <> pg_backend_pid()
     GROUP BY 1) AS s),
  (SELECT count(*) FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'),
  (SELECT coalesce(extract(epoch FROM max(clock_timestamp() - xact_start)), 0)
     FROM pg_stat_activity
     WHERE datname = current_database() AND backend_type = 'client backend'
       AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
       AND application_name NOT IN ('pg_dump', 'pg_basebackup')),
  (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'),
  current_setting('max_connections')::int,
  pg_database_size(current_database()),
  d.deadlocks, d.xact_rollback, d.xact_commit
FROM pg_stat_database AS d WHERE d.datname = current_database()
"""


def state_label(state: str) -> str:
    """``idle in transaction (aborted)`` → ``idle_in_transaction_aborted``."""
    return re.sub(r"\W+", "_", state).strip("_") or "unknown"


def _timeout_ms() -> str:
    return str(max(1, int(settings.READY_TIMEOUT_S * 1000)))


def read_database_stats() -> tuple[Any, ...]:
    """The row of :data:`STATS_SQL`, in a transaction bounded by
    ``READY_TIMEOUT_S`` (``SET LOCAL``: a pooler in transaction mode keeps it
    to this transaction)."""
    pool = getattr(connection, "pool", None)
    if pool is None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, true)", [_timeout_ms()])
            cursor.execute(STATS_SQL)
            row = cursor.fetchone()
    else:
        pool.open()
        with pool.connection(timeout=settings.READY_TIMEOUT_S) as conn, conn.transaction():
            conn.execute("SELECT set_config('statement_timeout', %s, true)", [_timeout_ms()])
            row = conn.execute(STATS_SQL).fetchone()
    if row is None:
        raise LookupError("pg_stat_database has no row for this database")
    return tuple(row)


def postgresql() -> Iterator[Metric]:
    try:
        row = read_database_stats()
    except Exception as exc:  # a scrape never fails on its database
        logger.warning("metrics: PostgreSQL statistics not read: %s", exc)
        metrics.scrape_read_failed("postgresql")
        if getattr(connection, "pool", None) is None:
            connection.close()
        return
    states, waiting, oldest, server, most, size, deadlocks, rollbacks, commits = row
    by_state = dict.fromkeys(STATES, 0)
    for state, count in (states or {}).items():
        label = state_label(state)
        by_state[label] = by_state.get(label, 0) + int(count)
    family = GaugeMetricFamily(
        "vipgame_pg_connections",
        "Sessions connected to this database now (the scrape's own left out), by state.",
        labels=["state"],
    )
    for state, count in by_state.items():
        family.add_metric([state], count)
    yield family
    yield GaugeMetricFamily(
        "vipgame_pg_server_connections",
        "Client sessions of the whole PostgreSQL server now, every database.",
        value=int(server),
    )
    yield GaugeMetricFamily(
        "vipgame_pg_max_connections", "PostgreSQL's max_connections.", value=int(most)
    )
    yield GaugeMetricFamily(
        "vipgame_pg_lock_waits",
        "Sessions of this database waiting for a lock now.",
        value=int(waiting),
    )
    yield GaugeMetricFamily(
        "vipgame_pg_oldest_transaction_seconds",
        "Age of the oldest open transaction on this database, backups' (pg_dump) left "
        "out (0 when none).",
        value=float(oldest),
    )
    yield GaugeMetricFamily(
        "vipgame_pg_database_bytes", "Size of this database on disk.", value=int(size)
    )
    for name, text, count in (
        ("vipgame_pg_deadlocks", "Deadlocks detected in this database.", deadlocks),
        ("vipgame_pg_rollbacks", "Transactions of this database rolled back.", rollbacks),
        ("vipgame_pg_commits", "Transactions of this database committed.", commits),
    ):
        yield CounterMetricFamily(
            name, text + " (pg_stat_database: since its statistics were reset)", value=int(count)
        )


# -- Redis -------------------------------------------------------------------------------


def redis_roles() -> dict[str, str]:
    """Each role's URL (docs/operations.md "Redis: roles, Sentinel, fail-over")."""
    return {
        "cache": settings.REDIS_CACHE_URL,
        "broker": settings.REDIS_BROKER_URL,
        "channels": settings.REDIS_CHANNELS_URL,
    }


#: INFO field → (metric, help, counter?)
INFO_FIELDS = (
    ("used_memory", "vipgame_redis_used_memory_bytes", "Memory Redis has allocated.", False),
    ("maxmemory", "vipgame_redis_maxmemory_bytes", "Redis's maxmemory (0: no limit).", False),
    ("connected_clients", "vipgame_redis_connected_clients", "Clients connected.", False),
    (
        "blocked_clients",
        "vipgame_redis_blocked_clients",
        "Clients waiting in a blocking command (BRPOP: Celery workers, channel readers).",
        False,
    ),
    (
        "instantaneous_ops_per_sec",
        "vipgame_redis_ops_per_second",
        "Commands per second (Redis's own estimate over its last seconds).",
        False,
    ),
    ("uptime_in_seconds", "vipgame_redis_uptime_seconds", "Seconds since Redis started.", False),
    ("evicted_keys", "vipgame_redis_evicted_keys", "Keys evicted at maxmemory.", True),
    (
        "rejected_connections",
        "vipgame_redis_rejected_connections",
        "Connections refused at maxclients.",
        True,
    ),
)


def _info(url: str) -> dict[str, Any]:
    return dict(client_for(url).info())


def redis_info() -> dict[str, dict[str, Any] | None]:
    """INFO of each role's server (one read per server), None where it failed."""
    roles = redis_roles()
    urls = list(dict.fromkeys(roles.values()))
    with ThreadPoolExecutor(max_workers=len(urls)) as pool:
        futures = {url: pool.submit(_info, url) for url in urls}
    found: dict[str, dict[str, Any] | None] = {}
    for role, url in roles.items():
        try:
            found[role] = futures[url].result()
        except (redis.RedisError, OSError) as exc:
            logger.warning("metrics: Redis INFO of the %s role not read: %s", role, exc)
            metrics.scrape_read_failed(f"redis_{role}")
            found[role] = None
    return found


def redis_servers() -> Iterator[Metric]:
    info = redis_info()
    up = GaugeMetricFamily(
        "vipgame_redis_role_up",
        "Whether the last scrape read the INFO of each Redis role's server.",
        labels=["role"],
    )
    primary = GaugeMetricFamily(
        "vipgame_redis_primary",
        "1 when the role's server is a primary (role:master), 0 a replica.",
        labels=["role"],
    )
    families: list[GaugeMetricFamily | CounterMetricFamily] = [
        (CounterMetricFamily if counter else GaugeMetricFamily)(name, text, labels=["role"])
        for _field, name, text, counter in INFO_FIELDS
    ]
    for role, fields in info.items():
        up.add_metric([role], 0 if fields is None else 1)
        if fields is None:
            continue
        primary.add_metric([role], 1 if fields.get("role") == "master" else 0)
        for family, (field, *_rest) in zip(families, INFO_FIELDS, strict=True):
            if field in fields:
                family.add_metric([role], float(fields[field]))
    yield up
    yield primary
    yield from families
