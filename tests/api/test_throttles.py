"""Throttles: POSTs per user, log-in and sign-up per address (rates in settings)."""

import pytest
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import User
from wallet.models import LedgerTransaction

from .helpers import PASSWORD, error, url

pytestmark = pytest.mark.django_db


def rates(settings, **rates):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"writes": None, **rates},
    }
    # Log-in and sign-up: per-address limits of accounts.limits (web and API).
    settings.SIGNUP_RATE = settings.LOGIN_RATE = settings.LOGIN_FAILURE_RATE = None


def test_writes_are_throttled_per_user_and_reads_are_not(settings, make_user, api, monkeypatch):
    rates(settings, writes="3/hour")
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: 1_000_000.0)
    lan, minh = make_user(), make_user()
    client = api(lan, language="en")

    answers = [client.post(url("wallet/bonus")).status_code for _ in range(3)]
    throttled = client.post(url("wallet/bonus"))

    assert answers == [201, 409, 409]
    assert error(throttled) == (429, "throttled")
    assert throttled.json()["details"] == {"wait": 3600}
    assert throttled["Retry-After"] == "3600"
    assert throttled.json()["message"] == "Too many requests: try again in 3600 seconds."
    assert client.get(url("wallet")).status_code == 200
    assert api(minh).post(url("wallet/bonus")).status_code == 201
    assert LedgerTransaction.objects.filter(kind="daily_bonus").count() == 2


def test_log_in_is_throttled_per_address(settings, make_user):
    rates(settings)
    settings.LOGIN_RATE = "2/min"
    make_user(username="lan")
    here = APIClient(REMOTE_ADDR="10.0.0.1")
    there = APIClient(REMOTE_ADDR="10.0.0.2")
    data = {"username": "lan", "password": PASSWORD}

    answers = [here.post(url("auth/login"), data).status_code for _ in range(2)]

    refused = here.post(url("auth/login"), data)

    assert answers == [200, 200]
    assert error(refused) == (429, "throttled")
    assert refused["Retry-After"] == str(refused.json()["details"]["wait"])
    assert refused["RateLimit"] == f'"login";r=0;t={refused["Retry-After"]}'
    assert there.post(url("auth/login"), data).status_code == 200


def test_sign_up_is_throttled_per_address(settings):
    rates(settings)
    settings.SIGNUP_RATE = "1/hour"
    client = APIClient(REMOTE_ADDR="10.0.0.3")

    first = client.post(
        url("auth/signup"), {"username": "a1", "display_name": "A", "password": PASSWORD}
    )
    second = client.post(
        url("auth/signup"), {"username": "a2", "display_name": "B", "password": PASSWORD}
    )

    assert first.status_code == 201
    assert first["RateLimit-Policy"] == '"signup";q=1;w=3600'
    assert first["RateLimit"] == '"signup";r=0;t=3600'
    assert error(second) == (429, "throttled")
    assert second["Retry-After"] == "3600"
    assert list(User.objects.values_list("username", flat=True)) == ["a1"]


def test_log_out_and_a_password_change_are_never_refused_by_the_write_limit(
    settings, make_user, api
):
    rates(settings, writes="1/hour")
    lan = make_user()
    client = api(lan, language="en")
    assert client.post(url("wallet/bonus")).status_code == 201
    assert error(client.post(url("wallet/bonus"))) == (429, "throttled")

    changed = client.post(
        url("auth/password"),
        {"old_password": PASSWORD, "new_password": "Mau-Binh-Sap-Ham-77"},
        format="json",
    )
    out = client.post(url("auth/logout"))

    assert (changed.status_code, out.status_code) == (204, 204)
    assert "RateLimit" not in changed
    lan.refresh_from_db()
    assert lan.check_password("Mau-Binh-Sap-Ham-77")


def test_wrong_current_passwords_are_limited_per_account(settings, make_user, api):
    rates(settings)
    settings.PASSWORD_CHANGE_FAILURE_RATE = "2/hour"
    lan, minh = make_user(), make_user()
    client = api(lan, language="en")

    def change(who, old):
        body = {"old_password": old, "new_password": "Mau-Binh-Sap-Ham-77"}
        return who.post(url("auth/password"), body, format="json")

    wrong = [error(change(client, "nope")) for _ in range(2)]
    limited = change(client, PASSWORD)  # the right one, too late

    assert wrong == [(400, "wrong_password")] * 2
    assert error(limited) == (429, "throttled")
    assert int(limited["Retry-After"]) == limited.json()["details"]["wait"] > 3500
    lan.refresh_from_db()
    assert lan.check_password(PASSWORD)
    assert change(api(minh), PASSWORD).status_code == 204


def test_every_counted_write_says_where_its_limit_stands(settings, make_user, api, monkeypatch):
    """RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers):
    the quota and window, the requests left and the seconds until one comes back."""
    rates(settings, writes="3/hour")
    clock = iter([1_000_000.0, 1_000_060.0, 1_000_120.0, 1_000_180.0])
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: next(clock))
    client = api(make_user())

    answers = [client.post(url("wallet/bonus")) for _ in range(4)]
    read = client.get(url("wallet"))

    assert [a.status_code for a in answers] == [201, 409, 409, 429]
    assert {a["RateLimit-Policy"] for a in answers} == {'"writes";q=3;w=3600'}
    assert [a["RateLimit"] for a in answers] == [
        '"writes";r=2;t=3600',
        '"writes";r=1;t=3540',
        '"writes";r=0;t=3480',
        '"writes";r=0;t=3420',
    ]
    assert answers[-1]["Retry-After"] == "3420"
    assert "RateLimit" not in read
    assert "RateLimit-Policy" not in read


def test_every_log_in_says_where_the_address_limits_stand(settings, make_user):
    rates(settings)
    settings.LOGIN_RATE = "5/min"
    settings.LOGIN_FAILURE_RATE = "10/hour"
    make_user(username="lan")

    answer = APIClient().post(url("auth/login"), {"username": "lan", "password": PASSWORD})

    assert answer.status_code == 200
    assert answer["RateLimit-Policy"] == '"login-failures";q=10;w=3600, "login";q=5;w=60'
    assert answer["RateLimit"] == '"login-failures";r=10;t=0, "login";r=4;t=60'
