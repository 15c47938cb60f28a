"""Issue 13 items 7 and 10 on the API: anonymous throttles follow the one
client-address policy, and who may seat a bot at a private table (the API
docs and the code say the same: its owner and its seated players; staff only
at public tables)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games import services
from games.models import Seat

from .helpers import error, url, world

pytestmark = pytest.mark.django_db
VERIFY = {"server_seed": "ab" * 32, "hand_id": "7-3", "client_seeds": ["x", ""]}


def test_anonymous_writes_are_throttled_by_the_client_address_policy(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"writes": "2/hour"},
    }
    settings.TRUSTED_PROXIES = ["10.0.0.1"]

    def verify(peer, forwarded):
        client = APIClient(REMOTE_ADDR=peer)
        return client.post(url("fairness/verify"), VERIFY, HTTP_X_FORWARDED_FOR=forwarded)

    spoofed = [verify("203.0.113.66", f"198.51.100.{n}").status_code for n in range(3)]
    proxied = [verify("10.0.0.1", f"6.6.6.6, 198.51.100.{n}").status_code for n in range(3)]

    assert spoofed == [200, 200, 429]
    assert proxied == [200, 200, 200]  # three clients behind the proxy
    assert verify("10.0.0.1", "198.51.100.1").status_code == 200
    assert verify("10.0.0.1", "198.51.100.1").status_code == 429


def test_who_may_seat_a_bot_at_a_private_table(make_user, api):
    owner, guest, staff = make_user(), make_user(), make_user(is_staff=True)
    table = services.table_create(owner=owner, game="tienlen", stake=1, is_private=True)
    services.table_sit(table_id=table.pk, user=guest, invite_code=table.invite_code)
    before = world()

    refused = api(staff).post(url(f"tables/{table.pk}/bots"), {})

    assert error(refused) == (403, "private_table")
    assert world() == before
    assert api(guest).post(url(f"tables/{table.pk}/bots"), {}).status_code == 200
    assert api(owner).post(url(f"tables/{table.pk}/bots"), {}).status_code == 200
    assert Seat.objects.filter(table=table, is_bot=True).count() == 2


def test_staff_may_seat_a_bot_at_a_public_table(make_user, api):
    owner, staff = make_user(), make_user(is_staff=True)
    table = services.table_create(owner=owner, game="tienlen", stake=1)

    assert api(staff).post(url(f"tables/{table.pk}/bots"), {}).status_code == 200
    assert Seat.objects.filter(table=table, is_bot=True).count() == 1


def test_the_api_docs_say_what_the_code_does(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/tables/{table_id}/bots"]["post"]

    assert "staff included" in operation["description"]
    assert "private_table" in operation["responses"]["403"]["description"]
