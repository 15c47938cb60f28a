"""Issue 13 item 7: one client-address policy (kernel.net) and per-address
limits on signing up and logging in, on the web forms, the API and the admin.

Each attack is run as it was reported: rotating ``X-Forwarded-For`` from a peer
that is not a trusted proxy, sign-up farming, password spraying over many
usernames, and the django-axes lock-out dodged by a new forwarded address.
"""

from __future__ import annotations

import threading

import pytest
from django.contrib.sessions.models import Session
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import DeviceSession, User
from kernel import limits
from kernel.net import ProxyHeadersMiddleware, client_ip, resolve, scope_client_ip
from moderation.models import Sighting
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db
PASSWORD = "Bai-Tien-Len-42"
ATTACKER = "203.0.113.66"
PROXY = "10.1.2.3"


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.TRUSTED_PROXIES = []
    settings.SIGNUP_RATE = "3/hour"
    settings.LOGIN_RATE = None
    settings.LOGIN_FAILURE_RATE = None
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"writes": None},
    }


def picture():
    signed_in = [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id")]
    return (
        sorted(User.objects.values_list("username", flat=True)),
        LedgerTransaction.objects.filter(kind="signup_grant").count(),
        DeviceSession.objects.count(),
        len(signed_in),
    )


def api_signup(n, forwarded, peer=ATTACKER):
    return APIClient(REMOTE_ADDR=peer).post(
        "/api/v1/auth/signup",
        {"username": f"farm{n}", "display_name": f"Farm {n}", "password": PASSWORD},
        format="json",
        HTTP_X_FORWARDED_FOR=forwarded,
    )


def web_signup(n, forwarded, peer=ATTACKER):
    return Client(REMOTE_ADDR=peer).post(
        reverse("signup"),
        {
            "username": f"web{n}",
            "display_name": f"Web {n}",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        HTTP_X_FORWARDED_FOR=forwarded,
    )


# -- the policy -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("trusted", "peer", "forwarded", "client"),
    [
        ([], "203.0.113.5", ["1.2.3.4"], "203.0.113.5"),  # nobody trusted: the peer
        (["10.0.0.0/8"], "203.0.113.5", ["1.2.3.4"], "203.0.113.5"),  # peer not a proxy
        (["10.0.0.0/8"], "10.0.0.1", ["1.2.3.4"], "1.2.3.4"),
        (["10.0.0.0/8"], "10.0.0.1", ["6.6.6.6, 1.2.3.4"], "1.2.3.4"),  # never the leftmost
        (["10.0.0.0/8"], "10.0.0.1", ["6.6.6.6, 1.2.3.4, 10.9.9.9"], "1.2.3.4"),  # proxy chain
        (["10.0.0.0/8"], "10.0.0.1", ["6.6.6.6", "1.2.3.4"], "1.2.3.4"),  # repeated header
        (["10.0.0.0/8"], "10.0.0.1", ["1.2.3.4, garbage"], "10.0.0.1"),  # unreadable hop
        (["10.0.0.0/8"], "10.0.0.1", [], "10.0.0.1"),
        (["10.0.0.1"], "10.0.0.1", ["[2001:db8::7]:443"], "2001:db8::7"),
        (["::1"], "::1", ["::ffff:192.0.2.1"], "192.0.2.1"),
        ([], "not-an-address", [], None),
    ],
)
def test_the_client_is_the_rightmost_untrusted_address(settings, trusted, peer, forwarded, client):
    settings.TRUSTED_PROXIES = trusted

    assert resolve(peer, forwarded) == client
    scope = {
        "client": (peer, 5000),
        "headers": [(b"x-forwarded-for", value.encode()) for value in forwarded],
    }
    assert scope_client_ip(scope) == client
    request = RequestFactory().get("/", REMOTE_ADDR=peer)
    if forwarded:
        request.META["HTTP_X_FORWARDED_FOR"] = ",".join(forwarded)
    assert client_ip(request) == client


def test_forwarded_proto_counts_only_from_a_trusted_proxy(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.TRUSTED_PROXIES = [PROXY]
    seen = []

    def view(request):
        seen.append(request.is_secure())
        return HttpResponse()

    middleware = ProxyHeadersMiddleware(view)

    for peer in (ATTACKER, PROXY):
        request = RequestFactory().get("/", REMOTE_ADDR=peer, HTTP_X_FORWARDED_PROTO="https")
        middleware(request)

    assert seen == [False, True]


def test_ssl_redirect_is_not_skipped_by_a_forged_proto_header(settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_SSL_REDIRECT = True
    settings.TRUSTED_PROXIES = [PROXY]

    forged = Client(REMOTE_ADDR=ATTACKER).get("/", HTTP_X_FORWARDED_PROTO="https")
    proxied = Client(REMOTE_ADDR=PROXY).get("/", HTTP_X_FORWARDED_PROTO="https")

    assert forged.status_code == 301
    assert forged["Location"].startswith("https://")
    assert proxied.status_code == 200


# -- sign-up ----------------------------------------------------------------------


def test_api_sign_ups_rotating_forwarded_for_from_an_untrusted_peer_are_limited():
    before = picture()

    answers = [api_signup(n, f"198.51.100.{n}").status_code for n in range(5)]

    assert answers == [201, 201, 201, 429, 429]
    refused = api_signup(9, "198.51.100.99")
    assert refused.json()["code"] == "throttled"
    assert refused.json()["details"]["wait"] > 0
    users, grants, _tokens, _sessions = picture()
    assert users == sorted([*before[0], "farm0", "farm1", "farm2"])
    assert grants == before[1] + 3


def test_web_sign_ups_are_limited_and_share_the_budget_with_the_api():
    before = picture()

    web = [web_signup(n, f"198.51.100.{n}").status_code for n in range(2)]
    api = api_signup(7, "192.0.2.7").status_code
    refused = web_signup(3, "192.0.2.200")

    assert web == [302, 302]
    assert api == 201
    assert refused.status_code == 429
    assert "Retry-After" in refused
    users, grants, _tokens, _sessions = picture()
    assert users == sorted([*before[0], "web0", "web1", "farm7"])
    assert grants == before[1] + 3
    assert not User.objects.filter(username="web3").exists()


def test_behind_a_trusted_proxy_the_forwarded_address_is_used(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]

    # The proxy appends the real peer; what the client wrote stays on the left.
    same = [api_signup(n, f"6.6.6.{n}, 198.51.100.1", peer=PROXY).status_code for n in range(4)]
    other = api_signup(5, "198.51.100.2", peer=PROXY).status_code

    assert same == [201, 201, 201, 429]
    assert other == 201


def test_concurrent_sign_ups_cannot_pass_the_limit_together():
    """The limit is one atomic Redis script: 24 threads at once, 5 get through."""
    rate = limits.parse_rate("5/hour")
    results: list[float] = []
    barrier = threading.Barrier(24)

    def hit():
        barrier.wait()
        results.append(limits.take("signup", "198.51.100.50", rate))

    threads = [threading.Thread(target=hit) for _ in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sum(1 for wait in results if wait == 0) == 5


def test_sign_ups_over_the_limit_create_nothing_and_the_limit_resets(settings):
    settings.SIGNUP_RATE = "1/hour"
    assert api_signup(0, "x").status_code == 201
    before = picture()

    assert api_signup(1, "y").status_code == 429
    assert web_signup(1, "z").status_code == 429

    assert picture() == before
    limits.clear("signup", ATTACKER)
    assert api_signup(2, "x").status_code == 201


# -- log-in -----------------------------------------------------------------------


def api_login(username, password, forwarded="", peer=ATTACKER):
    return APIClient(REMOTE_ADDR=peer).post(
        "/api/v1/auth/login",
        {"username": username, "password": password},
        format="json",
        HTTP_X_FORWARDED_FOR=forwarded,
    )


def web_login(client, username, password, forwarded="", path=None):
    return client.post(
        path or reverse("login"),
        {"username": username, "password": password},
        HTTP_X_FORWARDED_FOR=forwarded,
    )


def test_axes_lock_out_is_not_dodged_by_rotating_forwarded_for(settings, make_user):
    make_user(username="lan")

    answers = [
        api_login("lan", "wrong", forwarded=f"198.51.100.{n}").json()["code"] for n in range(7)
    ]
    right = api_login("lan", PASSWORD, forwarded="192.0.2.1")

    assert answers[:4] == ["invalid_credentials"] * 4
    assert set(answers[5:]) == {"locked_out"}
    assert right.json()["code"] == "locked_out"
    assert not DeviceSession.objects.exists()
    assert api_login("lan", PASSWORD, peer="192.0.2.44").status_code == 200


def test_password_spraying_over_many_usernames_is_limited_per_address(settings, make_user):
    settings.LOGIN_FAILURE_RATE = "5/hour"
    make_user(username="victim")
    for n in range(8):
        make_user(username=f"user{n}")
    before = picture()
    browser = Client(REMOTE_ADDR=ATTACKER)

    sprayed = [
        web_login(browser, f"user{n}", "Mat-Khau-2024", forwarded=f"198.51.100.{n}").status_code
        for n in range(5)
    ]
    web = web_login(browser, "victim", PASSWORD, forwarded="192.0.2.1")
    api = api_login("victim", PASSWORD, forwarded="192.0.2.2")
    admin = web_login(Client(REMOTE_ADDR=ATTACKER), "victim", PASSWORD, path="/admin/login/")

    assert sprayed == [200] * 5  # the form again, "wrong password"
    assert web.status_code == 429
    assert "_auth_user_id" not in browser.session
    assert (api.status_code, api.json()["code"]) == (429, "throttled")
    assert api.json()["details"]["wait"] > 0
    assert admin.status_code == 429
    assert picture() == before
    # Another address is not affected.
    assert api_login("victim", PASSWORD, peer="192.0.2.9").status_code == 200


def test_log_in_attempts_are_limited_per_address_on_the_web_and_the_api(settings, make_user):
    settings.LOGIN_RATE = "3/min"
    make_user(username="lan")
    first = [
        web_login(Client(REMOTE_ADDR=ATTACKER), "lan", PASSWORD, forwarded=f"1.1.1.{n}")
        for n in range(2)
    ]
    third = api_login("lan", PASSWORD, forwarded="2.2.2.2")
    over_web = web_login(Client(REMOTE_ADDR=ATTACKER), "lan", PASSWORD)
    over_api = api_login("lan", PASSWORD, forwarded="3.3.3.3")

    assert [r.status_code for r in first] == [302, 302]
    assert third.status_code == 200
    assert over_web.status_code == 429
    assert over_api.json()["code"] == "throttled"
    assert api_login("lan", PASSWORD, peer="192.0.2.10").status_code == 200


def test_log_in_failures_behind_a_trusted_proxy_count_for_the_forwarded_address(
    settings, make_user
):
    settings.TRUSTED_PROXIES = [PROXY]
    settings.LOGIN_FAILURE_RATE = "2/hour"
    make_user(username="lan")

    for n in range(2):
        api_login(f"nobody{n}", "x", forwarded="198.51.100.77", peer=PROXY)

    assert api_login("lan", PASSWORD, forwarded="198.51.100.77", peer=PROXY).status_code == 429
    assert api_login("lan", PASSWORD, forwarded="198.51.100.78", peer=PROXY).status_code == 200


def test_sightings_use_the_same_policy(settings, make_user):
    make_user(username="lan")
    settings.TRUSTED_PROXIES = [PROXY]

    spoofer = Client(REMOTE_ADDR=ATTACKER)
    web_login(spoofer, "lan", PASSWORD, forwarded="192.0.2.99")
    proxied = Client(REMOTE_ADDR=PROXY)
    web_login(proxied, "lan", PASSWORD, forwarded="6.6.6.6, 198.51.100.5")

    assert set(Sighting.objects.values_list("ip", flat=True)) == {ATTACKER, "198.51.100.5"}
