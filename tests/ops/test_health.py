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
    assert set(body["checks"]) == {"database", "redis"}
    assert all(check["ok"] for check in body["checks"].values())
    assert body["checks"]["redis"]["sweeper_age_s"] < 5
    database = body["checks"]["database"]
    # The session's bounds, as the process's connections got them.
    assert database["lock_timeout"] == "2s"
    assert database["idle_in_transaction_session_timeout"] == "5s"
    assert database["pooler"] is False
    assert database["prepared"] is True  # a direct connection: the hot path prepares


def test_the_sweeper_task_records_its_run(client):
    from games.tasks import sweeper

    assert client.get("/readyz").json()["checks"]["redis"]["sweeper_age_s"] is None
    sweeper()
    assert client.get("/readyz").json()["checks"]["redis"]["sweeper_age_s"] < 5


def test_room_wide_conditions_are_not_readiness(client, settings, make_user):
    # Given no sweeper run for an hour and a settlement backlog: the whole
    # room's state, the same on every process.
    heartbeat.record_sweeper_run(time.time() - 3600)
    _unsettled_hands(60, make_user)

    response = client.get("/readyz")

    # Then this process can still serve: a balancer keeps it.
    assert response.status_code == 200, response.json()
    assert response.json()["checks"]["redis"]["sweeper_age_s"] >= 3600
    # (they are metrics, with alerts: docs/observability.md "Alerts")
    from vipgame.ops import scrape

    text = scrape.render().decode()
    assert "vipgame_settlement_backlog 60.0" in text
    assert "vipgame_sweeper_last_run_age_seconds 360" in text


def test_no_sweeper_run_recorded_is_still_ready(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    checks = response.json()["checks"]
    assert checks["redis"] == {"ok": True, "ms": checks["redis"]["ms"], "sweeper_age_s": None}


def test_redis_at_a_dead_address_is_not_ready(client, settings):
    heartbeat.record_sweeper_run()
    settings.REDIS_CACHE_URL = f"redis://127.0.0.1:{free_port()}/0"
    started = time.monotonic()
    response = client.get("/readyz")
    assert time.monotonic() - started < 3
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["redis"]["ok"] is False
    assert checks["redis"]["error"] == "ConnectionError"
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
    assert checks["redis"]["ok"] is True


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


def test_redis_split_by_role_is_checked_role_by_role(client, settings):
    """One Redis: one check. A channel layer's Redis of its own that does not
    answer fails the process's readiness under its own name."""
    assert set(client.get("/readyz").json()["checks"]) == {"database", "redis"}
    settings.REDIS_CHANNELS_URL = f"redis://127.0.0.1:{free_port()}/0"
    same = settings.REDIS_CACHE_URL  # (another spelling of it: a broker's that answers)
    settings.REDIS_BROKER_URL = same + ("&" if "?" in same else "?") + "health_check_interval=1"
    response = client.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["redis_channels"] == {"ok": False, "error": "ConnectionError"}
    assert checks["redis_broker"]["ok"] is True
    assert checks["redis"]["ok"] is True
