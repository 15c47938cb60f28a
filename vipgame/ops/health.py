"""Liveness and readiness, and the sweeper's heartbeat.

``/healthz`` answers from the process alone. ``/readyz`` says whether *this
process* can serve (issue 33): its database connection answers, through the
pooler if there is one, running a statement the way the hot path runs it
(prepared, or unnamed behind a pooler: ``kernel.sql.prepares``), and its Redis
answers (each role's, when they are split); each check with a short time-out
(``READY_TIMEOUT_S``). Two round trips in all with one Redis: cheap enough to
poll every second.

What is true of the whole room (the sweeper's age, the settlement backlog) is
not readiness: every process would fail it together, and a balancer would
take the whole room out at once. Those are metrics
(``vipgame_sweeper_last_run_age_seconds``, ``vipgame_settlement_backlog``) with
alert rules (docs/observability.md "Alerts"); the Redis check shows the
sweeper's age, for a person reading it, without failing on it.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from django.conf import settings
from django.db import connection

from kernel import sql
from kernel.ops.heartbeat import client_for, redis_client, sweeper_key

logger = logging.getLogger(__name__)


BACKLOG_SQL = 'SELECT count(*) FROM "games_hand" WHERE NOT "settled" AND "ended_at" IS NOT NULL'
# The probe's statement: the session's bounds (what the pooler or the role
# gave it), asked as the hot path asks its own statements.
PROBE_SQL = (
    "SELECT current_setting('lock_timeout'), current_setting('statement_timeout'), "
    "current_setting('idle_in_transaction_session_timeout'), %s::int"
)


def settlement_backlog() -> int:
    """Finished hands not yet settled (the partial index ``hand_unsettled``).

    With the connection pool the probe borrows a connection for at most
    ``READY_TIMEOUT_S`` (a dead database fails fast instead of waiting the
    pool's own time-out); without it, Django's connection (``connect_timeout``).
    """
    pool = getattr(connection, "pool", None)
    if pool is None:
        with connection.cursor() as cursor:
            cursor.execute(BACKLOG_SQL)
            row = cursor.fetchone()
    else:
        pool.open()
        with pool.connection(timeout=settings.READY_TIMEOUT_S) as conn:
            row = conn.execute(BACKLOG_SQL).fetchone()
    return int(row[0]) if row else 0


def _probe(raw: Any) -> dict[str, Any]:
    prepared = sql.prepares(raw)
    row = raw.execute(PROBE_SQL, [1], prepare=prepared).fetchone()
    return {
        "pooler": sql.behind_pooler(raw),
        "prepared": prepared,
        "lock_timeout": row[0],
        "statement_timeout": row[1],
        "idle_in_transaction_session_timeout": row[2],
    }


def database_probe() -> dict[str, Any]:
    """This process's database connection answers: one statement on a
    connection of its pool (waiting at most ``READY_TIMEOUT_S`` for one),
    without the pool: on Django's own connection (``connect_timeout``)."""
    pool = getattr(connection, "pool", None)
    if pool is None:
        connection.ensure_connection()
        return _probe(connection.connection)
    pool.open()
    with pool.connection(timeout=settings.READY_TIMEOUT_S) as raw:
        return _probe(raw)


def _check_database() -> dict[str, Any]:
    started = time.perf_counter()
    try:
        found = database_probe()
    except Exception as exc:  # any database failure is "not ready"
        if getattr(connection, "pool", None) is None:
            connection.close()  # do not keep a broken connection for the next probe
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1), **found}


def _check_redis() -> dict[str, Any]:
    """Redis answers (reading the sweeper's heartbeat is the round trip; its
    age is shown, not judged)."""
    started = time.perf_counter()
    try:
        raw = redis_client().get(sweeper_key())
    except (redis.RedisError, OSError) as exc:
        return {"ok": False, "error": type(exc).__name__}
    check: dict[str, Any] = {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}
    try:
        check["sweeper_age_s"] = None if raw is None else round(time.time() - float(raw), 2)
    except ValueError:
        check["sweeper_age_s"] = None
    return check


def readiness() -> tuple[bool, dict[str, Any]]:
    """This process's checks, and whether all passed."""
    checks = {"database": _check_database(), "redis": _check_redis()}
    # Redis split by role (docs/operations.md "Redis: roles, Sentinel,
    # fail-over"): each other one this process uses is pinged too.
    for role, url in (
        ("redis_channels", settings.REDIS_CHANNELS_URL),
        ("redis_broker", settings.REDIS_BROKER_URL),
    ):
        if url != settings.REDIS_CACHE_URL:
            checks[role] = _ping(url)
    return all(c["ok"] for c in checks.values()), checks


def _ping(url: str) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        client_for(url).ping()
    except (redis.RedisError, OSError) as exc:
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}
