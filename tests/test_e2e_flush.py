"""The browser tests' flush beside the live processes (tests/e2e/conftest.py)
waits up to 5 s for a lock; the connection it used goes back to the pool, so
the next test that takes it must find the session's own bound again
(``DB_LOCK_TIMEOUT_MS``): one did find 5 s, and failed."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection


@pytest.mark.django_db(transaction=True)
def test_the_flush_beside_the_processes_leaves_the_sessions_lock_timeout():
    from tests.e2e.conftest import flush_beside_the_processes

    flush_beside_the_processes()
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting FROM pg_settings WHERE name = 'lock_timeout'")
        assert int(cursor.fetchone()[0]) == settings.DB_LOCK_TIMEOUT_MS
