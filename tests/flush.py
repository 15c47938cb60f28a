"""A transactional test's teardown: the test database emptied as Django's
``flush`` leaves it, for less.

Django's ``TransactionTestCase`` empties the database after each test with
``flush``: one ``TRUNCATE`` of every table (PostgreSQL makes each table's
files anew), then ``post_migrate``, whose receivers write the content types
and permissions again. Measured on 2026-11-30 in a throwaway test, that was
0.20 to 0.23 s a test, 0.12 to 0.17 s of it the ``TRUNCATE``; in ``make
test-fast``, ``pytest --durations=0`` listed 204 teardowns of 0.1 s or more,
most of them transactional tests'.

Here every table is emptied with ``DELETE`` in one transaction (Django's
foreign keys are deferred on PostgreSQL: they are checked at commit, when
nothing is left to point anywhere), but the content types and permissions,
which are kept when they are still exactly what ``post_migrate`` wrote (a
digest of their rows, taken after it wrote them). If a test changed them,
they are emptied too and ``post_migrate`` runs, as ``flush`` does. What a
test finds is the same either way: every table empty but those two, and
those two as ``migrate`` left them. Anything else (another database
vendor, other ``post_migrate`` receivers, ``available_apps`` or serialized
rollback) goes through Django's own ``flush``.
"""

from __future__ import annotations

import weakref
from typing import Any

from django.core.management import call_command
from django.core.management.sql import emit_post_migrate_signal
from django.db import connections, transaction
from django.db.models.signals import post_migrate
from django.test import TransactionTestCase

#: The tables ``post_migrate`` fills (django.contrib.contenttypes and auth).
KEPT = ("django_content_type", "auth_permission")
RECEIVERS = {"create_contenttypes", "create_permissions"}
DIGEST = (
    "SELECT (SELECT md5(coalesce(string_agg(id || ':' || app_label || '.' || model, ','"
    " ORDER BY id), '')) FROM django_content_type),"
    " (SELECT md5(coalesce(string_agg(id || ':' || content_type_id || ':' || codename"
    " || ':' || name, ',' ORDER BY id), '')) FROM auth_permission)"
)

#: Per database: the digest of the kept tables as ``post_migrate`` last wrote them.
_written: dict[str, tuple[str, str]] = {}


def _digest(alias: str) -> tuple[str, str]:
    with connections[alias].cursor() as cursor:
        cursor.execute(DIGEST)
        row = cursor.fetchone()
    return (row[0], row[1])


def _only_the_usual_receivers() -> bool:
    names = set()
    for entry in post_migrate.receivers:
        ref = entry[1]
        receiver = ref() if isinstance(ref, weakref.ReferenceType) else ref
        names.add(getattr(receiver, "__name__", repr(receiver)))
    return names <= RECEIVERS


def django_flush(alias: str) -> None:
    """What ``TransactionTestCase`` runs by default."""
    call_command(
        "flush",
        verbosity=0,
        interactive=False,
        database=alias,
        reset_sequences=False,
        allow_cascade=False,
        inhibit_post_migrate=False,
    )


def flush(alias: str = "default") -> None:
    """Empty the database ``alias`` as ``flush`` would (see the module's doc)."""
    connection = connections[alias]
    if connection.vendor != "postgresql" or not _only_the_usual_receivers():
        django_flush(alias)
        return
    known = _written.get(alias)
    if known is None:
        django_flush(alias)
        _written[alias] = _digest(alias)
        return
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    quote = connection.ops.quote_name
    emptied = [t for t in tables if t not in KEPT]
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        cursor.execute("; ".join(f"DELETE FROM {quote(t)}" for t in emptied))
        changed = _digest(alias) != known
        if changed:
            cursor.execute("; ".join(f"DELETE FROM {quote(t)}" for t in reversed(KEPT)))
    if changed:
        emit_post_migrate_signal(verbosity=0, interactive=False, db=alias)
        _written[alias] = _digest(alias)


def _fixture_teardown(self: TransactionTestCase) -> None:
    if self.available_apps is not None or self.serialized_rollback:
        _django_teardown(self)
        return
    for alias in self._databases_names(include_mirrors=False):  # type: ignore[attr-defined]
        flush(alias)


_django_teardown: Any = TransactionTestCase._fixture_teardown  # type: ignore[attr-defined]


def install() -> None:
    """Transactional tests empty their database with :func:`flush`."""
    TransactionTestCase._fixture_teardown = _fixture_teardown  # type: ignore[attr-defined]
