"""Log in for a device session's tokens (through django-axes), log out (that
device), sign up, ``me``, and the browser session with its CSRF token. The
device sessions themselves: tests/accounts/test_devices.py."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from knox.crypto import hash_token
from rest_framework.test import APIClient

from accounts.avatars import default_avatar
from accounts.models import AccessToken, DeviceSession, User
from accounts.sessions import token_issue
from games import services
from wallet.models import Account
from wallet.services import bot_signup

from ..consumers.helpers import Client, browser_socket, still_open
from .helpers import PASSWORD, error, url, world

pytestmark = pytest.mark.django_db


def log_in(username, password=PASSWORD, **headers):
    return APIClient().post(
        url("auth/login"), {"username": username, "password": password}, format="json", **headers
    )


def test_log_in_returns_a_token_that_opens_the_api(make_user):
    lan = make_user(username="lan")

    response = log_in("lan")

    assert response.status_code == 200
    body = response.json()
    assert body["user"] == {
        "id": lan.pk,
        "username": "lan",
        "display_name": "Lan",
        "avatar": default_avatar(lan.pk),
        "avatar_url": f"/static/img/avatars/{default_avatar(lan.pk)}.svg",
        "email": "",
        "email_pending": "",
        "is_staff": False,
        "date_joined": body["user"]["date_joined"],
    }
    stored = AccessToken.objects.get(user=lan)
    assert (stored.session_id, stored.digest) == (body["session"]["id"], hash_token(body["token"]))
    me = APIClient().get(url("me"), HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert (me.status_code, me.json()["id"]) == (200, lan.pk)
    bearer = APIClient().get(url("me"), HTTP_AUTHORIZATION=f"Bearer {body['token']}")
    assert bearer.status_code == 200
    again = log_in("lan").json()
    assert again["token"] != body["token"]  # every log-in: a device session of its own
    assert again["session"]["id"] != body["session"]["id"]


def test_a_wrong_password_is_refused_and_gives_no_token(make_user):
    make_user(username="lan")

    response = log_in("lan", "wrong-password")

    assert error(response) == (400, "invalid_credentials")
    assert not DeviceSession.objects.exists()
    assert error(log_in("nobody")) == (400, "invalid_credentials")


def test_log_in_needs_both_fields():
    response = APIClient().post(url("auth/login"), {"username": "lan"}, format="json")

    assert error(response) == (400, "invalid")
    assert list(response.json()["details"]) == ["password"]


def test_five_failures_lock_the_username_out_even_with_the_right_password(make_user):
    make_user(username="lan")
    answers = [error(log_in("lan", "wrong")) for _ in range(5)]

    locked = log_in("lan", HTTP_ACCEPT_LANGUAGE="en")

    assert answers == [(400, "invalid_credentials")] * 4 + [(429, "locked_out")]
    assert error(locked) == (429, "locked_out")
    assert locked.json()["message"] == "Too many failed log-ins: try again in 15 minutes."
    assert locked["Retry-After"] == "900"
    assert not DeviceSession.objects.exists()


def test_a_success_resets_the_failure_count(make_user):
    make_user(username="lan")
    for _ in range(4):
        log_in("lan", "wrong")
    assert log_in("lan").status_code == 200

    answers = [log_in("lan", "wrong").status_code for _ in range(4)]

    assert answers == [400] * 4
    assert log_in("lan").status_code == 200


def test_a_bot_never_logs_in_even_with_a_password(make_user):
    bot = bot_signup(username="bot-x", display_name="Bot")
    bot.set_password(PASSWORD)
    bot.save()

    assert error(log_in("bot-x")) == (400, "invalid_credentials")
    token = token_issue(user=bot)
    me = APIClient().get(url("me"), HTTP_AUTHORIZATION=f"Token {token}")
    assert error(me) == (401, "not_authenticated")


@pytest.mark.django_db(transaction=True)
def test_a_bot_token_does_not_open_the_websocket_either(make_user):
    bot = bot_signup(username="bot-y", display_name="Bot")
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)
    token = token_issue(user=bot)

    async def socket():
        client = Client(f"/ws/tables/{table.pk}/", token)
        assert await client.connect()
        await client.recv()
        await client.send(type="sit", id="s1")
        refused = await client.recv()
        await client.close()
        return refused

    refused = async_to_sync(socket)()
    assert (refused["id"], refused["code"]) == ("s1", "permission_denied")
    assert not table.seats.exists()


def test_a_deactivated_player_cannot_log_in_and_their_token_stops_working(make_user):
    lan = make_user(username="lan")
    token = log_in("lan").json()["token"]
    lan.is_active = False
    lan.save()

    assert error(log_in("lan")) == (400, "invalid_credentials")
    me = APIClient().get(url("me"), HTTP_AUTHORIZATION=f"Token {token}")
    assert error(me) == (401, "not_authenticated")


@pytest.mark.django_db(transaction=True)
def test_log_out_revokes_the_token_for_http_and_websocket(make_user):
    lan = make_user(username="lan")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    token = log_in("lan").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    assert client.post(url("auth/logout")).status_code == 204

    assert not DeviceSession.objects.filter(user=lan).exists()
    assert error(client.get(url("me"))) == (401, "not_authenticated")
    assert error(client.post(url("auth/logout"))) == (401, "not_authenticated")

    async def socket_with_the_old_token():
        header = Client(f"/ws/tables/{table.pk}/", token)
        assert await header.connect()
        state = await header.recv()
        await header.send(type="sit", id="s1")
        refused = await header.recv()
        await header.send(type="auth", token=token)
        auth_refused = await header.recv()
        await header.close()
        return state, refused, auth_refused

    state, refused, auth_refused = async_to_sync(socket_with_the_old_token)()
    assert state["seat"] is None
    assert (refused["type"], refused["id"], refused["code"]) == ("error", "s1", "permission_denied")
    assert (auth_refused["type"], auth_refused["code"]) == ("error", "permission_denied")
    assert not table.seats.exists()


def test_anonymous_log_out_is_refused():
    assert error(APIClient().post(url("auth/logout"))) == (401, "not_authenticated")


def signup(**fields):
    data = {"username": "lan", "display_name": "Lan", "password": PASSWORD, **fields}
    return APIClient().post(url("auth/signup"), data, format="json")


def test_sign_up_creates_a_player_with_chips_and_a_working_token():
    response = signup()

    assert response.status_code == 201
    body = response.json()
    lan = User.objects.get(username="lan")
    assert body["user"]["id"] == lan.pk
    assert body["user"]["display_name"] == "Lan"
    assert Account.objects.get(user=lan, kind=Account.Kind.USER).balance == 10_000
    wallet = APIClient().get(url("wallet"), HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert wallet.json()["balance"] == 10_000


def test_sign_up_refusals_create_nothing(make_user):
    make_user(username="minh")
    before = world()

    weak = signup(password="123")
    taken = signup(username="MINH")
    bad_name = signup(username="lan lan", display_name="")

    assert error(weak) == (400, "invalid")
    assert list(weak.json()["details"]) == ["password"]
    assert len(weak.json()["details"]["password"]) == 3
    assert error(taken) == (400, "username_taken")
    assert taken.json()["details"] == {"field": "username"}
    assert error(bad_name) == (400, "invalid")
    assert set(bad_name.json()["details"]) == {"username", "display_name"}
    assert User.objects.count() == 1
    assert world() == before


def test_password_errors_speak_the_request_language():
    english = APIClient().post(
        url("auth/signup"),
        {"username": "lan", "display_name": "Lan", "password": "123"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    vietnamese = signup(password="123")

    assert english.json()["details"]["password"] == [
        "This password is too short. It must contain at least 8 characters.",
        "This password is too common.",
        "This password is entirely numeric.",
    ]
    assert english.json()["message"] == "Some of the data sent is not valid."
    assert vietnamese.json()["details"]["password"] == [
        "Mật khẩu quá ngắn. Mật khẩu phải có ít nhất 8 ký tự.",
        "Mật khẩu này quá phổ biến.",
        "Mật khẩu này hoàn toàn là số.",
    ]
    assert vietnamese.json()["message"] == "Một số dữ liệu gửi lên không hợp lệ."


@pytest.mark.parametrize("who", ["player", "staff"])
def test_me_is_the_caller(make_user, api, who):
    user = make_user(is_staff=who == "staff")

    response = api(user).get(url("me"))

    assert response.status_code == 200
    assert (response.json()["id"], response.json()["is_staff"]) == (user.pk, who == "staff")


def test_me_needs_a_user(api):
    response = api().get(url("me"))

    assert error(response) == (401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_the_browser_session_works_with_its_csrf_token(make_user):
    lan = make_user()
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(lan)

    assert browser.get(url("me")).json()["id"] == lan.pk
    refused = browser.post(url("wallet/bonus"))
    assert error(refused) == (403, "csrf_failed")
    assert Account.objects.get(user=lan).balance == 10_000

    browser.get("/")  # the page sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    claimed = browser.post(url("wallet/bonus"), HTTP_X_CSRFTOKEN=token)
    assert claimed.status_code == 201
    assert Account.objects.get(user=lan).balance == 12_000


@pytest.mark.django_db(transaction=True)
def test_log_out_closes_the_sockets_opened_with_that_token_or_session(make_user):
    from django.test import Client as Browser

    from ..consumers.helpers import token_for
    from ..moderation.test_sockets import until_closed

    lan, minh = make_user(username="lan"), make_user(username="minh")
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    token, minh_token = log_in("lan").json()["token"], token_for(minh)
    browsers = Browser(), Browser()
    for browser in browsers:
        browser.force_login(lan)

    async def scenario():
        phone = Client(path, token)  # the token in the Authorization header
        app = Client(path)  # the token in a first message
        tab, other_tab = browser_socket(browsers[0], path), browser_socket(browsers[1], path)
        bystander = Client(path, minh_token)
        for socket in (phone, app, tab, other_tab, bystander):
            assert await socket.connect()
            state = await socket.until(lambda m: m["type"] == "state")
        assert state["seat"] is None  # not seated: still, a player's socket
        await app.send(type="auth", token=token)
        await app.until(lambda m: m.get("event") == "authenticated")

        logout = APIClient()
        logout.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert (await sync_to_async(logout.post)(url("auth/logout"))).status_code == 204
        for socket in (phone, app):
            messages, code = await until_closed(socket)
            assert (code, messages[-1]) == (4400, {"type": "event", "event": "logged_out"})
        for socket in (tab, other_tab, bystander):
            assert await still_open(socket)

        assert (await sync_to_async(browsers[0].post)("/accounts/logout/")).status_code == 302
        messages, code = await until_closed(tab)
        assert (code, messages[-1]) == (4400, {"type": "event", "event": "logged_out"})
        for socket in (other_tab, bystander):
            assert await still_open(socket)
            await socket.close()

    async_to_sync(scenario)()
