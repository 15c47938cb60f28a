"""Sessions per device (accounts.sessions): every log-in its own access token
(django-rest-knox, hashed at rest, short-lived) and single-use refresh token
(rotation, reuse detection); the device list; log out this device, another
one, everywhere; a password change ends every other session; the tokens of
before (one DRF token per user) migrate to one legacy device each."""

from __future__ import annotations

import hashlib
import importlib
from datetime import datetime, timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.apps import apps
from django.test import Client as Browser
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import AccessToken, BrowserSession, DeviceSession, UsedRefresh
from accounts.sessions import token_issue
from games import services, sql

from ..api.helpers import PASSWORD, error, url
from ..consumers.helpers import Client, browser_socket, still_open
from ..moderation.test_sockets import until_closed

pytestmark = pytest.mark.django_db
LOGGED_OUT = (4400, {"type": "event", "event": "logged_out"})


def log_in(username="lan", **device):
    response = APIClient().post(
        url("auth/login"),
        {"username": username, "password": PASSWORD, **device},
        format="json",
        HTTP_USER_AGENT="VipGame/2.1 (iPhone)",
    )
    assert response.status_code == 200, response.json()
    return response.json()


def client(token, **headers):
    return APIClient(HTTP_AUTHORIZATION=f"Bearer {token}", **headers)


def refresh(token, **headers):
    return APIClient(**headers).post(url("auth/refresh"), {"refresh": token}, format="json")


def works(token) -> bool:
    answer = client(token).get(url("me"))
    assert answer.status_code in (200, 401)
    return answer.status_code == 200


# -- log-in, the list, what is stored ---------------------------------------------


def test_each_log_in_is_a_device_session_of_its_own_in_the_list(make_user):
    lan = make_user(username="lan")
    phone = log_in(device_name="Lan's iPhone", platform="ios")
    tablet = log_in(platform="android")

    listed = client(phone["token"]).get(url("me/sessions"))

    assert listed.status_code == 200
    rows = {row["id"]: row for row in listed.json()}
    assert set(rows) == {phone["session"]["id"], tablet["session"]["id"]}
    mine, other = rows[phone["session"]["id"]], rows[tablet["session"]["id"]]
    assert (mine["name"], mine["platform"], mine["current"]) == ("Lan's iPhone", "ios", True)
    assert (other["name"], other["platform"], other["current"]) == ("", "android", False)
    assert mine["address"] == "127.0.0.1"
    assert mine["user_agent"] == "VipGame/2.1 (iPhone)"
    assert phone["token"] != tablet["token"]
    assert phone["refresh"] != tablet["refresh"]
    assert works(phone["token"])
    assert works(tablet["token"])
    assert DeviceSession.objects.filter(user=lan).count() == 2
    # someone else sees only their own
    minh = make_user(username="minh")
    assert client(token_issue(user=minh)).get(url("me/sessions")).json()[0]["current"] is True
    assert len(client(token_issue(user=minh)).get(url("me/sessions")).json()) == 2


def test_a_log_in_with_a_platform_it_does_not_know_is_refused_and_starts_nothing(make_user):
    make_user(username="lan")

    answer = APIClient().post(
        url("auth/login"),
        {"username": "lan", "password": PASSWORD, "platform": "toaster"},
        format="json",
    )

    assert error(answer) == (400, "invalid")
    assert list(answer.json()["details"]) == ["platform"]
    assert not DeviceSession.objects.exists()


def test_tokens_are_stored_only_as_digests(make_user):
    make_user(username="lan")
    first = log_in()
    second = refresh(first["refresh"]).json()

    secrets = {first["token"], first["refresh"], second["token"], second["refresh"]}
    stored = [
        str(value)
        for model in (AccessToken, DeviceSession, UsedRefresh)
        for row in model.objects.values()
        for value in row.values()
    ]
    assert not [value for value in stored if any(secret in value for secret in secrets)]
    session = DeviceSession.objects.get()
    assert session.refresh_digest == hashlib.sha512(second["refresh"].encode()).hexdigest()
    assert AccessToken.objects.get().digest == hashlib.sha512(second["token"].encode()).hexdigest()


def test_the_lifetimes_follow_the_settings(make_user, settings):
    settings.ACCESS_TOKEN_MINUTES, settings.REFRESH_TOKEN_DAYS = 5, 2
    make_user(username="lan")
    before = timezone.now()

    body = log_in()

    access = AccessToken.objects.get().expiry - before
    refresh_life = DeviceSession.objects.get().refresh_expiry - before
    assert timedelta(minutes=5) <= access < timedelta(minutes=5, seconds=30)
    assert timedelta(days=2) <= refresh_life < timedelta(days=2, seconds=30)
    assert datetime.fromisoformat(body["token_expires"]) == AccessToken.objects.get().expiry


@pytest.mark.django_db(transaction=True)
def test_an_expired_access_token_opens_neither_the_api_nor_a_socket(make_user):
    lan = make_user(username="lan")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    body = log_in()
    AccessToken.objects.update(expiry=timezone.now() - timedelta(seconds=1))

    assert error(client(body["token"]).get(url("me"))) == (401, "not_authenticated")
    assert sql.token_user(body["token"]) is None

    async def socket():
        phone = Client(f"/ws/tables/{table.pk}/", body["token"])
        assert await phone.connect()
        await phone.until(lambda m: m["type"] == "state")
        await phone.send(type="sit", id="s1")
        refused = await phone.until(lambda m: m.get("id") == "s1")
        await phone.close()
        return refused

    assert async_to_sync(socket)()["code"] == "permission_denied"
    # the refresh token still trades for a new pair
    assert works(refresh(body["refresh"]).json()["token"])


def test_the_socket_reads_a_token_in_one_query(make_user, django_assert_num_queries):
    lan = make_user(username="lan")
    issued = log_in()

    with django_assert_num_queries(1):
        found = sql.token_user(issued["token"])

    assert found is not None
    assert (found[0].pk, found[1]) == (lan.pk, issued["session"]["id"])


# -- refresh: rotation and reuse -------------------------------------------------------


def test_a_refresh_gives_a_new_pair_and_retires_both_old_tokens(make_user):
    make_user(username="lan")
    first = log_in(device_name="Phone")

    second = refresh(first["refresh"])

    assert second.status_code == 200
    body = second.json()
    assert body["session"]["id"] == first["session"]["id"]
    assert body["session"]["name"] == "Phone"
    assert body["token"] != first["token"]
    assert body["refresh"] != first["refresh"]
    assert works(body["token"])
    assert not works(first["token"])
    assert works(refresh(body["refresh"]).json()["token"])  # the new refresh is good once


@pytest.mark.django_db(transaction=True)
def test_a_refresh_token_shown_twice_ends_its_session_and_its_sockets(make_user):
    lan = make_user(username="lan")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    stolen = log_in()
    other_device = log_in()
    owner = refresh(stolen["refresh"]).json()  # the owner refreshed; a thief kept a copy

    async def scenario():
        phone = Client(f"/ws/tables/{table.pk}/", owner["token"])
        tablet = Client(f"/ws/tables/{table.pk}/", other_device["token"])
        for socket in (phone, tablet):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        reused = await sync_to_async(refresh)(stolen["refresh"], HTTP_ACCEPT_LANGUAGE="en")
        messages, code = await until_closed(phone)
        assert (code, messages[-1]) == LOGGED_OUT
        assert await still_open(tablet)
        await tablet.close()
        return reused

    reused = async_to_sync(scenario)()

    assert error(reused) == (400, "refresh_reused")
    assert reused.json()["message"] == (
        "This refresh token was already used: the session is ended, log in again."
    )
    assert not works(owner["token"])
    assert error(refresh(owner["refresh"])) == (400, "invalid_refresh")
    assert not DeviceSession.objects.filter(pk=stolen["session"]["id"]).exists()
    assert works(other_device["token"])


def test_an_unknown_expired_or_locked_out_refresh_token_is_refused_and_changes_nothing(
    make_user,
):
    lan = make_user(username="lan")
    good, old = log_in(), log_in()
    DeviceSession.objects.filter(pk=old["session"]["id"]).update(refresh_expiry=timezone.now())
    before = list(DeviceSession.objects.order_by("pk").values())

    unknown = refresh("0" * 64, HTTP_ACCEPT_LANGUAGE="vi")
    expired = refresh(old["refresh"], HTTP_ACCEPT_LANGUAGE="en")
    blank = refresh("")

    assert error(unknown) == (400, "invalid_refresh")
    assert unknown.json()["message"] == (
        "Mã làm mới này không hợp lệ (không rõ hoặc đã hết hạn): hãy đăng nhập lại."
    )
    assert error(expired) == (400, "invalid_refresh")
    assert expired.json()["message"] == (
        "This refresh token is not valid (unknown or expired): log in again."
    )
    assert error(blank) == (400, "invalid")
    assert list(DeviceSession.objects.order_by("pk").values()) == before
    lan.is_active = False
    lan.save(update_fields=["is_active"])
    assert error(refresh(good["refresh"])) == (400, "invalid_refresh")
    assert list(DeviceSession.objects.order_by("pk").values()) == before


# -- log out: this device, another, everywhere ---------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_second_device_keeps_playing_when_the_first_logs_out(make_user):
    lan, minh = make_user(username="lan"), make_user(username="minh")
    table = services.table_create(owner=minh, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    device_a, device_b = log_in(device_name="A"), log_in(device_name="B")

    async def scenario():
        a, b = Client(path, device_a["token"]), Client(path)  # B: the token in a message
        for socket in (a, b):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        await b.send(type="auth", token=device_b["token"])
        await b.until(lambda m: m.get("event") == "authenticated")

        out = await sync_to_async(client(device_a["token"]).post)(url("auth/logout"))
        assert out.status_code == 204
        messages, code = await until_closed(a)
        assert (code, messages[-1]) == LOGGED_OUT

        assert await still_open(b)
        await b.send(type="sit", id="s1")
        sat = await b.until(lambda m: m.get("id") == "s1")
        await b.close()
        return sat

    sat = async_to_sync(scenario)()

    assert sat["type"] == "ack"
    assert table.seats.filter(user=lan).exists()
    assert error(client(device_a["token"]).get(url("me"))) == (401, "not_authenticated")
    assert error(refresh(device_a["refresh"])) == (400, "invalid_refresh")
    assert works(device_b["token"])
    assert [row["name"] for row in client(device_b["token"]).get(url("me/sessions")).json()] == [
        "B"
    ]


@pytest.mark.django_db(transaction=True)
def test_a_device_logged_out_from_another_one_loses_its_tokens_and_sockets(make_user):
    lan, minh = make_user(username="lan"), make_user(username="minh")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    phone, lost = log_in(device_name="Phone"), log_in(device_name="Lost tablet")
    minh_token = token_issue(user=minh)
    minh_session = DeviceSession.objects.get(user=minh).pk

    async def scenario():
        mine, theirs = Client(path, phone["token"]), Client(path, lost["token"])
        for socket in (mine, theirs):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        ended = await sync_to_async(client(phone["token"]).delete)(
            url(f"me/sessions/{lost['session']['id']}")
        )
        assert ended.status_code == 204
        messages, code = await until_closed(theirs)
        assert (code, messages[-1]) == LOGGED_OUT
        assert await still_open(mine)
        await mine.close()

    async_to_sync(scenario)()

    assert not works(lost["token"])
    assert error(refresh(lost["refresh"])) == (400, "invalid_refresh")
    assert works(phone["token"])
    again = client(phone["token"]).delete(url(f"me/sessions/{lost['session']['id']}"))
    someone_elses = client(phone["token"]).delete(url(f"me/sessions/{minh_session}"))
    assert error(again) == (404, "session_not_found")
    assert error(someone_elses) == (404, "session_not_found")
    assert works(minh_token)


@pytest.mark.django_db(transaction=True)
def test_log_out_everywhere_ends_every_device_and_browser(make_user):
    lan, minh = make_user(username="lan"), make_user(username="minh")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    phone, tablet = log_in(), log_in()
    browser = Browser()
    browser.force_login(lan)
    assert browser.get("/wallet/").status_code == 200  # listed among the sessions
    assert BrowserSession.objects.filter(user=lan).count() == 1
    minh_token = token_issue(user=minh)

    async def scenario():
        sockets = [Client(path, phone["token"]), browser_socket(browser, path)]
        bystander = Client(path, minh_token)
        for socket in (*sockets, bystander):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        out = await sync_to_async(client(tablet["token"]).post)(url("auth/logout-all"))
        assert out.status_code == 204
        for socket in sockets:
            messages, code = await until_closed(socket)
            assert (code, messages[-1]) == LOGGED_OUT
        assert await still_open(bystander)
        await bystander.close()

    async_to_sync(scenario)()

    assert not any(works(body["token"]) for body in (phone, tablet))
    assert not DeviceSession.objects.filter(user=lan).exists()
    assert not BrowserSession.objects.filter(user=lan).exists()
    assert browser.get("/wallet/").status_code == 302  # back to the log-in page
    assert works(minh_token)


def test_log_out_is_never_throttled(make_user, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"writes": "2/min"},
    }
    lan = make_user(username="lan")
    body, other, third = log_in(), log_in(), log_in()
    api = client(body["token"])
    for _ in range(2):
        assert api.post(url("me/avatar"), {"avatar": "lotus"}, format="json").status_code in (
            200,
            400,
        )
    assert error(api.post(url("wallet/bonus"))) == (429, "throttled")

    ended = api.delete(url(f"me/sessions/{other['session']['id']}"))
    out = api.post(url("auth/logout"))

    assert (ended.status_code, out.status_code) == (204, 204)
    assert error(client(third["token"]).post(url("wallet/bonus"))) == (429, "throttled")
    assert client(third["token"]).post(url("auth/logout-all")).status_code == 204
    assert not DeviceSession.objects.filter(user=lan).exists()


# -- a password change ---------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_password_change_from_a_device_ends_every_other_one_and_keeps_its_own(make_user):
    lan = make_user(username="lan")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    changer, other = log_in(), log_in()
    new = "Mau-Binh-Sap-Ham-77"

    async def scenario():
        mine, theirs = Client(path, changer["token"]), Client(path, other["token"])
        for socket in (mine, theirs):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        changed = await sync_to_async(client(changer["token"]).post)(
            url("auth/password"), {"old_password": PASSWORD, "new_password": new}, format="json"
        )
        assert changed.status_code == 204
        messages, code = await until_closed(theirs)
        assert (code, messages[-1]) == LOGGED_OUT
        assert await still_open(mine)
        await mine.close()

    async_to_sync(scenario)()

    assert works(changer["token"])
    assert works(refresh(changer["refresh"]).json()["token"])
    assert not works(other["token"])
    assert error(refresh(other["refresh"])) == (400, "invalid_refresh")


# -- the profile page ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["My devices", "Lan&#x27;s iPhone", "Android", "Log out everywhere"]),
        (
            "vi",
            [
                "Thiết bị của tôi",
                "Lan&#x27;s iPhone",
                "Android",
                "Đăng xuất khỏi mọi nơi",
                "Nền tảng",
            ],
        ),
    ],
)
def test_the_profile_page_lists_my_devices_and_logs_one_out(make_user, language, words):
    lan = make_user(username="lan")
    phone, tablet = log_in(device_name="Lan's iPhone", platform="ios"), log_in(platform="android")
    browser = Browser(HTTP_ACCEPT_LANGUAGE=language)
    browser.cookies["django_language"] = language
    browser.force_login(lan)

    page = browser.get("/accounts/profile/").content.decode()

    for word in words:
        assert word in page
    assert f'data-device="{phone["session"]["id"]}"' in page
    ended = browser.post(f"/accounts/devices/{tablet['session']['id']}/logout/")
    assert (ended.status_code, ended["Location"]) == (302, "/accounts/profile/")
    assert not works(tablet["token"])
    assert works(phone["token"])
    assert browser.get(f"/accounts/devices/{phone['session']['id']}/logout/").status_code == 405
    everywhere = browser.post("/accounts/devices/logout-all/")
    assert everywhere.status_code == 302
    assert not works(phone["token"])
    assert browser.get("/accounts/profile/").status_code == 302  # logged out here too


# -- the tokens of before --------------------------------------------------------------


def test_a_token_of_before_becomes_a_legacy_device_and_keeps_working(make_user):
    migration = importlib.import_module("accounts.migrations.0007_legacy_tokens")
    lan, minh = make_user(username="lan"), make_user(username="minh")
    old_lan, old_minh = Token.objects.create(user=lan).key, Token.objects.create(user=minh).key

    migration.forwards(apps, None)

    assert not Token.objects.exists()  # no key left in clear
    assert works(old_lan)
    assert works(old_minh)
    session = DeviceSession.objects.get(user=lan)
    token = AccessToken.objects.get(session=session)
    assert token.digest == hashlib.sha512(old_lan.encode()).hexdigest()
    left = token.expiry - timezone.now()
    assert timedelta(days=29) < left <= timedelta(days=30)
    listed = client(old_lan).get(url("me/sessions")).json()
    assert [(row["id"], row["platform"], row["current"]) for row in listed] == [
        (session.pk, "other", True)
    ]
    assert client(old_lan).post(url("auth/logout")).status_code == 204
    assert not works(old_lan)
    assert works(old_minh)
