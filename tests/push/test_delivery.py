"""Delivering one notice (push.services.push_deliver, run by the Celery task):
every device of the player in its own language, nobody muted or banned,
nothing turned off, subscriptions their push service forgot deleted; the
Web Push sender encrypts with the browser's keys and signs with VAPID."""

from datetime import timedelta

import pytest
from django.utils import timezone
from pywebpush import WebPushException

from push import index, notices
from push.models import Preferences, Subscription
from push.services import push_deliver, push_preferences_set, push_subscribe
from push.tasks import rebuild_index

from .helpers import browser_keys, subscribe

pytestmark = pytest.mark.django_db


def test_each_device_gets_the_notice_in_its_own_language(make_user, delivered):
    lan = make_user()
    subscribe(lan, endpoint="https://push.example.test/vi", language="vi")
    subscribe(lan, endpoint="https://push.example.test/en", language="en")
    assert push_deliver(notice="turn", user_id=lan.pk, table_id=7, game="tienlen") == 2
    titles = sorted(r["payload"]["title"] for r in delivered)
    assert titles == ["Your turn", "Đến lượt bạn"]
    for record in delivered:
        payload = record["payload"]
        assert payload["type"] == "turn"
        assert payload["url"] == "/tables/7/"
        assert payload["tag"] == "table-7"
        assert payload["table"] == 7
        assert payload["game"] == "tienlen"
        assert record["ttl"] == 60
    assert Subscription.objects.filter(user=lan, last_sent__isnull=False).count() == 2


def test_nothing_for_a_muted_or_banned_player_or_a_notice_turned_off(make_user, delivered):
    muted, banned, picky = make_user(), make_user(), make_user()
    for user in (muted, banned, picky):
        subscribe(user, endpoint=f"https://push.example.test/{user.pk}")
    muted.muted_until = timezone.now() + timedelta(minutes=10)
    muted.save(update_fields=["muted_until"])
    banned.is_active = False
    banned.save(update_fields=["is_active"])
    push_preferences_set(user=picky, turn=False)

    for user in (muted, banned, picky):
        assert push_deliver(notice="turn", user_id=user.pk, table_id=1, game="tienlen") == 0
    assert list(delivered) == []
    # picky still gets what they left on
    assert push_deliver(notice="hand", user_id=picky.pk, table_id=1, game="tienlen") == 1


def test_only_notices_someone_wants_are_queued(make_user, push_index, monkeypatch):
    lan, minh = make_user(), make_user()
    subscribe(lan)
    queued: list[notices.Notice] = []
    monkeypatch.setattr(notices, "enqueue", queued.append)
    sent = notices.send(
        [
            notices.Notice("turn", lan.pk, 3, "tienlen"),
            notices.Notice("turn", minh.pk, 3, "tienlen"),
        ]
    )
    assert sent == 1
    assert [n.user_id for n in queued] == [lan.pk]
    push_preferences_set(user=lan, turn=False)
    from push.services import index_refresh

    index_refresh(lan.pk)
    assert notices.send([notices.Notice("turn", lan.pk, 3, "tienlen")]) == 0
    assert notices.send([notices.Notice("hand", lan.pk, 3, "tienlen")]) == 1


def test_the_index_is_rebuilt_from_the_database(make_user, push_index):
    lan, minh = make_user(), make_user()
    subscribe(lan)
    subscribe(minh, endpoint="https://push.example.test/minh")
    Preferences.objects.create(user=minh, invite=False)
    for kind in index.KINDS:
        index.replace(kind, [])  # Redis lost it
    assert rebuild_index() == 2
    assert index.members("turn") >= {lan.pk, minh.pk}
    assert lan.pk in index.members("invite")
    assert minh.pk not in index.members("invite")


@pytest.mark.parametrize(("status", "kept"), [(410, False), (404, False), (500, True), (429, True)])
def test_a_subscription_the_push_service_forgot_is_deleted(
    make_user, push_index, settings, monkeypatch, status, kept
):
    settings.PUSH_SENDER = "webpush"
    lan = make_user()
    subscription = subscribe(lan)

    class Answer:
        status_code = status
        text = ""

    def webpush(**kwargs):
        raise WebPushException("push service says no", response=Answer())

    monkeypatch.setattr("pywebpush.webpush", webpush)
    push_deliver(notice="turn", user_id=lan.pk, table_id=1, game="tienlen")
    assert Subscription.objects.filter(pk=subscription.pk).exists() is kept
    assert (lan.pk in index.members("turn")) is kept


def test_the_web_push_sender_encrypts_and_signs(make_user, push_index, settings, monkeypatch):
    """The real pywebpush path up to the HTTP request: aes128gcm content, a
    VAPID Authorization with our public key, the notice's TTL."""
    settings.PUSH_SENDER = "webpush"
    lan = make_user()
    subscribe(lan)
    posted = []

    class Answer:
        status_code = 201
        text = ""
        headers: dict[str, str] = {}

    def post(url, data=None, headers=None, timeout=None, **kwargs):
        posted.append((url, data, headers, timeout))
        return Answer()

    monkeypatch.setattr("requests.post", post)
    assert push_deliver(notice="invite", user_id=lan.pk, table_id=5, game="holdem") == 1
    [(url, data, headers, timeout)] = posted
    assert url == "https://push.example.test/send/abc"
    assert headers["content-encoding"] == "aes128gcm"
    assert headers["ttl"] == str(settings.PUSH_INVITE_TTL_S)
    assert f"k={settings.PUSH_VAPID_PUBLIC_KEY}" in headers["authorization"]
    assert headers["authorization"].startswith("vapid t=")
    assert b"invite" not in data  # encrypted
    assert timeout == settings.PUSH_TIMEOUT_S


def test_subscriptions_are_checked_and_capped(make_user, push_index, settings):
    from push.errors import SubscriptionInvalid

    lan = make_user()
    keys = browser_keys()
    bad: list[dict[str, str]] = [
        {"kind": "web", "endpoint": "http://push.example.test/x", **keys},
        {
            "kind": "web",
            "endpoint": "https://push.example.test/x",
            "p256dh": "AAAA",
            "auth": keys["auth"],
        },
        {
            "kind": "web",
            "endpoint": "https://push.example.test/x",
            "p256dh": keys["p256dh"],
            "auth": "AA",
        },
        {"kind": "apns", "endpoint": "not hex"},
        {"kind": "fcm", "endpoint": "short"},
        {"kind": "pager", "endpoint": "x" * 40},
    ]
    for given in bad:
        with pytest.raises(SubscriptionInvalid):
            push_subscribe(user=lan, language="vi", **given)  # type: ignore[arg-type]
    assert not Subscription.objects.filter(user=lan).exists()

    settings.PUSH_MAX_SUBSCRIPTIONS = 2
    for n in range(3):
        push_subscribe(user=lan, kind="fcm", endpoint=f"fcm-token-{n:020d}", language="vi")
    assert sorted(Subscription.objects.filter(user=lan).values_list("endpoint", flat=True)) == [
        f"fcm-token-{1:020d}",
        f"fcm-token-{2:020d}",
    ]
