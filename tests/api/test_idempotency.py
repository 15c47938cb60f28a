"""Idempotency-Key on every POST that creates something (issue 30): a retry with
the same key and body answers the first answer and does nothing again; the
same key with another body is refused; kept per user, 24 hours."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from accounts.models import DeviceSession, User
from games import services
from games.models import ChatFlag, Seat, Table
from kernel import limits
from wallet.models import Account, LedgerTransaction

from .helpers import PASSWORD, error, url, world

pytestmark = pytest.mark.django_db
KEY = "0b8f6c4e-2a7d-4f55-9d0e-3c1f0a9b7e21"

# Every POST that creates something, and only those, takes the key.
CREATING = {
    "/api/v1/auth/signup",
    "/api/v1/auth/login",
    "/api/v1/tables",
    "/api/v1/tables/{table_id}/sit",
    "/api/v1/tables/{table_id}/bots",
    "/api/v1/tables/{table_id}/buy-in",
    "/api/v1/tables/{table_id}/actions",
    "/api/v1/wallet/bonus",
    "/api/v1/chat/{message_id}/report",
    "/api/v1/tables/{table_id}/invitations",
    "/api/v1/me/push/subscriptions",
    "/api/v1/tournaments/{tournament_id}/register",
    "/api/v1/tournaments",
}


def keyed(client: APIClient, path: str, body: Any = None, key: str = KEY) -> Any:
    return client.post(url(path), body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_four_retries_of_opening_a_table_open_one(make_user, api):
    """The issue's case: four retries made three tables, then too_many_tables."""
    lan = make_user()
    client = api(lan)
    body = {"game": "tienlen", "stake": 10}

    first = keyed(client, "tables", body)
    after_first = world()
    retries = [keyed(client, "tables", body) for _ in range(3)]

    assert first.status_code == 201
    assert "Idempotent-Replayed" not in first
    for retry in retries:
        assert (retry.status_code, retry.json()) == (201, first.json())
        assert retry["Idempotent-Replayed"] == "true"
    assert world() == after_first
    assert Table.objects.filter(owner=lan).count() == 1


def test_the_same_key_with_another_body_is_refused_and_does_nothing(make_user, api):
    lan = make_user()
    client = api(lan, language="en")
    keyed(client, "tables", {"game": "tienlen", "stake": 10})
    before = world()

    other = keyed(client, "tables", {"game": "tienlen", "stake": 20})
    elsewhere = keyed(client, "wallet/bonus")

    assert error(other) == (422, "idempotency_key_reused")
    assert other.json()["message"].startswith("This Idempotency-Key was already used")
    assert error(elsewhere) == (422, "idempotency_key_reused")
    assert world() == before


def test_keys_are_per_user_and_a_refusal_is_not_kept(make_user, api):
    lan, minh = make_user(), make_user()
    body = {"game": "tienlen", "stake": 10}

    refused = keyed(api(lan), "tables", {"game": "tienlen", "stake": -1})
    mine = keyed(api(lan), "tables", body)  # the refusal changed nothing: tried again
    theirs = keyed(api(minh), "tables", body)

    assert error(refused) == (400, "invalid")
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert mine.json()["id"] != theirs.json()["id"]
    assert Table.objects.count() == 2


def test_a_request_still_being_answered_holds_its_key(make_user, api, monkeypatch):
    lan = make_user()
    client = api(lan, language="en")
    body = {"game": "tienlen", "stake": 10}
    create = services.table_create
    during: list[Any] = []

    def slow_create(**kwargs: Any) -> Any:
        during.append(keyed(client, "tables", body))  # the client's retry, meanwhile
        return create(**kwargs)

    monkeypatch.setattr(services, "table_create", slow_create)
    first = keyed(client, "tables", body)

    assert first.status_code == 201
    assert error(during[0]) == (409, "idempotency_key_in_use")
    assert during[0]["Retry-After"] == "1"
    assert Table.objects.count() == 1


@pytest.mark.parametrize("key", ["", "a" * 256, "two words", "khóa"])
def test_a_key_that_is_not_visible_ascii_is_invalid(make_user, api, key):
    client = api(make_user())
    before = world()

    refused = client.post(
        url("tables"), {"game": "tienlen", "stake": 10}, format="json", HTTP_IDEMPOTENCY_KEY=key
    )

    assert error(refused) == (400, "invalid")
    assert list(refused.json()["details"]) == ["Idempotency-Key"]
    assert world() == before


def test_seats_bots_buy_ins_and_the_bonus_are_not_done_twice(make_user, api):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="holdem", stake=10, seat_count=4)
    client = api(lan)

    sat = [keyed(client, f"tables/{table.pk}/sit", {"buy_in": 400}) for _ in range(2)]
    bots = [keyed(client, f"tables/{table.pk}/bots", {}, key="bot") for _ in range(2)]
    bought = [keyed(client, f"tables/{table.pk}/buy-in", {"amount": 100}, "b") for _ in range(2)]
    bonus = [keyed(api(minh), "wallet/bonus", key="bonus") for _ in range(2)]

    for pair in (sat, bots, bought, bonus):
        assert pair[0].status_code in (200, 201), pair[0].json()
        assert (pair[1].status_code, pair[1].json()) == (pair[0].status_code, pair[0].json())
    assert Seat.objects.filter(table=table, user=lan).count() == 1
    assert Seat.objects.filter(table=table, is_bot=True).count() == 1
    assert Account.objects.get(user=lan, kind="user").balance == 10_000 - 500
    seats = bought[1].json()["table"]["seats"]
    assert [s["chips"] for s in seats if s["user_id"] == lan.pk] == [500]
    assert LedgerTransaction.objects.filter(kind="daily_bonus").count() == 1


def test_a_chat_report_is_made_once(make_user, api):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=10)
    line = services.chat_post(table_id=table.pk, user=lan, text="xin chào")
    body = {"category": "spam"}

    reports = [keyed(api(minh), f"chat/{line.pk}/report", body) for _ in range(2)]

    assert [r.status_code for r in reports] == [201, 201]
    assert reports[1].json() == reports[0].json()
    assert ChatFlag.objects.count() == 1


def test_a_sign_up_retried_is_one_account_and_its_kept_answer_is_sealed():
    client = APIClient()
    body = {"username": "lan", "display_name": "Lan", "password": PASSWORD}

    first = keyed(client, "auth/signup", body)
    again = keyed(client, "auth/signup", body)
    login = {"username": "lan", "password": PASSWORD}
    logins = [keyed(client, "auth/login", login, key="login") for _ in range(2)]

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert User.objects.filter(username="lan").count() == 1
    assert [r.status_code for r in logins] == [200, 200]
    assert logins[0].json() == logins[1].json()
    assert DeviceSession.objects.count() == 2  # the sign-up's and one log-in's
    redis = limits._client()
    prefix = django_settings.CACHES["default"]["KEY_PREFIX"]
    kept = list(redis.scan_iter(match=f"{prefix}:*idempotency:{limits.NAMESPACE}:*"))
    assert len(kept) == 2
    for name in kept:
        raw = redis.get(name)
        assert KEY.encode() not in name + raw
        for token in (first.json()["token"], first.json()["refresh"], logins[0].json()["token"]):
            assert token.encode() not in raw


def test_the_schema_gives_the_key_to_every_creating_post(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()

    taking = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
            if "Idempotency-Key" not in names:
                continue
            taking.add(path)
            assert method == "post"
            answers = operation["responses"]
            codes = {
                status: answers[status]["content"]["application/json"]["schema"]["allOf"][1]
                for status in ("409", "422")
            }
            assert "idempotency_key_in_use" in codes["409"]["properties"]["code"]["enum"]
            assert codes["422"]["properties"]["code"]["enum"] == ["idempotency_key_reused"]

    assert taking == CREATING
