"""Issue 33 item 8: the error counters (HTTP 5xx by view, socket errors by
code, Celery task failures and retries) and the money check's gauge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.db import OperationalError, connection
from django.http import HttpResponse
from django.test import Client as HttpClient
from django.urls import path

from games import tasks
from wallet.models import Account

from ..consumers.helpers import Client, token_for
from ..test_task_retries import Flaky
from .helpers import value

pytestmark = pytest.mark.django_db(transaction=True)


def boom(request: Any) -> HttpResponse:
    raise RuntimeError("a bug")


def unavailable(request: Any) -> HttpResponse:
    return HttpResponse("later", status=503)


def fine(request: Any) -> HttpResponse:
    return HttpResponse("ok")


urlpatterns = [
    path("boom/", boom, name="boom"),
    path("unavailable/", unavailable, name="unavailable"),
    path("fine/", fine, name="fine"),
]


@pytest.mark.urls("tests.ops.test_errors")
def test_server_errors_are_counted_by_view_and_status():
    client = HttpClient(raise_request_exception=False)
    crashed = value("vipgame_http_server_errors_total", view="boom", status="500")
    refused = value("vipgame_http_server_errors_total", view="unavailable", status="503")
    assert client.get("/boom/").status_code == 500
    assert client.get("/boom/").status_code == 500
    assert client.get("/unavailable/").status_code == 503
    assert client.get("/fine/").status_code == 200
    assert value("vipgame_http_server_errors_total", view="boom", status="500") == crashed + 2
    assert value("vipgame_http_server_errors_total", view="unavailable", status="503") == (
        refused + 1
    )
    assert value("vipgame_http_server_errors_total", view="fine", status="200") == 0


def test_socket_errors_are_counted_by_kind_and_code(make_user):
    token = token_for(make_user())

    async def scenario():
        lobby = Client("/ws/lobby/", token)
        assert await lobby.connect()
        bad_json = value("vipgame_socket_errors_total", kind="lobby", code="bad_json")
        bad_message = value("vipgame_socket_errors_total", kind="lobby", code="bad_message")
        await lobby.ws.send_to(text_data="{not json")
        await lobby.until(lambda m: m["type"] == "error" and m["code"] == "bad_json")
        await lobby.send(no_type=1)
        await lobby.until(lambda m: m["type"] == "error" and m["code"] == "bad_message")
        assert value("vipgame_socket_errors_total", kind="lobby", code="bad_json") == bad_json + 1
        assert value("vipgame_socket_errors_total", kind="lobby", code="bad_message") == (
            bad_message + 1
        )
        await lobby.close()

    async_to_sync(scenario)()


def test_celery_retries_and_failures_are_counted_by_task(monkeypatch):
    name = tasks.table_timer.name
    retries = value("vipgame_celery_task_retries_total", task=name)
    failures = value("vipgame_celery_task_failures_total", task=name)
    monkeypatch.setattr(tasks, "table_timeout", Flaky(OperationalError("gone"), times=2))
    assert tasks.table_timer.apply(args=(7, 3)).successful()
    assert value("vipgame_celery_task_retries_total", task=name) == retries + 2
    assert value("vipgame_celery_task_failures_total", task=name) == failures
    monkeypatch.setattr(tasks, "table_timeout", Flaky(ValueError("a bug"), times=1))
    assert tasks.table_timer.apply(args=(7, 3)).failed()
    assert value("vipgame_celery_task_retries_total", task=name) == retries + 2
    assert value("vipgame_celery_task_failures_total", task=name) == failures + 1


def documented_query() -> str:
    doc = (Path(__file__).resolve().parents[2] / "docs/operations.md").read_text()
    start = doc.index("The accounts behind a failed money check")
    block = doc[doc.index("```sql", start) + len("```sql") : doc.index("```\n", start + 50)]
    return block.strip().rstrip(";")


def test_the_money_check_gauge_shows_chips_that_came_from_nowhere(make_user):
    lan = make_user()
    assert value("vipgame_chips_imbalance") == 0
    account = Account.objects.get(user=lan, kind=Account.Kind.USER)
    Account.objects.filter(pk=account.pk).update(balance=account.balance + 7)  # no ledger
    assert value("vipgame_chips_imbalance") == 7
    # docs/operations.md's query finds the account whose balance left its ledger.
    with connection.cursor() as cursor:
        cursor.execute(documented_query())
        assert [row[0] for row in cursor.fetchall()] == [account.pk]
    Account.objects.filter(pk=account.pk).update(balance=account.balance)
    assert value("vipgame_chips_imbalance") == 0
