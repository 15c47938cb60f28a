"""Password checks at once (issue 34): each log-in hashes for ~2 s of CPU, so
a process runs at most ``PASSWORD_CHECKS_AT_ONCE`` of them, whatever the
address. A log-in that finds no slot within ``PASSWORD_CHECK_WAIT_S`` gets
``busy`` (503, ``Retry-After``) on the site's form, the API and the admin,
before any hash runs and without counting as a failed log-in."""

import threading
import time

import pytest
from axes.models import AccessAttempt
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import limits
from accounts.limits import password_check_slot
from accounts.models import DeviceSession, User

PASSWORD = "Bai-Tien-Len-42"


@pytest.fixture
def hashes(monkeypatch):
    """Every password hash run (a check, or the dummy one for an unknown name)."""
    from django.contrib.auth import hashers

    runs: list[str] = []
    real = hashers.MD5PasswordHasher.encode

    def encode(self, password, salt):
        runs.append(password)
        return real(self, password, salt)

    monkeypatch.setattr(hashers.MD5PasswordHasher, "encode", encode)
    return runs


@pytest.fixture
def one_slot(settings):
    settings.PASSWORD_CHECKS_AT_ONCE = 1
    settings.PASSWORD_CHECK_WAIT_S = 0.05


def api_login(username="lan", password=PASSWORD, language="en"):
    return APIClient().post(
        "/api/v1/auth/login",
        {"username": username, "password": password},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )


@pytest.mark.django_db
def test_the_api_answers_busy_without_hashing_while_every_slot_is_taken(
    make_user, one_slot, hashes
):
    make_user(username="lan")
    hashes.clear()

    with password_check_slot():
        busy = api_login()
        vietnamese = api_login(language="vi")
        unknown = api_login(username="nobody")

    assert (busy.status_code, busy["Retry-After"]) == (503, "2")
    assert busy.json() == {
        "code": "busy",
        "message": "The server is busy checking other log-ins: try again in 2 seconds.",
        "details": {"wait": 2},
    }
    assert vietnamese.json()["message"] == (
        "Máy chủ đang bận kiểm tra các lượt đăng nhập khác: hãy thử lại sau 2 giây."
    )
    assert unknown.status_code == 503
    assert hashes == []
    assert AccessAttempt.objects.count() == 0
    assert DeviceSession.objects.count() == 0
    assert api_login().status_code == 200  # the slot is free again
    assert len(hashes) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["login", "admin:login"])
def test_the_sites_and_the_admins_log_in_forms_answer_busy(
    client, make_user, one_slot, hashes, path
):
    make_user(username="lan", is_staff=True)
    hashes.clear()
    client.cookies["django_language"] = "en"

    with password_check_slot():
        response = client.post(reverse(path), {"username": "lan", "password": PASSWORD})

    assert (response.status_code, response["Retry-After"]) == (503, "2")
    assert "Too many log-ins are being checked right now" in response.content.decode()
    assert hashes == []
    assert AccessAttempt.objects.count() == 0
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_changing_a_password_waits_for_a_slot_too(client, make_user, one_slot, hashes):
    lan = make_user(username="lan")
    client.force_login(lan)
    before = User.objects.get(pk=lan.pk).password
    hashes.clear()

    with password_check_slot():
        site = client.post(
            reverse("password_change"),
            {
                "old_password": PASSWORD,
                "new_password1": "Mau-Binh-77",
                "new_password2": "Mau-Binh-77",
            },
        )
        api = APIClient()
        api.force_authenticate(lan)
        by_api = api.post(
            "/api/v1/auth/password",
            {"old_password": PASSWORD, "new_password": "Mau-Binh-77"},
            format="json",
        )

    assert site.status_code == 503
    assert (by_api.status_code, by_api.json()["code"]) == (503, "busy")
    assert hashes == []
    assert User.objects.get(pk=lan.pk).password == before


@pytest.mark.django_db(transaction=True)
def test_many_log_ins_at_once_hash_at_most_the_limit_the_rest_are_busy(
    settings, make_user, monkeypatch
):
    """Real threads on PostgreSQL: six log-ins at once with two slots and a slow
    hash: never more than two hashes run together; those that waited past
    ``PASSWORD_CHECK_WAIT_S`` were refused, the others logged in."""
    assert connection.vendor == "postgresql"
    settings.PASSWORD_CHECKS_AT_ONCE = 2
    settings.PASSWORD_CHECK_WAIT_S = 0.2
    settings.LOGIN_RATE = "none"
    for n in range(6):
        make_user(username=f"p{n}")
    running, most = 0, 0
    count = threading.Lock()
    real_check = User.check_password

    def slow_check(self, raw):
        nonlocal running, most
        with count:
            running += 1
            most = max(most, running)
        time.sleep(1.5)
        with count:
            running -= 1
        return real_check(self, raw)

    monkeypatch.setattr(User, "check_password", slow_check)
    start = threading.Barrier(6, timeout=10)
    answers: list[int] = []

    def log_in(n):
        try:
            start.wait()
            answers.append(api_login(username=f"p{n}").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=log_in, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert most == 2
    assert sorted(answers) == [200, 200, 503, 503, 503, 503]
    assert DeviceSession.objects.count() == 2
    slots = limits._password_slots()
    assert slots is not None
    assert slots._value == 2  # every slot given back
