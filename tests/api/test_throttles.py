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

    assert answers == [200, 200]
    assert error(here.post(url("auth/login"), data)) == (429, "throttled")
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
    assert error(second) == (429, "throttled")
    assert list(User.objects.values_list("username", flat=True)) == ["a1"]
