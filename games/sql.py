"""The table services' hot path in SQL (issue 15): a move is three statements
and no ORM query compilation.

1. :func:`lock_table`: the table row, ``FOR UPDATE`` (every table service
   starts here: one writer per table).
2. :func:`hand_and_refs`: the current hand (with its engine state) and the
   seats in short, read after the lock so that both are the latest committed.
3. :func:`write`: one statement that updates the table's changed columns and,
   as data-modifying CTEs, the hand's state, the new events and the seats'
   changed fields (the mover's recent client ids; a hand's end in Hold'em).

The statements are built once per process from the models' fields (column
names and conversions are Django's), so they stay true to the migrations.
On another database than PostgreSQL (the embedded SQLite of ``make run``) the
same reads and writes are made as several plain statements.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from django.db.models import Field
from django.utils import timezone

from accounts.models import User
from accounts.sessions import token_of
from games.models import Hand, HandEvent, HandPlayer, Seat, Table
from games.refs import EventRecord, SeatRef
from kernel.sql import attnames as _attnames
from kernel.sql import columns as _columns
from kernel.sql import cursor as _cursor
from kernel.sql import db as _db
from kernel.sql import fields as _fields
from kernel.sql import from_row as _from_row
from kernel.sql import postgres as _postgres
from wallet.models import Account, Hold


@cache
def _lock_sql(locks: bool) -> str:
    return f'SELECT {_columns("t", Table)} FROM {Table._meta.db_table} t WHERE t."id" = %s' + (
        " FOR UPDATE" if locks else ""
    )


def lock_table(table_id: int) -> Table | None:
    db = _db()
    # (SQLite has no row locks: its one writer at a time serialises.)
    return _table_row(db, _lock_sql(db.features.has_select_for_update), table_id)


def read_table(table_id: int) -> Table | None:
    """The table row, not locked (a socket's state: a read never waits for a move)."""
    return _table_row(_db(), _lock_sql(False), table_id)


def _table_row(db: Any, statement: str, table_id: int) -> Table | None:
    with _cursor(db) as cursor:
        cursor.execute(statement, [table_id])
        row = cursor.fetchone()
    table: Table | None = None if row is None else _from_row(db, Table, row)
    return table


@cache
def _read_hand_sql() -> str:
    return f'SELECT {_columns("h", Hand)} FROM {Hand._meta.db_table} h WHERE h."id" = %s'


def read_hand(hand_id: int) -> Hand | None:
    """A hand row (its engine state as stored)."""
    db = _db()
    with _cursor(db) as cursor:
        cursor.execute(_read_hand_sql(), [hand_id])
        row = cursor.fetchone()
    hand: Hand | None = None if row is None else _from_row(db, Hand, row)
    return hand


def table_values(table: Table) -> dict[str, Any]:
    """The table's column values as loaded (to write back only what changed)."""
    values = {name: getattr(table, name) for name in _attnames(Table)}
    for name, value in values.items():
        if isinstance(value, dict | list):  # (JSON: the only mutable values)
            values[name] = copy.deepcopy(value)
    return values


def clone(instance: Any) -> Any:
    """A shallow copy of a model instance, to read (``copy.copy`` goes
    through pickling's protocol: several times slower)."""
    twin = object.__new__(type(instance))
    twin.__dict__.update(instance.__dict__)
    return twin


def table_as(table: Table, values: dict[str, Any]) -> Table:
    """A copy of ``table`` with these column values (as it was when loaded)."""
    old: Table = clone(table)
    old.__dict__.update(values)
    return old


def changed_columns(table: Table, saved: dict[str, Any]) -> dict[str, Any]:
    """The table's columns whose value is not the one loaded: ``{attname: value}``."""
    values = {name: getattr(table, name) for name in _attnames(Table)}
    return {name: value for name, value in values.items() if value != saved[name]}


# -- seats in short and the hand -------------------------------------------------

_SEAT_COLUMNS = (
    "s.id, s.position, s.user_id, s.is_bot, u.is_active, s.ready, s.timeouts, "
    "CASE WHEN s.user_id = %s THEN s.recent_client_ids END"
)
_SEAT_FROM = (
    f"FROM {Seat._meta.db_table} s JOIN {User._meta.db_table} u ON u.id = s.user_id "
    "WHERE s.table_id = %s"
)
# PostgreSQL: the seats as one JSON array, a column of the hand's row.
_SEAT_REF = (
    f"SELECT coalesce(json_agg(json_build_array({_SEAT_COLUMNS}) ORDER BY s.position), "
    f"'[]') {_SEAT_FROM}"
)


def _ref(r: Sequence[Any]) -> SeatRef:
    ids = r[7]
    return SeatRef(
        id=r[0],
        position=r[1],
        user_id=r[2],
        is_bot=bool(r[3]),
        active=bool(r[4]),
        ready=bool(r[5]),
        timeouts=int(r[6]),
        recent_client_ids=(json.loads(ids) if isinstance(ids, str) else ids) or [],
    )


def _refs(raw: str | list[Any]) -> list[SeatRef]:
    rows = json.loads(raw) if isinstance(raw, str) else raw
    return [_ref(r) for r in rows]


def seat_refs(table_id: int, user_id: int | None = None) -> list[SeatRef]:
    with _cursor(_db()) as cursor:
        cursor.execute(
            f"SELECT {_SEAT_COLUMNS} {_SEAT_FROM} ORDER BY s.position", [user_id, table_id]
        )
        return [_ref(r) for r in cursor.fetchall()]


@cache
def _hand_sql() -> str:
    return (
        f"SELECT ({_SEAT_REF}), {_columns('h', Hand)} FROM (SELECT 1) one "
        f'LEFT JOIN {Hand._meta.db_table} h ON h."id" = %s'
    )


def hand_and_refs(table: Table, user_id: int | None) -> tuple[Hand | None, list[SeatRef]]:
    """The table's current hand and its seats in short (one statement)."""
    db = _db()
    if not _postgres(db):
        hand = None if table.current_hand_id is None else read_hand(table.current_hand_id)
        return hand, seat_refs(table.pk, user_id)
    with _cursor(db) as cursor:
        cursor.execute(_hand_sql(), [user_id, table.pk, table.current_hand_id])
        row = cursor.fetchone()
    refs = _refs(row[0])
    hand = None if row[1] is None else _from_row(db, Hand, row[1:])
    return hand, refs


# -- the seats in full --------------------------------------------------------------


@cache
def _seats_sql(source: str) -> str:
    """The seats with their users and, last, the chips each shows
    (``games.plugins.money.MoneyModel.chips_source``): the Hold'em stack on the
    seat's escrow account (``seat:<table>:<position>``), the player's wallet
    (the first parameter: the key's prefix, or the wallet kind), or the seat's
    own ``stack``."""
    account = Account._meta.db_table
    key, kind, user, balance = (
        f'a."{_field_of(Account, name).column}"' for name in ("key", "kind", "user_id", "balance")
    )
    if source == "seat":
        chips = f's."{_field_of(Seat, "stack").column}"'
    else:
        if source == "escrow":
            where = f'{key} = %s || CAST(s."position" AS TEXT)'
        else:
            where = f'{kind} = %s AND {user} = s."user_id"'
        chips = f"(SELECT {balance} FROM {account} a WHERE {where} LIMIT 1)"
    return (
        f"SELECT {_columns('s', Seat)}, {_columns('u', User)}, {chips} "
        f'FROM {Seat._meta.db_table} s JOIN {User._meta.db_table} u ON u."id" = s."user_id" '
        'WHERE s."table_id" = %s ORDER BY s."position"'
    )


def seats_with_chips(table: Table, source: str) -> list[Seat]:
    """The table's seats in full, each with its user and, as ``chips``, what it
    shows (one statement; what the ORM's ``select_related`` and a subquery
    made, without compiling the query each time)."""
    db = _db()
    params: list[Any] = [table.pk]
    if source == "escrow":
        params.insert(0, f"seat:{table.pk}:")
    elif source == "wallet":
        params.insert(0, Account.Kind.USER.value)
    with _cursor(db) as cursor:
        cursor.execute(_seats_sql(source), params)
        rows = cursor.fetchall()
    width = len(_fields(Seat))
    seats = []
    for row in rows:
        seat = _from_row(db, Seat, row[:width])
        seat.user = _from_row(db, User, row[width:-1])
        seat.chips = row[-1]
        seats.append(seat)
    return seats


# -- a socket's opening -----------------------------------------------------------


def token_user(key: str) -> tuple[User, int] | None:
    """The user an access token names and its device session (None: no such
    token, or expired): ``accounts.sessions.token_of``'s one statement, as
    every socket a mobile app opens asks it."""
    token = token_of(key, timezone.now())
    return None if token is None else (token.user, token.session_id)


# -- the heartbeat ---------------------------------------------------------------


def table_version(table_id: int) -> int | None:
    """The table's version (a socket's heartbeat: has it fallen behind?)."""
    with _cursor(_db()) as cursor:
        cursor.execute(f'SELECT "version" FROM {Table._meta.db_table} WHERE "id" = %s', [table_id])
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def seat_position(table_id: int, user_id: int) -> int | None:
    """Where the user sits at the table (None: not seated); no lock."""
    with _cursor(_db()) as cursor:
        cursor.execute(
            f'SELECT "position" FROM {Seat._meta.db_table} '
            'WHERE "table_id" = %s AND "user_id" = %s',
            [table_id, user_id],
        )
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def seats_alive(
    asked: Sequence[tuple[int, int]], now: datetime, recently: datetime
) -> set[tuple[int, int]]:
    """The connected seats among (table id, user id) seen since ``recently``
    are seen ``now`` (no lock on their tables); returns those. One statement
    on PostgreSQL (a process's heartbeats together), a seat a statement on
    the others. Rows are locked in the order of their ids, as two processes'
    batches may share a seat (a player with two devices)."""
    if not asked:
        return set()
    db = _db()
    seat = Seat._meta.db_table
    pairs = sorted(set(asked))
    if not _postgres(db):
        seen = set()
        with _cursor(db) as cursor:
            for table_id, user_id in pairs:
                cursor.execute(
                    f'UPDATE {seat} SET "last_seen" = %s WHERE "table_id" = %s '
                    'AND "user_id" = %s AND "connections" > 0 AND "last_seen" >= %s',
                    [now, table_id, user_id, recently],
                )
                if cursor.rowcount:
                    seen.add((table_id, user_id))
        return seen
    values = ", ".join(["(%s::bigint, %s::bigint)"] * len(pairs))
    with _cursor(db) as cursor:
        cursor.execute(
            f'WITH asked("table_id", "user_id") AS (VALUES {values}), '
            f'locked AS (SELECT s."id" FROM {seat} s JOIN asked a '
            'ON s."table_id" = a."table_id" AND s."user_id" = a."user_id" '
            'WHERE s."connections" > 0 AND s."last_seen" >= %s ORDER BY s."id" FOR UPDATE OF s) '
            f'UPDATE {seat} SET "last_seen" = %s FROM locked WHERE {seat}."id" = locked."id" '
            f'RETURNING {seat}."table_id", {seat}."user_id"',
            [*(x for pair in pairs for x in pair), recently, now],
        )
        return {(int(t), int(u)) for t, u in cursor.fetchall()}


def table_versions(table_ids: Sequence[int]) -> dict[int, int]:
    """The versions of these tables (those that exist), in one statement."""
    ids = sorted(set(table_ids))
    if not ids:
        return {}
    marks = ", ".join(["%s"] * len(ids))
    with _cursor(_db()) as cursor:
        cursor.execute(
            f'SELECT "id", "version" FROM {Table._meta.db_table} WHERE "id" IN ({marks})', ids
        )
        return {int(i): int(v) for i, v in cursor.fetchall()}


def seed_used(user_id: int, seed: str) -> bool:
    """Whether this player was dealt a hand with this seed (index ``player_seeds_used``)."""
    with _cursor(_db()) as cursor:
        cursor.execute(
            f"SELECT 1 FROM {HandPlayer._meta.db_table} "
            'WHERE "user_id" = %s AND "client_seed" = %s LIMIT 1',
            [user_id, seed],
        )
        return cursor.fetchone() is not None


def held(hold_id: int) -> int:
    """What a seat's wallet hold holds while pending (0 once it is not), its
    row locked as ``plugins.money.seat_hold`` locks it: a Ready's check that the hold
    covers the table's minimum, without the ORM's query compilation."""
    db = _db()
    lock = " FOR UPDATE" if db.features.has_select_for_update else ""
    with _cursor(db) as cursor:
        cursor.execute(
            f'SELECT "amount" FROM {Hold._meta.db_table} WHERE "id" = %s AND "status" = %s{lock}',
            [hold_id, Hold.Status.PENDING.value],
        )
        row = cursor.fetchone()
    return 0 if row is None else int(row[0])


def set_nets(hand_id: int, nets: Sequence[int]) -> None:
    """Each player's chips won or lost (``HandPlayer.net``, by player index),
    in one statement on PostgreSQL (the settlement's)."""
    db = _db()
    if not _postgres(db):
        for index, net in enumerate(nets):
            HandPlayer.objects.filter(hand_id=hand_id, index=index).update(net=net)
        return
    with _cursor(db) as cursor:
        cursor.execute(
            f'UPDATE {HandPlayer._meta.db_table} p SET "net" = n."net" '
            'FROM UNNEST(%s::int[], %s::bigint[]) AS n("index", "net") '
            'WHERE p."hand_id" = %s AND p."index" = n."index"',
            [list(range(len(nets))), list(nets), hand_id],
        )


# -- the one write ---------------------------------------------------------------

_EVENT_COLUMNS = ("hand_id", "seq", "table_version", "type", "payload", "visibility", "player")


@cache
def _field_of(model: Any, attname: str) -> Field[Any, Any]:
    return next(f for f in _fields(model) if f.attname == attname)


def _update(db: Any, model: Any, pk: int, values: dict[str, Any]) -> tuple[str, list[Any]]:
    """``UPDATE`` of one row's fields (``{attname: value}``), with its parameters."""
    fields = [_field_of(model, name) for name in values]
    sets = ", ".join(f'"{f.column}" = %s' for f in fields)
    params = [f.get_db_prep_save(values[f.attname], db) for f in fields]
    return f'UPDATE {model._meta.db_table} SET {sets} WHERE "id" = %s', [*params, pk]


def write(
    table: Table,
    columns: dict[str, Any],
    hands: dict[int, dict[str, Any]],
    events: Sequence[EventRecord],
    seats: dict[int, dict[str, Any]],
    hand_id: int | None = None,
) -> None:
    """The one writer of a table's rows, in one statement: the table's changed
    columns (``{attname: value}``), and with them the hands' changed fields
    (``{hand id: {attname: value}}``), the new events (of hand ``hand_id``)
    and the seats' changed fields (``{seat id: {field: value}}``)."""
    # (statement, parameters): on PostgreSQL all but the last become
    # data-modifying CTEs of the last, run as one statement.
    db = _db()
    parts: list[tuple[str, list[Any]]] = [
        _update(db, Hand, pk, changed) for pk, changed in sorted(hands.items())
    ]
    if events:
        assert hand_id is not None
        names = ", ".join(f'"{c}"' for c in _EVENT_COLUMNS)
        created = _field_of(HandEvent, "created_at")
        row = "(" + ", ".join(["%s"] * (len(_EVENT_COLUMNS) + 1)) + ")"
        payload = _field_of(HandEvent, "payload")
        now = created.get_db_prep_save(timezone.now(), db)
        values: list[Any] = []
        for e in events:
            values += [
                hand_id,
                e.seq,
                e.table_version,
                e.type,
                payload.get_db_prep_save(e.payload, db),
                e.visibility,
                e.player,
                now,
            ]
        parts.append(
            (
                f'INSERT INTO {HandEvent._meta.db_table} ({names}, "{created.column}") '
                f"VALUES {', '.join([row] * len(events))}",
                values,
            )
        )
    parts += [_update(db, Seat, seat_id, changed) for seat_id, changed in sorted(seats.items())]
    if columns:
        parts.append(_update(db, Table, table.pk, columns))
    if not parts:
        return
    with _cursor(db) as cursor:
        if not _postgres(db):
            for statement, params in parts:
                cursor.execute(statement, params)
            return
        *before, (main, params) = parts
        if before:
            ctes = ", ".join(f"w{n} AS ({sql})" for n, (sql, _) in enumerate(before))
            main = f"WITH {ctes} {main}"
            params = [p for _, ps in before for p in ps] + params
        cursor.execute(main, params)
