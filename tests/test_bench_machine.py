"""bench/stack.py's machine-time accounting: what bench.tables and
bench.transport add to the servers' CPU (PostgreSQL, Redis, the load client)."""

from __future__ import annotations

import json
import threading
import time

import pytest
import redis
from django.conf import settings
from django.db import connection

from bench.stack import cpu_used, errors_in, machine_time, service_cpu
from bench.tables import machine_rows


def burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_the_load_client_is_the_main_thread_and_the_rest_is_harness():
    before = service_cpu()
    burn(0.3)
    worker = threading.Thread(target=burn, args=(0.3,))
    worker.start()
    worker.join()
    used = cpu_used(before, service_cpu())

    assert used["client"] >= 0.25
    assert used["harness"] >= 0.25


@pytest.mark.django_db
def test_the_database_servers_work_is_counted():
    before = service_cpu()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM generate_series(1, 3000000)")
    used = cpu_used(before, service_cpu())

    assert used["postgres"] >= 0.05


def test_the_redis_servers_work_is_counted():
    client = redis.Redis.from_url(settings.REDIS_URL)
    before = service_cpu()
    client.eval("local n = 0 for i = 1, 20000000 do n = n + i end return 1", 0)
    used = cpu_used(before, service_cpu())

    assert used["redis"] >= 0.05


def test_machine_time_is_each_parts_cpu_per_action():
    result = machine_time({"daphne": 2.0, "postgres": 1.0, "client": 0.5}, 500, 2.0)

    assert result["ms_per_action"] == {"daphne": 4.0, "postgres": 2.0, "client": 1.0}
    assert result["total_ms_per_action"] == 7.0
    assert result["cores_busy"] == 1.75
    assert machine_time({"daphne": 1.0}, 0, 1.0)["total_ms_per_action"] is None


def test_a_move_beyond_the_transport_is_the_difference_of_the_two():
    result = {
        "machine": machine_time({"daphne": 3.0, "postgres": 1.0}, 1000, 2.0),
        "ceiling": {"machine": machine_time({"daphne": 1.5}, 1000, 1.0)},
    }

    rows = dict(machine_rows(result))

    assert rows["machine CPU per move, ms"] == "daphne 3.00 + postgres 1.00 = 4.00 (2.0 cores busy)"
    assert rows["a move beyond the transport, ms of CPU"] == "2.50"


def test_a_logged_traceback_is_reported_with_the_exception_it_raised(tmp_path):
    """A drill that fails on its servers' logs says what was raised."""
    (tmp_path / "worker.log").write_text(
        "INFO task ok\n"
        "Traceback (most recent call last):\n"
        '  File "games/tasks.py", line 3, in run\n'
        "    cursor.execute(sql)\n"
        "django.db.utils.OperationalError: server closed the connection unexpectedly\n"
        "[2026-11-30 05:00:00,000: ERROR/MainProcess] consumer: Cannot connect\n"
    )
    assert errors_in([tmp_path / "worker.log"]) == [
        "worker.log: Traceback (most recent call last): -> "
        "django.db.utils.OperationalError: server closed the connection unexpectedly",
        "worker.log: [2026-11-30 05:00:00,000: ERROR/MainProcess] consumer: Cannot connect",
    ]
    # A JSON log line carries its traceback in ``exc_info``; the next line is another record.
    record = {
        "level": "ERROR",
        "message": "sweeper failed",
        "exc_info": "Traceback (most recent call last):\n  File ...\nValueError: bad",
    }
    (tmp_path / "app.log").write_text(f"{json.dumps(record)}\n{json.dumps({'level': 'INFO'})}\n")
    [found] = errors_in([tmp_path / "app.log"])
    assert found.endswith(" -> ValueError: bad")
    assert found.startswith('app.log: {"level": "ERROR"')
