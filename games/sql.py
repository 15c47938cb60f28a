"""The table services' hot path in SQL (issue 15): a move is three statements
and no ORM query compilation.

1. :func:`lock_table`: the table row, ``FOR UPDATE`` (every table service
   starts here: one writer per table).
2. :func:`hand_and_refs`: the current hand (with its engine state) and the
   seats in short, read after the lock so that both are the latest committed.
3. :func:`write`: one statement that updates the table's changed columns and,
   as data-modifying CTEs, the hand's state, the seat's recent client ids and
   the new events.

The statements are built once per process from the models' fields (column
names and conversions are Django's), so they stay true to the migrations.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Field

from games.models import Hand, HandEvent, Seat, Table
from games.refs import EventRecord, SeatRef
from vipgame.accounts.models import User


@cache
def _fields(model: Any) -> list[Field[Any, Any]]:
    return list(model._meta.concrete_fields)


@cache
def _converters_of(model: Any) -> list[tuple[int, Any]]:
    """(index, field) of the columns whose raw value needs Django's conversion
    (JSON arrives as text)."""
    return [(i, f) for i, f in enumerate(_fields(model)) if hasattr(f, "from_db_value")]


@cache
def _attnames(model: Any) -> list[str]:
    return [f.attname for f in _fields(model)]


def _from_row(model: Any, row: Sequence[Any]) -> Any:
    values = list(row)
    for i, field in _converters_of(model):
        values[i] = field.from_db_value(values[i], None, connection)
    return model.from_db(DEFAULT_DB_ALIAS, _attnames(model), values)


def _columns(alias: str, model: Any) -> str:
    return ", ".join(f'{alias}."{f.column}"' for f in _fields(model))


@cache
def _lock_sql() -> str:
    return (
        f'SELECT {_columns("t", Table)} FROM {Table._meta.db_table} t WHERE t."id" = %s FOR UPDATE'
    )


def lock_table(table_id: int) -> Table | None:
    with connection.cursor() as cursor:
        cursor.execute(_lock_sql(), [table_id])
        row = cursor.fetchone()
    table: Table | None = None if row is None else _from_row(Table, row)
    return table


def table_values(table: Table) -> dict[str, Any]:
    """The table's column values as loaded (to write back only what changed)."""
    return {f.attname: copy.deepcopy(getattr(table, f.attname)) for f in _fields(Table)}


def table_as(table: Table, values: dict[str, Any]) -> Table:
    """A copy of ``table`` with these column values (as it was when loaded)."""
    old = copy.copy(table)
    old.__dict__.update(values)
    return old


def changed_columns(table: Table, saved: dict[str, Any]) -> list[Field[Any, Any]]:
    return [f for f in _fields(Table) if getattr(table, f.attname) != saved[f.attname]]


# -- seats in short and the hand -------------------------------------------------

_SEAT_REF = (
    "SELECT coalesce(json_agg(json_build_array(s.id, s.position, s.user_id, s.is_bot, "
    "u.is_active, s.ready, CASE WHEN s.user_id = %s THEN s.recent_client_ids END) "
    f"ORDER BY s.position), '[]') FROM {Seat._meta.db_table} s "
    f"JOIN {User._meta.db_table} u ON u.id = s.user_id WHERE s.table_id = %s"
)


def _refs(raw: str | list[Any]) -> list[SeatRef]:
    rows = json.loads(raw) if isinstance(raw, str) else raw
    return [
        SeatRef(
            id=r[0],
            position=r[1],
            user_id=r[2],
            is_bot=r[3],
            active=r[4],
            ready=r[5],
            recent_client_ids=r[6] or [],
        )
        for r in rows
    ]


def seat_refs(table_id: int, user_id: int | None = None) -> list[SeatRef]:
    with connection.cursor() as cursor:
        cursor.execute(_SEAT_REF, [user_id, table_id])
        row = cursor.fetchone()
    return _refs(row[0])


@cache
def _hand_sql() -> str:
    return (
        f"SELECT ({_SEAT_REF}), {_columns('h', Hand)} FROM (SELECT 1) one "
        f'LEFT JOIN {Hand._meta.db_table} h ON h."id" = %s'
    )


def hand_and_refs(table: Table, user_id: int | None) -> tuple[Hand | None, list[SeatRef]]:
    """The table's current hand and its seats in short (one statement)."""
    with connection.cursor() as cursor:
        cursor.execute(_hand_sql(), [user_id, table.pk, table.current_hand_id])
        row = cursor.fetchone()
    refs = _refs(row[0])
    hand: Hand | None = None if row[1] is None else _from_row(Hand, row[1:])
    return hand, refs


# -- the one write ---------------------------------------------------------------

_HAND_WRITE = ("state", "event_count", "ended_at", "result")
_EVENT_COLUMNS = ("hand_id", "seq", "table_version", "type", "payload", "visibility", "player")


@cache
def _field_of(model: Any, attname: str) -> Field[Any, Any]:
    return next(f for f in _fields(model) if f.attname == attname)


def write(
    table: Table,
    columns: Sequence[Field[Any, Any]],
    hand: Hand | None,
    events: Sequence[EventRecord],
    seats: dict[int, dict[str, Any]],
) -> None:
    """One statement: the table's changed columns, and with them the hand's
    state (when ``hand``), the new events and the seats' changed fields
    (``{seat id: {field: value}}``)."""
    ctes: list[str] = []
    params: list[Any] = []
    if hand is not None:
        sets = ", ".join(f'"{_field_of(Hand, name).column}" = %s' for name in _HAND_WRITE)
        ctes.append(f'h AS (UPDATE {Hand._meta.db_table} SET {sets} WHERE "id" = %s)')
        params += [
            _field_of(Hand, name).get_db_prep_save(getattr(hand, name), connection)
            for name in _HAND_WRITE
        ]
        params.append(hand.pk)
    if events:
        assert hand is not None
        names = ", ".join(f'"{c}"' for c in _EVENT_COLUMNS)
        created = _field_of(HandEvent, "created_at").column
        row = "(" + ", ".join(["%s"] * len(_EVENT_COLUMNS)) + ", now())"
        ctes.append(
            f'e AS (INSERT INTO {HandEvent._meta.db_table} ({names}, "{created}") '
            f"VALUES {', '.join([row] * len(events))})"
        )
        payload = _field_of(HandEvent, "payload")
        for e in events:
            params += [
                hand.pk,
                e.seq,
                e.table_version,
                e.type,
                payload.get_db_prep_save(e.payload, connection),
                e.visibility,
                e.player,
            ]
    for n, (seat_id, fields) in enumerate(sorted(seats.items())):
        columns_of = [_field_of(Seat, name) for name in fields]
        sets = ", ".join(f'"{f.column}" = %s' for f in columns_of)
        ctes.append(f's{n} AS (UPDATE {Seat._meta.db_table} SET {sets} WHERE "id" = %s)')
        params += [f.get_db_prep_save(fields[f.attname], connection) for f in columns_of]
        params.append(seat_id)
    if columns:
        sets = ", ".join(f'"{f.column}" = %s' for f in columns)
        main = f'UPDATE {Table._meta.db_table} SET {sets} WHERE "id" = %s'
        params += [f.get_db_prep_save(getattr(table, f.attname), connection) for f in columns]
        params.append(table.pk)
    elif ctes:
        main = "SELECT 1"
    else:
        return
    statement = ("WITH " + ", ".join(ctes) + " " + main) if ctes else main
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
