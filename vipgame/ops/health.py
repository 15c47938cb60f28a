"""Liveness and readiness, and the sweeper's heartbeat.

``/healthz`` answers from the process alone. ``/readyz`` checks, each with a
short time-out: the database (the settlement backlog query is the round trip),
Redis (reading the sweeper's heartbeat is the round trip), the sweeper's last
run (a Redis key the sweeper task sets when it finishes, at most
``READY_SWEEPER_MAX_AGE_S`` old) and the settlement backlog (finished hands not
yet settled, below ``READY_BACKLOG_MAX``; an index on unsettled hands keeps it
cheap). Two round trips in all: cheap enough to poll every second.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from django.conf import settings
from django.db import connection

from kernel.ops.heartbeat import redis_client, sweeper_key

logger = logging.getLogger(__name__)


BACKLOG_SQL = 'SELECT count(*) FROM "games_hand" WHERE NOT "settled" AND "ended_at" IS NOT NULL'


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


def _check_database() -> tuple[dict[str, Any], int | None]:
    started = time.perf_counter()
    try:
        backlog = settlement_backlog()
    except Exception as exc:  # any database failure is "not ready"
        if getattr(connection, "pool", None) is None:
            connection.close()  # do not keep a broken connection for the next probe
        return {"ok": False, "error": type(exc).__name__}, None
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}, backlog


def _check_redis() -> tuple[dict[str, Any], float | None]:
    started = time.perf_counter()
    try:
        raw = redis_client().get(sweeper_key())
    except (redis.RedisError, OSError) as exc:
        return {"ok": False, "error": type(exc).__name__}, None
    check = {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}
    try:
        return check, None if raw is None else float(raw)
    except ValueError:
        return check, None


def readiness() -> tuple[bool, dict[str, Any]]:
    """Every check, and whether all passed."""
    database, backlog = _check_database()
    redis_check, last_run = _check_redis()
    max_age = settings.READY_SWEEPER_MAX_AGE_S
    if not redis_check["ok"]:
        sweeper: dict[str, Any] = {"ok": False, "error": "redis unreachable"}
    elif last_run is None:
        sweeper = {"ok": False, "error": "no run recorded", "max_age_s": max_age}
    else:
        age = round(time.time() - last_run, 2)
        sweeper = {"ok": age <= max_age, "age_s": age, "max_age_s": max_age}
    limit = settings.READY_BACKLOG_MAX
    if backlog is None:
        backlog_check: dict[str, Any] = {"ok": False, "error": "database unreachable"}
    else:
        backlog_check = {"ok": backlog < limit, "hands": backlog, "max": limit}
    checks = {
        "database": database,
        "redis": redis_check,
        "sweeper": sweeper,
        "settlement_backlog": backlog_check,
    }
    return all(c["ok"] for c in checks.values()), checks
