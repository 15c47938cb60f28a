"""Issue 13 item 8: changing or resetting a password (the site's form, the API,
the admin, a reset) ends every other device session and browser session of
the user and closes their open sockets (code 4400)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.sessions.models import Session
from django.test import Client as Browser
from rest_framework.test import APIClient

from accounts.models import DeviceSession, User
from accounts.services import user_session_keys
from accounts.sessions import token_issue
from games import services

from ..consumers.helpers import Client, browser_socket, still_open, token_for
from ..moderation.test_sockets import until_closed

PASSWORD = "Bai-Tien-Len-42"
NEW = "Mau-Binh-Sap-Ham-77"


def change_on_the_site(lan: User, changer: Browser, staff: Browser) -> Browser | None:
    response = changer.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/done/"
    return changer  # this browser stays logged in


def change_by_the_api(lan: User, changer: Browser, staff: Browser) -> Browser | None:
    """From a second device (a tablet): it goes on, every other one ends."""
    tablet = token_issue(user=lan)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {tablet}")
    response = client.post(
        "/api/v1/auth/password", {"old_password": PASSWORD, "new_password": NEW}, format="json"
    )
    assert response.status_code == 204
    assert client.get("/api/v1/me").status_code == 200
    assert DeviceSession.objects.filter(user=lan).count() == 1  # the tablet's
    return None


def change_in_the_admin(lan: User, changer: Browser, staff: Browser) -> Browser | None:
    response = staff.post(
        f"/admin/accounts/user/{lan.pk}/password/",
        {"password1": NEW, "password2": NEW, "usable_password": "true"},
    )
    assert response.status_code == 302
    assert staff.get("/admin/").status_code == 200  # the staff member's own session stays
    return None


def reset_it(lan: User, changer: Browser, staff: Browser) -> Browser | None:
    """What Django's reset confirmation view does with the new password."""
    form = SetPasswordForm(
        User.objects.get(pk=lan.pk), {"new_password1": NEW, "new_password2": NEW}
    )
    assert form.is_valid(), form.errors
    form.save()
    return None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "change", [change_on_the_site, change_by_the_api, change_in_the_admin, reset_it]
)
def test_a_new_password_revokes_tokens_other_sessions_and_sockets(make_user, change):
    lan, minh = make_user(username="lan"), make_user(username="minh")
    staff_user = make_user(username="boss", is_staff=True)
    old_token, minh_token = token_issue(user=lan), token_for(minh)
    changer, other, staff = Browser(), Browser(), Browser()
    for browser in (changer, other):
        assert browser.post("/accounts/login/", {"username": "lan", "password": PASSWORD})
    staff.force_login(staff_user)
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    assert len(user_session_keys(lan)) == 2

    async def scenario():
        phone = Client(path, old_token)
        other_tab = browser_socket(other, path)
        bystander = Client(path, minh_token)
        for socket in (phone, other_tab, bystander):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")

        kept = await sync_to_async(change)(lan, changer, staff)

        for socket in (phone, other_tab):
            messages, code = await until_closed(socket)
            assert (code, messages[-1]) == (4400, {"type": "event", "event": "logged_out"})
        assert await still_open(bystander)
        await bystander.close()
        return kept

    kept = async_to_sync(scenario)()

    lan.refresh_from_db()
    assert lan.check_password(NEW)
    old = APIClient(HTTP_AUTHORIZATION=f"Token {old_token}").get("/api/v1/me")
    assert old.status_code == 401
    assert other.get("/wallet/").status_code == 302  # back to the log-in page
    sessions = user_session_keys(lan)
    if kept is None:
        assert sessions == []
    else:  # the browser that changed it keeps a (new) session
        assert sessions == [kept.session.session_key]
        assert kept.get("/wallet/").status_code == 200
    assert APIClient(HTTP_AUTHORIZATION=f"Token {minh_token}").get("/api/v1/me").status_code == 200
    assert Session.objects.filter(session_key__in=user_session_keys(minh)).count() == 0


@pytest.mark.django_db
def test_the_api_refuses_a_wrong_or_weak_password_and_changes_nothing(make_user):
    lan = make_user(username="lan")
    token = token_issue(user=lan)
    client = APIClient(HTTP_AUTHORIZATION=f"Token {token}", HTTP_ACCEPT_LANGUAGE="en")

    wrong = client.post(
        "/api/v1/auth/password", {"old_password": "nope", "new_password": NEW}, format="json"
    )
    weak = client.post(
        "/api/v1/auth/password", {"old_password": PASSWORD, "new_password": "123"}, format="json"
    )
    anonymous = APIClient().post(
        "/api/v1/auth/password", {"old_password": PASSWORD, "new_password": NEW}, format="json"
    )

    assert (wrong.status_code, wrong.json()["code"]) == (400, "wrong_password")
    assert wrong.json()["message"] == "Your current password is wrong."
    assert (weak.status_code, weak.json()["code"]) == (400, "invalid")
    assert "new_password" in weak.json()["details"]
    assert anonymous.status_code == 401
    lan.refresh_from_db()
    assert lan.check_password(PASSWORD)
    assert client.get("/api/v1/me").status_code == 200


@pytest.mark.django_db
def test_a_hash_upgrade_at_log_in_is_not_a_password_change(make_user, settings):
    lan = make_user(username="lan")
    token = token_issue(user=lan)
    old_hash = lan.password
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.ScryptPasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]

    response = APIClient().post(
        "/api/v1/auth/login", {"username": "lan", "password": PASSWORD}, format="json"
    )

    lan.refresh_from_db()
    assert lan.password != old_hash
    assert lan.password.startswith("scrypt$")
    assert response.status_code == 200
    assert APIClient(HTTP_AUTHORIZATION=f"Token {token}").get("/api/v1/me").status_code == 200
    assert DeviceSession.objects.filter(user=lan).count() == 2  # nothing ended
