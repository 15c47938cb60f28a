"""A read snapshot whose connection dies as it starts (between BEGIN and its
SET TRANSACTION) must leave the thread's connection usable: the next read on
the same thread connects again. Seen in the multi-host kill drill (issue 33):
PgBouncer lost its server, and a Daphne's thread then answered every read
with "Cannot open a new connection in an atomic block"."""

import pytest
from django.db import OperationalError, connection, connections

from games.selectors import snapshot

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_snapshot_whose_connection_dies_as_it_starts_leaves_the_thread_usable(monkeypatch):
    killer = connections.create_connection("default")
    real_cursor = connection.cursor

    def cursor_that_loses_its_server():
        cursor = real_cursor()
        execute = cursor.execute

        def execute_after_the_kill(sql, *args, **kwargs):
            if sql.startswith("SET TRANSACTION"):  # the server ends this session now
                pid = connection.connection.info.backend_pid
                with killer.cursor() as other:
                    other.execute("SELECT pg_terminate_backend(%s)", [pid])
            return execute(sql, *args, **kwargs)

        cursor.execute = execute_after_the_kill  # type: ignore[method-assign]
        return cursor

    monkeypatch.setattr(connection, "cursor", cursor_that_loses_its_server)
    try:
        with pytest.raises(OperationalError), snapshot():
            pass
    finally:
        monkeypatch.undo()
        killer.close()

    assert not connection.in_atomic_block
    with snapshot(), connection.cursor() as cursor:  # connects again
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
