"""The wallet's batched statements, for PostgreSQL: a table's settlement
releases, moves and holds every seat's chips with one statement per step for
the whole table instead of a few per player. ``wallet.services`` decides what
to write (and takes the ORM's path on other databases); these only run it,
inside the caller's transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import connection

from .models import Account, Hold

ACCOUNT, HOLD = Account._meta.db_table, Hold._meta.db_table


def lock_accounts_of_holds(hold_ids: Sequence[int]) -> None:
    """The accounts of these holds, locked in primary-key order."""
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT a."id" FROM {ACCOUNT} a WHERE a."id" IN '
            f'(SELECT h."account_id" FROM {HOLD} h WHERE h."id" = ANY(%s)) '
            'ORDER BY a."id" FOR UPDATE',
            [list(hold_ids)],
        )


def void_pending(hold_ids: Sequence[int]) -> list[tuple[int, int]]:
    """The pending ones of these holds voided and their accounts' held chips
    lowered by their amounts, in one statement: (hold id, amount) of each."""
    with connection.cursor() as cursor:
        cursor.execute(
            f'WITH v AS (UPDATE {HOLD} SET "status" = %s WHERE "id" = ANY(%s) AND "status" = %s '
            'RETURNING "id", "account_id", "amount"), '
            's AS (SELECT "account_id", SUM("amount") AS "amount" FROM v GROUP BY "account_id"), '
            f'a AS (UPDATE {ACCOUNT} SET "held" = {ACCOUNT}."held" - s."amount" FROM s '
            f'WHERE {ACCOUNT}."id" = s."account_id") '
            'SELECT "id", "amount" FROM v',
            [Hold.Status.VOIDED.value, list(hold_ids), Hold.Status.PENDING.value],
        )
        return [(int(pk), int(amount)) for pk, amount in cursor.fetchall()]


def lock_by_key(keys: Sequence[str]) -> list[tuple[int, str, int, bool]]:
    """The accounts of these keys, locked in primary-key order: (id, key,
    available, closed) of each that exists."""
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT "id", "key", "balance" - "held", "is_closed" FROM {ACCOUNT} '
            'WHERE "key" = ANY(%s) ORDER BY "id" FOR UPDATE',
            [list(keys)],
        )
        return [(int(pk), key, int(available), closed) for pk, key, available, closed in cursor]


def insert_holds(
    holds: Sequence[tuple[int, int, str]], *, reason: str, expires_at: datetime, now: datetime
) -> list[tuple[int, int]]:
    """Pending holds of (account id, amount, key), one an account, and the
    accounts' held chips raised by them, in one statement: (hold id, account
    id) of each."""
    accounts, amounts, keys = (list(column) for column in zip(*holds, strict=True))
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH n AS (SELECT * FROM UNNEST(%s::bigint[], %s::bigint[], %s::text[]) "
            'AS n("account_id", "amount", "key")), '
            f'a AS (UPDATE {ACCOUNT} SET "held" = {ACCOUNT}."held" + n."amount" FROM n '
            f'WHERE {ACCOUNT}."id" = n."account_id") '
            f'INSERT INTO {HOLD} ("key", "account_id", "amount", "status", "reason", '
            '"expires_at", "created_at") '
            'SELECT n."key", n."account_id", n."amount", %s, %s, %s, %s FROM n '
            'RETURNING "id", "account_id"',
            [accounts, amounts, keys, Hold.Status.PENDING.value, reason, expires_at, now],
        )
        return [(int(pk), int(account)) for pk, account in cursor.fetchall()]


def move_balances(changes: Sequence[tuple[int, int, int]]) -> None:
    """Each (account id, amount, freed): the balance moved by ``amount`` and
    the held chips lowered by ``freed``, in one statement."""
    ids, amounts, freed = (list(column) for column in zip(*changes, strict=True))
    with connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE {ACCOUNT} SET "balance" = {ACCOUNT}."balance" + c."amount", '
            f'"held" = {ACCOUNT}."held" - c."freed" '
            'FROM UNNEST(%s::bigint[], %s::bigint[], %s::bigint[]) AS c("id", "amount", "freed") '
            f'WHERE {ACCOUNT}."id" = c."id"',
            [ids, amounts, freed],
        )
