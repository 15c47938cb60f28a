"""Reading and writing models in plain SQL, for the paths that run on every
request or move (the table services' hot path in ``games/sql.py``, the API's
token lookup in ``accounts/auth.py``): statements built once per process
from the models' fields (column names and conversions are Django's, so they
stay true to the migrations), rows made into model instances without the
ORM's query compilation, and a cursor with server-side binding and prepared
statements on PostgreSQL. On another database (the embedded SQLite of ``make
run``) the same statements run through Django's plain cursor."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import cache
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Field
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init


@cache
def fields(model: Any) -> list[Field[Any, Any]]:
    return list(model._meta.concrete_fields)


@cache
def converters_of(model: Any) -> list[tuple[int, Any, list[Any]]]:
    """(index, column, converters) of the columns whose raw value Django
    converts (JSON arrives as text; SQLite's dates as text too): the ORM's own
    converters, as its compiler applies them."""
    out = []
    for i, field in enumerate(fields(model)):
        column = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if converters:
            out.append((i, column, converters))
    return out


@cache
def attnames(model: Any) -> list[str]:
    return [f.attname for f in fields(model)]


def db() -> Any:
    """The default connection itself: ``django.db.connection`` is a proxy that
    looks it up (in an asgiref ``Local``) on every attribute read; the hot
    path reads it once per call."""
    return connections[DEFAULT_DB_ALIAS]


def from_row(db: Any, model: Any, row: Sequence[Any]) -> Any:
    values = list(row)
    for i, column, converters in converters_of(model):
        value = values[i]
        for convert in converters:
            value = convert(value, column, db)
        values[i] = value
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model.from_db(DEFAULT_DB_ALIAS, attnames(model), values)
    # What Model.from_db makes of a row of every concrete field, without
    # Model.__init__'s walk over the fields (nobody listens to its signals).
    instance = object.__new__(model)
    instance.__dict__.update(zip(attnames(model), values, strict=True))
    state = instance._state = ModelState()
    state.adding, state.db = False, DEFAULT_DB_ALIAS
    return instance


def columns(alias: str, model: Any) -> str:
    return ", ".join(f'{alias}."{f.column}"' for f in fields(model))


def postgres(db: Any) -> bool:
    return bool(db.vendor == "postgresql")


@cache
def cursor_classes() -> tuple[type, type]:
    """(plain, prepared) server-side binding cursors of Django's backend."""
    from django.db.backends.postgresql import base

    class Prepared(base.ServerBindingCursor):  # type: ignore[name-defined]
        """Runs each statement as a prepared statement of its connection
        (parsed and planned once per connection, kept in psycopg's cache)."""

        def execute(self, query: Any, params: Any = None, **options: Any) -> Any:
            return super().execute(query, params, **{**options, "prepare": True})

    return base.ServerBindingCursor, Prepared  # type: ignore[attr-defined]


def cursor(db: Any) -> Any:
    """A cursor with server-side binding on PostgreSQL: the parameters (a
    hand's state is kilobytes of JSON) travel beside the statement instead of
    being quoted into it, as Django's default client-side binding does; and
    its statements prepared, where the connection allows it (``DB_PREPARED``).
    It is still Django's cursor wrapper (its execute wrappers and query log
    apply)."""
    if not postgres(db):
        return db.cursor()
    db.ensure_connection()
    raw_connection = db.connection
    plain, prepared = cursor_classes()
    # (the pooler question is a statement of its own: a connection lost under
    # it is Django's OperationalError, answered server_error, like any other)
    with db.wrap_database_errors:
        chosen = prepared if prepares(raw_connection) else plain
    return db._prepare_cursor(chosen(raw_connection))


# Whether each connection is behind a pooler (asked once per connection).
_POOLED: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def behind_pooler(raw_connection: Any) -> bool:
    """Whether this psycopg connection reaches PostgreSQL through a pooler
    (PgBouncer): the backend's process id is not the one the connection was
    given at its start (a pooler sends its own cancel key). Asked once per
    connection (one round trip; the answer is kept while it lives)."""
    known = _POOLED.get(raw_connection)
    if known is None:
        row = raw_connection.execute("SELECT pg_backend_pid()").fetchone()
        known = _POOLED[raw_connection] = row[0] != raw_connection.info.backend_pid
    return known


def prepares(raw_connection: Any) -> bool:
    """Whether the hot path's statements are prepared on this connection:
    never when psycopg prepares nothing on it (``DB_PREPARED=0``: its
    threshold is None), always with ``DB_PREPARED=1``, and with ``auto``
    unless it is behind a pooler (PgBouncer in transaction mode hands a
    client's statements to any of its server connections: a statement
    prepared on one is missing on the next, before PgBouncer 1.21)."""
    if raw_connection.prepare_threshold is None:
        return False
    if getattr(settings, "DB_PREPARED", "auto") != "auto":
        return True
    return not behind_pooler(raw_connection)
