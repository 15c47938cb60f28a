"""Issue 33 item 8: the database's and each Redis role's own figures in
/metrics (vipgame.ops.stores), plausible, and never failing the scrape."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
import redis

from kernel.ops import heartbeat
from vipgame.ops import stores

from ..processes import free_port
from .helpers import samples, value

pytestmark = pytest.mark.django_db(transaction=True)


def other_session() -> psycopg.Connection:
    """A session of our own on the test database, as another process would hold."""
    from django.db import connection

    s = connection.settings_dict
    return psycopg.connect(
        dbname=s["NAME"],
        host=s["HOST"] or None,
        port=s["PORT"] or None,
        user=s["USER"] or None,
        password=s["PASSWORD"] or None,
    )


def until(predicate, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


# -- PostgreSQL ---------------------------------------------------------------------


def test_a_transaction_left_open_and_a_lock_wait_show(settings):
    before = samples()
    for state in stores.STATES:
        assert ("vipgame_pg_connections", (("state", state),)) in before
    assert before[("vipgame_pg_database_bytes", ())] > 1_000_000
    assert (
        0
        < before[("vipgame_pg_server_connections", ())]
        <= before[("vipgame_pg_max_connections", ())]
    )
    assert before[("vipgame_pg_commits_total", ())] > 0

    holder, waiter = other_session(), other_session()
    waited: list[object] = []
    try:
        holder.execute("SELECT pg_advisory_xact_lock(4242)")  # opens a transaction
        time.sleep(1.2)
        thread = threading.Thread(
            target=lambda: waited.append(waiter.execute("SELECT pg_advisory_lock(4242)")),
            daemon=True,
        )
        thread.start()
        assert until(lambda: value("vipgame_pg_lock_waits") >= 1)
        during = samples()
        key = ("vipgame_pg_connections", (("state", "idle_in_transaction"),))
        assert during[key] >= before[key] + 1
        assert during[("vipgame_pg_oldest_transaction_seconds", ())] >= 1.0
        assert during[("vipgame_pg_lock_waits", ())] >= 1
    finally:
        holder.rollback()  # the lock goes with the transaction: the waiter gets it
    thread.join(5)
    assert waited
    waiter.execute("SELECT pg_advisory_unlock(4242)")
    waiter.commit()
    holder.close()
    waiter.close()
    # A rollback is counted once its session has reported it (at its exit at the latest).
    assert until(
        lambda: value("vipgame_pg_rollbacks_total") > before[("vipgame_pg_rollbacks_total", ())]
    )
    assert value("vipgame_pg_lock_waits") == 0


def test_a_backup_transaction_is_not_the_oldest():
    """pg_dump holds one transaction for the whole dump: not a stuck session."""
    dump = other_session()
    try:
        dump.execute("SET application_name = 'pg_dump'")
        dump.execute("SELECT 1")  # its transaction is open from here
        time.sleep(1.2)
        assert value("vipgame_pg_oldest_transaction_seconds") < 1.0
        dump.execute("SET application_name = 'psql'")  # the same transaction, someone else
        assert value("vipgame_pg_oldest_transaction_seconds") >= 1.0
    finally:
        dump.rollback()
        dump.close()


def test_a_slow_statistics_read_is_cut_short_and_counted(settings, monkeypatch):
    """The statistics' statement runs at most READY_TIMEOUT_S: a slow one is
    cancelled, counted, its gauges left out, and the rest of /metrics is served."""
    settings.READY_TIMEOUT_S = 0.3
    monkeypatch.setattr(stores, "STATS_SQL", "SELECT pg_sleep(5)")
    failures = value("vipgame_scrape_read_failures_total", source="postgresql")
    started = time.monotonic()
    found = samples()
    assert time.monotonic() - started < 3
    assert found[("vipgame_scrape_read_failures_total", (("source", "postgresql"),))] == (
        failures + 1
    )
    assert not any(name.startswith("vipgame_pg_") for name, _ in found)
    assert found[("vipgame_database_up", ())] == 1
    assert found[("vipgame_settlement_backlog", ())] == 0


# -- Redis ----------------------------------------------------------------------------


@contextmanager
def blocked_client(url: str) -> Iterator[None]:
    """A client waiting in BLPOP on ``url`` (as a Celery worker waits)."""
    client = redis.Redis.from_url(url)
    key = f"test:stores:{time.monotonic_ns()}"
    thread = threading.Thread(target=lambda: client.blpop([key], timeout=3), daemon=True)
    thread.start()
    try:
        yield
    finally:
        redis.Redis.from_url(url).lpush(key, "done")
        thread.join(5)
        client.close()


def test_each_redis_role_is_read(settings):
    roles = ("cache", "broker", "channels")
    before = samples()
    for role in roles:
        labels = (("role", role),)
        assert before[("vipgame_redis_role_up", labels)] == 1
        assert before[("vipgame_redis_primary", labels)] == 1
        assert before[("vipgame_redis_used_memory_bytes", labels)] > 100_000
        assert before[("vipgame_redis_connected_clients", labels)] >= 1
        assert before[("vipgame_redis_uptime_seconds", labels)] > 0
        assert ("vipgame_redis_evicted_keys_total", labels) in before
        assert ("vipgame_redis_ops_per_second", labels) in before
    blocked = ("vipgame_redis_blocked_clients", (("role", "broker"),))
    with blocked_client(settings.REDIS_BROKER_URL):
        assert until(lambda: samples()[blocked] >= before[blocked] + 1)


def test_a_redis_role_that_does_not_answer_does_not_fail_the_scrape(settings, client):
    settings.REDIS_CHANNELS_URL = f"redis://127.0.0.1:{free_port()}/0"
    settings.READY_TIMEOUT_S = 0.5
    failures = value("vipgame_scrape_read_failures_total", source="redis_channels")
    response = client.get("/metrics")
    assert response.status_code == 200
    found = samples(response.content.decode())
    channels = (("role", "channels"),)
    assert found[("vipgame_redis_role_up", channels)] == 0
    assert found[("vipgame_redis_role_up", (("role", "cache"),))] == 1
    assert ("vipgame_redis_used_memory_bytes", channels) not in found
    assert ("vipgame_redis_used_memory_bytes", (("role", "broker"),)) in found
    assert found[("vipgame_scrape_read_failures_total", (("source", "redis_channels"),))] == (
        failures + 1
    )
    assert found[("vipgame_redis_up", ())] == 1  # the broker's and the cache's reads
    assert ("vipgame_pg_database_bytes", ()) in found


def test_every_store_down_still_answers_in_time(settings, client):
    closed = f"redis://127.0.0.1:{free_port()}/0"
    settings.REDIS_CHANNELS_URL = settings.REDIS_BROKER_URL = settings.REDIS_CACHE_URL = closed
    settings.READY_TIMEOUT_S = 0.5
    heartbeat._client.cache_clear()
    started = time.monotonic()
    response = client.get("/metrics")
    assert time.monotonic() - started < 5
    assert response.status_code == 200
    found = samples(response.content.decode())
    for role in ("cache", "broker", "channels"):
        assert found[("vipgame_redis_role_up", (("role", role),))] == 0
    assert found[("vipgame_redis_up", ())] == 0
