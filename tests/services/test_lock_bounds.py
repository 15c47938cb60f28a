"""A dead or cut-off host releases what it holds within seconds (issue 33,
item 1; docs/operations.md "Time-outs"): another connection takes a table's
row lock inside a transaction and then goes silent, as a process on a host
that dropped off the network would. PostgreSQL ends that session after
``DB_IDLE_IN_TRANSACTION_TIMEOUT_MS`` (the application's sessions get it as a
startup option), and a move at the table goes through within that plus
``DB_LOCK_TIMEOUT_MS``; while the lock is held, a move waits at most
``DB_LOCK_TIMEOUT_MS`` per attempt and is answered ``busy``, never a server
error."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.conf import settings
from django.db import OperationalError, connection

from games import services
from games.models import Hand, Seat, Table
from games.plugins import engine_for
from kernel.errors import Busy

from .driver import ready_all, seated_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's session bounds"),
]

# Beyond the documented bound: the machine is shared and loaded (a move's own
# time, the retry's pauses, a busy answer's resend).
SLACK_S = 3.0


def holder() -> psycopg.Connection:
    """A connection made as the application makes its own (the same startup
    options): what a Daphne or a worker of another host would hold."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    return psycopg.connect(**params, autocommit=False)


def take_row_lock(conn: psycopg.Connection, table_id: int) -> None:
    conn.execute(f"SELECT 1 FROM {Table._meta.db_table} WHERE id = %s FOR UPDATE", [table_id])


def in_play(make_user):
    """A Hold'em table of two people whose hand waits for a move."""
    table, _users = seated_table(make_user, "holdem", 2, 0)
    ready_all(table)
    table.refresh_from_db()
    assert table.current_hand_id is not None
    return table


def mover(table: Table):
    """(user, action, version) of the next move at the table."""
    table.refresh_from_db()
    assert table.current_hand_id is not None
    hand = Hand.objects.get(pk=table.current_hand_id)
    engine = engine_for(table.game)
    state = engine.loads(hand.state)
    player = engine.status(state).actors[0]
    user = Seat.objects.get(table=table, position=hand.players[player]["position"]).user
    return user, engine.bot_action(engine.view(state, player), seed=1), table.version


def test_a_table_whose_lock_holder_vanished_moves_again_within_the_bound(tables, make_user):
    table = in_play(make_user)
    user, action, version = mover(table)
    gone = holder()
    take_row_lock(gone, table.pk)  # ... and the host drops off the network
    started = time.monotonic()
    bound_s = (settings.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS + settings.DB_LOCK_TIMEOUT_MS) / 1000

    answers: list[str] = []
    result = None
    try:
        while result is None and time.monotonic() - started < bound_s + SLACK_S:
            try:
                result = services.table_act(
                    table_id=table.pk,
                    user=user,
                    action=action,
                    client_id="after-1",
                    version=version,
                )
            except Busy as err:  # the client sends the same move again
                answers.append(err.code)
        took = time.monotonic() - started

        assert result is not None, f"still locked after {took:.1f} s: {answers}"
        assert took <= bound_s + SLACK_S
        table.refresh_from_db()
        assert table.version > version
        # PostgreSQL ended the silent session: its transaction is gone.
        with pytest.raises(psycopg.errors.IdleInTransactionSessionTimeout):
            gone.execute("SELECT 1")
    finally:
        gone.close()


def test_a_move_behind_a_held_lock_is_answered_busy_within_the_lock_bound(
    tables, make_user, settings
):
    settings.DB_RETRY_ATTEMPTS = 1
    table = in_play(make_user)
    user, action, version = mover(table)
    busy = holder()
    try:
        take_row_lock(busy, table.pk)
        started = time.monotonic()
        with pytest.raises(Busy):
            services.table_act(
                table_id=table.pk, user=user, action=action, client_id="locked-1", version=version
            )
        assert time.monotonic() - started < settings.DB_LOCK_TIMEOUT_MS / 1000 + SLACK_S
    finally:
        busy.rollback()
        busy.close()
    # The lock gone, the same move goes through.
    services.table_act(
        table_id=table.pk, user=user, action=action, client_id="locked-1", version=version
    )


def test_the_sessions_carry_the_bounds():
    with connection.cursor() as cursor:
        shown = {}
        for name in ("lock_timeout", "idle_in_transaction_session_timeout", "statement_timeout"):
            cursor.execute(f"SELECT setting FROM pg_settings WHERE name = '{name}'")
            shown[name] = int(cursor.fetchone()[0])
    assert shown == {
        "lock_timeout": settings.DB_LOCK_TIMEOUT_MS,
        "idle_in_transaction_session_timeout": settings.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        "statement_timeout": settings.DB_STATEMENT_TIMEOUT_MS,
    }
    assert all(shown.values())


def test_a_statement_past_its_bound_is_busy_not_a_server_error(tables, make_user):
    from kernel.retry import retried

    @retried
    def slow() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 50")
            cursor.execute("SELECT pg_sleep(1)")

    with pytest.raises(Busy) as caught:
        slow()
    assert isinstance(caught.value.__cause__, OperationalError)


@pytest.mark.parametrize("cause", [psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable])
def test_a_bound_running_out_outside_a_service_is_busy_on_the_api(cause):
    """An API view's own read cancelled by a bound (not in a retried service):
    503 ``busy`` with ``Retry-After``, not a 500."""
    from kernel.api.errors import exception_handler

    exc = OperationalError("canceling statement")
    exc.__cause__ = cause("canceling statement")

    response = exception_handler(exc, {})

    assert response.status_code == 503
    assert response.data["code"] == "busy"
    assert response["Retry-After"] == "1"


def test_the_sweeper_skips_a_timer_whose_table_row_is_held(tables, make_user):
    """A table row held past the lock bound costs the sweeper that table's
    timer claim for one run, not the whole run (settlements, bots)."""
    from games.services.tables import claim_timers

    held, free = in_play(make_user), in_play(make_user)
    for table in (held, free):
        table.refresh_from_db()
        assert table.deadline is not None
        assert table.clock_version > 0
    Table.objects.filter(pk__in=[held.pk, free.pk]).update(timer_version=0)
    tables.clock.moment = max(held.deadline, free.deadline)
    busy = holder()
    try:
        take_row_lock(busy, held.pk)
        claimed = {table_id for table_id, _version, _at in claim_timers()}
    finally:
        busy.rollback()
        busy.close()
    assert free.pk in claimed
    assert held.pk not in claimed
    # The next run claims it.
    assert {table_id for table_id, _version, _at in claim_timers()} == {held.pk}
