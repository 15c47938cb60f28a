"""/healthz and /readyz: each dependency broken in turn."""

import time

import pytest
from django.db import connection
from django.db.backends.postgresql.base import DatabaseWrapper

from games import services
from games.models import Hand
from kernel.ops import heartbeat
from vipgame.ops import health

from ..processes import free_port

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_sweeper_key(settings):
    settings.READY_TIMEOUT_S = 0.5
    redis, key = heartbeat.redis_client(), heartbeat.sweeper_key()
    redis.delete(key)
    yield
    redis.delete(key)


def _unsettled_hands(count, make_user):
    owner = make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1)
    for number in range(1, count + 1):
        Hand.objects.create(
            table=table, number=number, game="tienlen", commitment="c" * 64,
            server_seed="0" * 64, ended_at=table.created_at,
        )  # fmt: skip


def test_healthz_answers_without_any_io(client, django_assert_num_queries, monkeypatch):
    monkeypatch.setattr(health, "redis_client", lambda: pytest.fail("healthz used Redis"))
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "Set-Cookie" not in response  # no session, no device cookie


def test_ready_when_every_check_passes(client):
    heartbeat.record_sweeper_run()
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["status"] == "ok"
    assert set(body["checks"]) == {"database", "redis", "sweeper", "settlement_backlog"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["settlement_backlog"]["hands"] == 0
    assert body["checks"]["sweeper"]["age_s"] < 5


def test_the_sweeper_task_records_its_run(client):
    from games.tasks import sweeper

    assert client.get("/readyz").status_code == 503  # no run recorded yet
    sweeper()
    assert client.get("/readyz").status_code == 200


def test_no_sweeper_run_recorded_is_not_ready(client):
    response = client.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["sweeper"] == {"ok": False, "error": "no run recorded", "max_age_s": 10.0}
    assert checks["database"]["ok"]
    assert checks["redis"]["ok"]


def test_a_stale_sweeper_is_not_ready(client, settings):
    settings.READY_SWEEPER_MAX_AGE_S = 5
    heartbeat.record_sweeper_run(time.time() - 6)
    response = client.get("/readyz")
    assert response.status_code == 503
    sweeper = response.json()["checks"]["sweeper"]
    assert sweeper["ok"] is False
    assert 6 <= sweeper["age_s"] < 8
    heartbeat.record_sweeper_run(time.time() - 4)
    assert client.get("/readyz").status_code == 200


def test_a_settlement_backlog_above_the_threshold_is_not_ready(client, settings, make_user):
    settings.READY_BACKLOG_MAX = 3
    heartbeat.record_sweeper_run()
    _unsettled_hands(2, make_user)
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"]["settlement_backlog"] == {"ok": True, "hands": 2, "max": 3}
    first = Hand.objects.get(number=1)
    Hand.objects.create(
        table=first.table, number=9, game="tienlen", commitment="c" * 64,
        server_seed="0" * 64, ended_at=first.ended_at,
    )  # fmt: skip
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["settlement_backlog"] == {"ok": False, "hands": 3, "max": 3}


def test_redis_at_a_dead_address_is_not_ready(client, settings):
    heartbeat.record_sweeper_run()
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    started = time.monotonic()
    response = client.get("/readyz")
    assert time.monotonic() - started < 3
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["redis"]["ok"] is False
    assert checks["redis"]["error"] == "ConnectionError"
    assert checks["sweeper"] == {"ok": False, "error": "redis unreachable"}
    assert checks["database"]["ok"] is True
    assert client.get("/healthz").status_code == 200


@pytest.mark.parametrize("pooled", [True, False])
def test_the_database_at_a_dead_address_is_not_ready(client, monkeypatch, pooled):
    heartbeat.record_sweeper_run()
    options = {k: v for k, v in connection.settings_dict["OPTIONS"].items() if k != "pool"}
    if pooled:
        options["pool"] = {"min_size": 0, "max_size": 2, "timeout": 5}
    dead = DatabaseWrapper(
        {**connection.settings_dict, "HOST": "127.0.0.1", "PORT": free_port(), "OPTIONS": options},
        alias="dead",
    )
    monkeypatch.setattr(health, "connection", dead)
    try:
        started = time.monotonic()
        response = client.get("/readyz")
        assert time.monotonic() - started < 3  # READY_TIMEOUT_S, not the pool's 5 s
    finally:
        if pooled:
            dead.close_pool()  # type: ignore[attr-defined]
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["database"]["ok"] is False
    assert checks["database"]["error"] == ("PoolTimeout" if pooled else "OperationalError")
    assert checks["settlement_backlog"] == {"ok": False, "error": "database unreachable"}
    assert checks["redis"]["ok"] is True
    assert checks["sweeper"]["ok"] is True


def test_the_backlog_query_reads_the_hand_table():
    assert f'"{Hand._meta.db_table}"' in health.BACKLOG_SQL


def test_probes_skip_the_host_check_and_the_https_redirect(client, settings):
    settings.ALLOWED_HOSTS = ["cards.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz", HTTP_HOST="10.1.2.3:8001").status_code == 200
    assert client.get("/", HTTP_HOST="10.1.2.3:8001").status_code == 400  # the site still checks
    assert client.post("/healthz").status_code == 405


@pytest.mark.parametrize(
    "path",
    [
        "/readyz/", "/readyz//", "/readyz%2F", "/readyz/.", "/readyz/./", "/readyz.",
        "/readyz;x", "/./readyz", "/api/../readyz", "/READYZ", "/readyzz",
        "/healthz/", "/healthz%2F", "/healthz/.", "/metrics/", "/metrics%2F", "/metrics/.",
    ],
)  # fmt: skip
def test_the_probes_answer_at_their_exact_paths_only(client, path):
    # Given a sweeper run recorded: /readyz itself would answer 200.
    heartbeat.record_sweeper_run()
    assert client.get("/readyz").status_code == 200

    # When the path is any other spelling of a probe's.
    response = client.get(path, REMOTE_ADDR="10.20.30.40")

    # Then the URLconf answers it, as any unknown page: no probe, no checks.
    assert response.status_code == 404
    assert b"checks" not in response.content
    assert b"# HELP" not in response.content
