"""A usual move is at most three statements (docs/architecture.md "How a move
flows"), run as prepared statements of the connection unless ``DB_PREPARED``
is off (psycopg's ``prepare_threshold`` None: nothing is prepared)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from games import services
from games.models import Hand, Seat
from games.plugins import engine_for

from ..tables import statements_run
from .driver import ready_all, seated_table

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="PostgreSQL's prepared statements"
    ),
]


def _one_move(tables, table, step: int) -> list[str]:
    """One human move of the running hand: the SQL it ran."""
    tables.drain()
    table.refresh_from_db()
    hand = Hand.objects.get(pk=table.current_hand_id)
    engine = engine_for(table.game)
    state = engine.loads(hand.state)
    player = engine.status(state).actors[0]
    user = Seat.objects.get(table=table, position=hand.players[player]["position"]).user
    action = engine.bot_action(engine.view(state, player), seed=step)
    with statements_run() as ran:
        services.table_act(
            table_id=table.pk, user=user, action=action, client_id=f"m{step}", version=table.version
        )
    # (The test's own transaction makes the service's a savepoint.)
    return [sql for sql in ran if "SAVEPOINT" not in sql]


def _numbered(sql: str) -> str:
    """``%s`` placeholders as PostgreSQL numbers them ($1, $2...)."""
    parts = sql.split("%s")
    return parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], 1))


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def _in_play(tables, make_user):
    """A Tiến Lên table whose hand waits for a move (a random deal may end at
    once with an instant win: then another table is dealt)."""
    for _attempt in range(10):
        table, _ = seated_table(make_user, "tienlen", 4, 0)
        ready_all(table)
        tables.drain()
        table.refresh_from_db()
        assert table.current_hand_id is not None
        hand = Hand.objects.get(pk=table.current_hand_id)
        engine = engine_for(table.game)
        if hand.ended_at is None and engine.status(engine.loads(hand.state)).actors:
            return table
    raise AssertionError("ten deals in a row ended at once")


def test_a_move_is_three_prepared_statements(tables, make_user):
    table = _in_play(tables, make_user)

    statements = [_one_move(tables, table, step) for step in range(4)]

    assert all(len(sql) <= 3 for sql in statements), statements
    prepared = _prepared()
    assert "FOR UPDATE" in statements[-1][0]
    for sql in statements[-1]:
        assert _numbered(sql) in prepared


def test_nothing_is_prepared_when_the_connection_prepares_nothing(tables, make_user, monkeypatch):
    table = _in_play(tables, make_user)
    connection.ensure_connection()
    monkeypatch.setattr(connection.connection, "prepare_threshold", None)  # DB_PREPARED=0
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    connection.connection._prepared.clear()

    statements = [_one_move(tables, table, step) for step in range(3)]

    assert all(len(sql) <= 3 for sql in statements)
    assert _prepared() == []


def _orm_seats(table):
    """The seats as the ORM read them before ``sql.seats_with_chips``: with
    their users, and the chips each shows from a subquery."""
    from django.db.models import CharField, OuterRef, Subquery, Value
    from django.db.models.functions import Cast, Concat

    from games.plugins import plugin_for
    from wallet.models import Account

    if plugin_for(table.game).money.chips_on_seat:
        key = Concat(Value(f"seat:{table.pk}:"), Cast(OuterRef("position"), CharField()))
        accounts = Account.objects.filter(key=key)
    else:
        accounts = Account.objects.filter(kind=Account.Kind.USER, user=OuterRef("user"))
    return list(
        Seat.objects.filter(table=table)
        .select_related("user")
        .order_by("position")
        .annotate(chips=Subquery(accounts.values("balance")[:1]))
    )


@pytest.mark.parametrize("game", ["tienlen", "holdem"])
def test_the_seats_in_full_read_as_the_orm_read_them(tables, make_user, game):
    """One statement, no ORM compiling: the same seats, users and chips (a
    Hold'em stack, else the wallet), field for field."""
    from games import publish, sql

    table, _users = seated_table(make_user, game, 2, 1)
    ready_all(table)
    tables.drain()
    # (Any: ``chips`` is an annotation, not a field of Seat.)
    mine: list[Any] = sql.seats_with_chips(table, "escrow" if game == "holdem" else "wallet")
    theirs: list[Any] = _orm_seats(table)
    shown: list[Any] = publish.seats_with_chips(table)
    assert shown[0].chips == theirs[0].chips
    assert len(mine) == len(theirs) == 3
    for a, b in zip(mine, theirs, strict=True):
        assert {f.attname: getattr(a, f.attname) for f in Seat._meta.concrete_fields} == {
            f.attname: getattr(b, f.attname) for f in Seat._meta.concrete_fields
        }
        user_fields = type(b.user)._meta.concrete_fields
        assert {f.attname: getattr(a.user, f.attname) for f in user_fields} == {
            f.attname: getattr(b.user, f.attname) for f in user_fields
        }
        assert (a.chips, a.user.shown_name) == (b.chips, b.user.shown_name)
        assert a.chips is not None


def test_a_holds_amount_reads_as_the_orm_reads_it(tables, make_user):
    """``sql.held`` (a Ready's check of the seat's hold, no ORM compiling): the
    pending hold's amount, as ``seat_hold`` reads it; 0 once it is not pending."""
    from games import sql
    from games.plugins.money import seat_hold
    from wallet.models import Hold

    lan = make_user()
    table = services.table_create(owner=make_user(), game="tienlen", stake=5, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    seat = Seat.objects.get(table=table, user=lan)
    hold = seat_hold(seat)
    assert seat.hold_id is not None
    assert hold is not None
    assert sql.held(seat.hold_id) == hold.amount == 150  # 30 stakes
    Hold.objects.filter(pk=seat.hold_id).update(status=Hold.Status.VOIDED)
    assert seat_hold(seat) is None
    assert sql.held(seat.hold_id) == 0
