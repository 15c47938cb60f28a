"""The transactional tests' teardown (tests/flush.py) leaves the database as
Django's ``flush`` does: every table empty but the content types and
permissions, and those as ``migrate`` wrote them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection

from games import services

from . import flush as fast

pytestmark = pytest.mark.django_db(transaction=True)


def rows_by_table() -> dict[str, int]:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    counts = {}
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def kept() -> tuple[set[tuple[str, str]], set[tuple[str, str, str]]]:
    """The content types and permissions, by what they are (not their ids)."""
    types = set(ContentType.objects.values_list("app_label", "model"))
    permissions = set(Permission.objects.values_list("content_type__app_label", "codename", "name"))
    return types, permissions


def played(make_user) -> None:
    """Rows in many tables: accounts, a wallet, a table, its seats, a hand."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="holdem", stake=1, seat_count=2)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user)
        services.table_ready(table_id=table.pk, user=user)


def test_the_fast_flush_leaves_what_djangos_flush_leaves(make_user):
    fast.django_flush("default")
    fast._written["default"] = fast._digest("default")
    emptied_by_django, kept_by_django = rows_by_table(), kept()
    ids = sorted(ContentType.objects.values_list("pk", flat=True))

    played(make_user)
    assert sum(rows_by_table().values()) > sum(emptied_by_django.values())
    fast.flush()

    assert rows_by_table() == emptied_by_django
    assert kept() == kept_by_django
    # Untouched, the content types were kept as they were (not written again).
    assert sorted(ContentType.objects.values_list("pk", flat=True)) == ids


@pytest.mark.parametrize("change", ["a permission renamed", "a content type deleted", "added"])
def test_content_types_or_permissions_a_test_changed_are_written_again(make_user, change):
    fast.django_flush("default")
    fast._written["default"] = fast._digest("default")
    emptied_by_django, kept_by_django = rows_by_table(), kept()

    played(make_user)
    if change == "a permission renamed":
        Permission.objects.filter(codename="view_table").update(name="Renamed")
    elif change == "a content type deleted":
        ContentType.objects.filter(app_label="games", model="seat").delete()
    else:
        ContentType.objects.create(app_label="probe", model="probe")
    assert kept() != kept_by_django
    fast.flush()

    assert rows_by_table() == emptied_by_django
    assert kept() == kept_by_django
