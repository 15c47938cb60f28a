"""Wallet API: balance, the ledger page by page, the daily bonus once a day."""

from base64 import b64encode

import pytest

from wallet.models import LedgerEntry
from wallet.services import bonus_day, chips_grant

from .helpers import error, url, world

pytestmark = pytest.mark.django_db


def test_wallet_shows_balance_held_and_the_bonus(make_user, api):
    lan = make_user()

    response = api(lan).get(url("wallet"))

    assert response.status_code == 200
    assert response.json() == {
        "balance": 10_000,
        "held": 0,
        "available": 10_000,
        "daily_bonus": {"amount": 2_000, "day": bonus_day(), "claimed": False},
    }


def test_the_daily_bonus_is_paid_once_a_day(make_user, api):
    lan = make_user()
    client = api(lan)

    first = client.post(url("wallet/bonus"))
    before = world()
    second = client.post(url("wallet/bonus"), HTTP_ACCEPT_LANGUAGE="en")

    assert first.status_code == 201
    assert first.json() == {
        "balance": 12_000,
        "held": 0,
        "available": 12_000,
        "daily_bonus": {"amount": 2_000, "day": bonus_day(), "claimed": True},
        "claimed_amount": 2_000,
    }
    assert error(second) == (409, "bonus_already_claimed")
    assert second.json()["message"] == (
        "You have already claimed today's bonus. Come back tomorrow!"
    )
    assert world() == before


def test_the_ledger_is_paginated_by_cursor_newest_first_with_what_each_entry_was(make_user, api):
    lan = make_user()
    for i in range(25):
        chips_grant(user=lan, amount=i + 1, key=f"gift-{i}", reason=f"gift {i}")
    client = api(lan, language="en")

    first = client.get(url("wallet/ledger")).json()
    chips_grant(user=lan, amount=99, key="newer", reason="while reading")  # the head grows
    last = client.get(first["next"]).json()
    back = client.get(last["previous"]).json()

    assert set(first) == {"next", "previous", "results"}
    assert first["previous"] is None
    assert [e["amount"] for e in first["results"]] == list(range(25, 5, -1))
    newest = LedgerEntry.objects.filter(account__user=lan).exclude(amount=99).latest("id")
    assert first["results"][0] == {
        "id": newest.pk,
        "transaction": newest.transaction_id,
        "at": first["results"][0]["at"],
        "kind": "grant",
        "what": "Grant",
        "amount": 25,
        "balance_after": 10_000 + sum(range(1, 26)),
        "hand": None,
        "reason": "gift 24",
    }
    # the next page goes on where the first stopped: nothing shifted, nothing twice
    assert [e["amount"] for e in last["results"]] == [5, 4, 3, 2, 1, 10_000]
    assert last["results"][-1]["kind"] == "signup_grant"
    assert last["next"] is None
    assert [e["amount"] for e in back["results"]] == list(range(25, 5, -1))
    small = client.get(url("wallet/ledger"), {"page_size": 2}).json()
    assert [e["amount"] for e in small["results"]] == [99, 25]
    vietnamese = api(lan).get(url("wallet/ledger"), {"kind": "signup_grant"}).json()
    assert [(e["kind"], e["what"]) for e in vietnamese["results"]] == [
        ("signup_grant", "Quà đăng ký")
    ]


def test_the_ledger_refuses_a_cursor_it_did_not_give_a_page_number_and_a_bad_filter(make_user, api):
    client = api(make_user(), language="en")
    forged = b64encode(b"p=nope").decode()

    for query, field in (
        ({"cursor": "%%%"}, "cursor"),
        ({"cursor": forged}, "cursor"),
        ({"page": 2}, "page"),
        ({"kind": "robbery"}, "kind"),
        ({"page_size": 101}, "page_size"),
    ):
        bad = client.get(url("wallet/ledger"), query)
        assert error(bad) == (400, "invalid"), query
        assert list(bad.json()["details"]) == [field], query


def test_each_player_sees_only_their_own_wallet(make_user, api):
    lan, minh = make_user(), make_user()
    chips_grant(user=minh, amount=7, key="minh-only")

    entries = api(lan).get(url("wallet/ledger")).json()["results"]
    staff = api(make_user(is_staff=True)).get(url("wallet/ledger")).json()["results"]

    assert [e["amount"] for e in entries] == [10_000]
    assert [e["amount"] for e in staff] == [10_000]


@pytest.mark.parametrize(
    ("method", "path"), [("get", "wallet"), ("get", "wallet/ledger"), ("post", "wallet/bonus")]
)
def test_the_wallet_needs_a_user(api, method, path):
    before = world()

    response = getattr(api(), method)(url(path))

    assert error(response) == (401, "not_authenticated")
    assert world() == before
