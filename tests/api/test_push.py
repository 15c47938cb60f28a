"""The push API: the VAPID key, subscribing a browser (its
``PushSubscription.toJSON()`` as it is) or an app's device token, listing and
ending them, preferences, and inviting a player to a table by name."""

import pytest

from accounts.models import DeviceSession
from accounts.sessions import sessions_end
from games import services
from games.models import Invitation
from push.models import Subscription
from tests.push.helpers import browser_keys

from .helpers import url

pytestmark = pytest.mark.django_db


def test_the_vapid_key_is_public(api, settings):
    answer = api().get(url("push/key"))
    assert answer.status_code == 200
    assert answer.json() == {
        "vapid_public_key": settings.PUSH_VAPID_PUBLIC_KEY,
        "sender": settings.PUSH_SENDER,
    }
    assert len(settings.PUSH_VAPID_PUBLIC_KEY) == 87  # 65 bytes, base64url


def test_a_browser_subscribes_with_its_subscription_as_it_is(api, make_user, push_index):
    lan = make_user()
    client = api(lan, language="en")
    body = {
        "kind": "web",
        "endpoint": "https://push.example.test/send/lan",
        "expirationTime": None,
        "keys": browser_keys(),
    }
    created = client.post(url("me/push/subscriptions"), body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["kind"] == "web"
    assert created.json()["language"] == "en"
    again = client.post(url("me/push/subscriptions"), body, format="json")
    assert again.json()["id"] == created.json()["id"]  # the same endpoint: updated

    listed = client.get(url("me/push/subscriptions")).json()
    assert [row["id"] for row in listed] == [created.json()["id"]]
    assert api(make_user()).get(url("me/push/subscriptions")).json() == []

    gone = client.delete(url(f"me/push/subscriptions/{created.json()['id']}"))
    assert gone.status_code == 204
    missing = client.delete(url(f"me/push/subscriptions/{created.json()['id']}"))
    assert missing.status_code == 404
    assert missing.json()["code"] == "subscription_not_found"


def test_a_bad_subscription_is_refused_and_changes_nothing(api, make_user, push_index):
    client = api(make_user())
    bad = client.post(
        url("me/push/subscriptions"),
        {"kind": "web", "endpoint": "http://push.example.test/x", "keys": browser_keys()},
        format="json",
    )
    assert bad.status_code == 400
    assert bad.json()["code"] == "invalid_subscription"
    unknown_key = client.post(
        url("me/push/subscriptions"), {"kind": "fcm", "token": "x" * 30, "extra": 1}, format="json"
    )
    assert unknown_key.status_code == 400
    assert not Subscription.objects.exists()


def test_an_apps_device_token_ends_with_its_device_session(api, make_user, push_index):
    lan = make_user()
    client = api(lan)
    token = "f" * 64
    created = client.post(
        url("me/push/subscriptions"), {"kind": "apns", "token": token}, format="json"
    )
    assert created.status_code == 201
    assert created.json()["current"] is True
    session = DeviceSession.objects.get(pk=created.json()["session"])
    assert Subscription.objects.get().endpoint == token

    sessions_end(user_id=lan.pk, ids=[session.pk])
    assert not Subscription.objects.exists()


def test_preferences(api, make_user, push_index):
    client = api(make_user())
    assert client.get(url("me/push/preferences")).json() == {
        "turn": True,
        "hand": True,
        "invite": True,
    }
    changed = client.patch(url("me/push/preferences"), {"hand": False}, format="json")
    assert changed.status_code == 200
    assert changed.json() == {"turn": True, "hand": False, "invite": True}
    assert client.get(url("me/push/preferences")).json()["hand"] is False
    wrong = client.patch(url("me/push/preferences"), {"turn": "no"}, format="json")
    assert wrong.status_code == 400
    assert client.get(url("me/push/preferences")).json()["turn"] is True
    assert api().get(url("me/push/preferences")).status_code == 401


def test_inviting_a_player_to_a_table(api, make_user, delivered):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2, is_private=True)
    first = api(lan).post(
        url(f"tables/{table.pk}/invitations"), {"username": minh.username}, format="json"
    )
    assert first.status_code == 200
    assert first.json() == {"created": True}
    assert Invitation.objects.filter(table=table, user=minh).exists()
    again = api(lan).post(
        url(f"tables/{table.pk}/invitations"), {"username": minh.username}, format="json"
    )
    assert again.json() == {"created": False}
    stranger = api(make_user()).post(
        url(f"tables/{table.pk}/invitations"), {"username": minh.username}, format="json"
    )
    assert stranger.status_code == 403
    nobody = api(lan).post(
        url(f"tables/{table.pk}/invitations"), {"username": "nobody-at-all"}, format="json"
    )
    assert nobody.status_code == 404
    assert nobody.json()["code"] == "player_not_found"
