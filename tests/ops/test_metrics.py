"""/metrics: who may read it, and that each metric moves when its event happens."""

import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync

from games import services
from games.models import HandEvent, Seat
from games.plugins import engine_for
from kernel.ops import heartbeat
from vipgame.ops import scrape
from wallet.models import Account
from wallet.services import ISSUANCE_KEY

from ..consumers.helpers import Client, token_for
from ..seeds import ORDINARY
from ..services.driver import play_until_finished
from .helpers import value

pytestmark = pytest.mark.django_db(transaction=True)


# -- access --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("address", "status"),
    [("127.0.0.1", 200), ("::1", 200), ("10.0.0.5", 403), ("203.0.113.9", 403), ("", 403)],
)
def test_metrics_only_for_allowed_addresses(client, address, status):
    response = client.get("/metrics", REMOTE_ADDR=address)
    assert response.status_code == status
    if status == 200:
        assert response["Content-Type"].startswith("text/plain")
        assert b"vipgame_settlement_backlog" in response.content
    else:
        assert response.json()["code"] == "forbidden"
        assert b"vipgame_" not in response.content


def test_allowed_networks_come_from_the_setting(client, settings):
    settings.METRICS_ALLOWED = ["10.0.0.0/8"]
    assert client.get("/metrics", REMOTE_ADDR="10.20.30.40").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="11.0.0.1").status_code == 403


def test_a_proxied_request_is_refused_even_from_loopback(client, settings):
    """Behind ``daphne --proxy-headers`` REMOTE_ADDR comes from X-Forwarded-For,
    which the client writes: a request that came through the proxy is refused."""
    forged = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "127.0.0.1, 198.51.100.7"}
    assert client.get("/metrics", **forged).status_code == 403
    settings.METRICS_ALLOW_PROXIED = True
    assert client.get("/metrics", **forged).status_code == 200


# -- figures read at scrape time -----------------------------------------------------------


def test_chips_issued_and_settlement_backlog(make_user, settings):
    make_user()
    make_user()
    issuance = Account.objects.get(key=ISSUANCE_KEY)
    assert value("vipgame_chips_issued") == -issuance.balance == 2 * settings.SIGNUP_GRANT
    assert value("vipgame_settlement_backlog") == 0
    assert value("vipgame_database_up") == 1


def test_celery_queue_lengths_and_sweeper_age(settings):
    redis = heartbeat.redis_client()
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    keys = [queue, f"{queue}\x06\x163"]
    waiting = value("vipgame_celery_queue_length", queue=queue)  # left by earlier tests
    try:
        redis.lpush(keys[0], "a", "b", "c")
        redis.lpush(keys[1], "d", "e")
        heartbeat.record_sweeper_run(time.time() - 3)
        assert value("vipgame_celery_queue_length", queue=queue) == waiting + 5
        assert value("vipgame_redis_up") == 1
        assert 3 <= value("vipgame_sweeper_last_run_age_seconds") < 10
    finally:
        for key in keys:
            redis.lrem(key, 1, "a")
            for item in "bcde":
                redis.lrem(key, 1, item)
        redis.delete(heartbeat.sweeper_key())


def test_redis_down_still_answers(settings, client):
    from ..processes import free_port

    settings.REDIS_BROKER_URL = settings.REDIS_CACHE_URL = f"redis://127.0.0.1:{free_port()}/0"
    settings.READY_TIMEOUT_S = 0.5
    response = client.get("/metrics")
    assert response.status_code == 200
    assert value("vipgame_redis_up", response.content.decode()) == 0
    assert value("vipgame_database_up", response.content.decode()) == 1


# -- events -----------------------------------------------------------------------------


def test_moves_hands_and_timer_lateness(tables, dealer, make_user, monkeypatch):
    game = "tienlen"
    dealer.stack(*ORDINARY)  # no tới trắng: the hand is played move by move
    before = {
        by: value("vipgame_moves_total", game=game, by=by) for by in ("player", "bot", "timeout")
    }
    dealt = value("vipgame_hands_total", game=game, event="dealt")
    finished = value("vipgame_hands_total", game=game, event="finished")
    timers = value("vipgame_timer_lateness_seconds_count", clock="ready")

    applied = []
    real_act = services.table_act

    def counting_act(**kwargs):
        result = real_act(**kwargs)
        if not result["duplicate"]:
            applied.append(1)
        return result

    monkeypatch.setattr(services, "table_act", counting_act)
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game=game, stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    assert table.deadline is not None
    tables.clock.moment = table.deadline + timedelta(seconds=12)
    assert tables.fire(table)  # Minh never readied: the ready clock ran out, 12 s late
    assert not Seat.objects.filter(table=table, user=minh).exists()
    assert value("vipgame_timer_lateness_seconds_count", clock="ready") == timers + 1
    services.table_sit(table_id=table.pk, user=minh)
    services.table_ready(table_id=table.pk, user=minh)
    services.table_ready(table_id=table.pk, user=lan)
    hand = play_until_finished(tables, table)
    assert hand.ended_at is not None
    assert value("vipgame_hands_total", game=game, event="dealt") == dealt + 1
    assert value("vipgame_hands_total", game=game, event="finished") == finished + 1
    moved = value("vipgame_moves_total", game=game, by="player") - before["player"]
    assert moved == len(applied)
    timeouts = value("vipgame_moves_total", game=game, by="timeout") - before["timeout"]
    assert timeouts == 0  # both players are people who move before their clock ends
    events = HandEvent.objects.filter(hand=hand, type__in=("played", "passed")).count()
    assert moved == events > 0
    # 12 s late lands in the 30 s bucket, not below.
    le_10 = value("vipgame_timer_lateness_seconds_bucket", clock="ready", le="10.0")
    le_30 = value("vipgame_timer_lateness_seconds_bucket", clock="ready", le="30.0")
    assert le_30 - le_10 >= 1


def test_sweeper_duration_is_recorded():
    from games.tasks import sweeper

    count = value("vipgame_sweeper_seconds_count")
    sweeper()
    assert value("vipgame_sweeper_seconds_count") == count + 1
    assert value("vipgame_sweeper_last_run_age_seconds") < 5


def test_open_sockets_by_kind_and_action_latency(tables, make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=1)
    token = token_for(lan)

    async def scenario():
        lobby = Client("/ws/lobby/", token)
        seat = Client(f"/ws/tables/{table.pk}/", token)
        open_before = {k: value("vipgame_sockets_open", kind=k) for k in ("lobby", "table")}
        assert await lobby.connect()
        assert await seat.connect()
        await seat.until(lambda m: m["type"] == "state")
        assert value("vipgame_sockets_open", kind="lobby") == open_before["lobby"] + 1
        assert value("vipgame_sockets_open", kind="table") == open_before["table"] + 1
        count = value("vipgame_action_state_seconds_count", game="maubinh", action="sit")
        await seat.send(type="sit", id="s1")
        await seat.until(lambda m: m["type"] == "ack" and m["id"] == "s1")
        await seat.until(lambda m: m["type"] == "state" and m["seat"] is not None)
        for _ in range(100):  # observed once every seat's group was sent
            if value("vipgame_action_state_seconds_count", game="maubinh", action="sit") > count:
                break
            await seat.ws.receive_nothing(timeout=0.02)
        assert value("vipgame_action_state_seconds_count", game="maubinh", action="sit") == (
            count + 1
        )
        # A refused action publishes nothing and is not measured.
        await seat.send(type="sit", id="s2")
        await seat.until(lambda m: m["type"] == "error" and m["id"] == "s2")
        assert value("vipgame_action_state_seconds_count", game="maubinh", action="sit") == (
            count + 1
        )
        await lobby.close()
        await seat.send(type="leave", id="l1")
        await seat.until(lambda m: m["type"] == "ack" and m["id"] == "l1")
        await seat.close()
        assert value("vipgame_sockets_open", kind="lobby") == open_before["lobby"]
        assert value("vipgame_sockets_open", kind="table") == open_before["table"]

    async_to_sync(scenario)()


def test_a_move_is_timed_to_every_recipients_frame_written(tables, dealer, make_user):
    """Issue 33 item 7: from a move received on a socket to its state's frame
    written on each socket that is sent it (the seats and a spectator), one
    observation each; the actions that are not moves and a refused move, none."""
    game = "tienlen"
    dealer.stack(*ORDINARY)
    lan, minh, khoa = make_user(), make_user(), make_user()
    table = services.table_create(owner=lan, game=game, stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    table.refresh_from_db()
    hand = table.current_hand
    assert hand is not None
    users = {p["position"]: p["user_id"] for p in hand.players}
    tokens = {lan.pk: token_for(lan), minh.pk: token_for(minh), khoa.pk: token_for(khoa)}

    def count() -> float:
        return value("vipgame_move_fanout_seconds_count", game=game)

    async def scenario():
        sockets = [Client(f"/ws/tables/{table.pk}/", tokens[u]) for u in (lan.pk, minh.pk, khoa.pk)]
        for socket in sockets:
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state" and m["hand"] is not None)
        before = count()
        below_10s = value("vipgame_move_fanout_seconds_bucket", game=game, le="10.0")
        mover = next(s for s in sockets if s.state["you"] in s.state["actors"])
        assert users[mover.state["seat"]] in (lan.pk, minh.pk)
        view = mover.state["hand"]["view"]
        move = engine_for(game).bot_action(view, seed=1)
        version = mover.state["v"]
        await mover.send(type="act", id="m1", v=version, action=move)
        await mover.until(lambda m: m["type"] == "ack" and m["id"] == "m1")
        for socket in sockets:  # the seats' and the spectator's frames
            await socket.until(lambda m: m["type"] == "state" and m["v"] > version)
        for _ in range(100):  # observed just after each frame was written
            if count() >= before + 3:
                break
            await sockets[0].ws.receive_nothing(timeout=0.02)
        assert count() == before + 3
        assert value("vipgame_move_fanout_seconds_bucket", game=game, le="10.0") == below_10s + 3
        # Not a move (a ping, a sync), and a move refused: nothing observed.
        await mover.send(type="sync", v=0)
        await mover.until(lambda m: m["type"] == "state")
        await mover.send(type="act", id="m2", v=version, action=move)
        await mover.until(lambda m: m["type"] == "error" and m["id"] == "m2")
        for socket in sockets:
            await socket.settle()
        assert count() == before + 3
        for socket in sockets:
            await socket.close()

    async_to_sync(scenario)()


PROMQL_WORDS = {
    "by", "without", "bool", "offset", "and", "or", "unless", "on", "ignoring",
    "group_left", "group_right", "inf", "nan",
}  # fmt: skip


def series_in(expr: str) -> set[str]:
    """The series a PromQL expression reads: its identifiers but functions,
    keywords, label names (in ``by (...)``, ``{...}``) and ranges."""
    import re

    bare = re.sub(r'"[^"]*"', "", expr)
    bare = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", bare)
    bare = re.sub(r"\{[^}]*\}|\[[^\]]*\]", "", bare)
    names = re.findall(r"\b([a-zA-Z_:][\w:]*)\b(?!\s*\()", bare)
    return {n for n in names if n.lower() not in PROMQL_WORDS}


def test_series_in_reads_promql():
    expr = (
        '60 * sum by (view, status) (rate(vipgame_http_server_errors_total{le="1"}[5m])) '
        "> 0 and on(role) max without (x) (pg_up) / redis_up"
    )
    assert series_in(expr) == {"vipgame_http_server_errors_total", "pg_up", "redis_up"}


def test_the_grafana_dashboard_uses_only_metrics_we_export():
    import json
    import re
    from pathlib import Path

    from prometheus_client.parser import text_string_to_metric_families

    dashboard = json.loads(
        (Path(__file__).resolve().parents[2] / "deploy/grafana/vipgame.json").read_text()
    )
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    used = {
        re.sub(r"_(bucket|total|count|sum)$", "", name)
        for expr in exprs
        for name in re.findall(r"vipgame_\w+", expr)
    }
    heartbeat.record_sweeper_run()  # its age is exported once a run was recorded
    try:
        exported = {f.name for f in text_string_to_metric_families(scrape.render().decode())}
    finally:
        heartbeat.redis_client().delete(heartbeat.sweeper_key())
    assert len(used) >= 12
    assert used <= exported, used - exported
    expected = {
        "vipgame_sockets_open", "vipgame_moves", "vipgame_action_state_seconds",
        "vipgame_timer_lateness_seconds", "vipgame_sweeper_seconds",
        "vipgame_settlement_backlog", "vipgame_hands", "vipgame_celery_queue_length",
        "vipgame_chips_issued",
        # issue 33 item 8: the error counters, the money check, the stores' own figures
        "vipgame_http_server_errors", "vipgame_socket_errors",
        "vipgame_celery_task_failures", "vipgame_celery_task_retries",
        "vipgame_transactions_retried", "vipgame_chips_imbalance",
        "vipgame_scrape_read_failures", "vipgame_pg_connections", "vipgame_pg_lock_waits",
        "vipgame_pg_oldest_transaction_seconds", "vipgame_pg_deadlocks",
        "vipgame_pg_max_connections", "vipgame_redis_used_memory_bytes",
        "vipgame_redis_connected_clients", "vipgame_redis_blocked_clients",
        "vipgame_redis_ops_per_second", "vipgame_redis_evicted_keys", "vipgame_redis_role_up",
    }  # fmt: skip
    assert expected <= used, expected - used
    # No series of anyone else's (an exporter's) in this dashboard.
    named = {n for e in exprs for n in series_in(e)}
    assert named
    assert all(n.startswith("vipgame_") for n in named), named
    assert {re.sub(r"_(bucket|total|count|sum)$", "", n) for n in named} == used


def _section(doc: str, heading: str) -> str:
    start = doc.index(heading)
    end = doc.find("\n#", start + len(heading))
    return doc[start : end if end > 0 else None]


def test_the_exporters_dashboard_names_only_the_documented_exporter_series():
    """deploy/grafana/exporters.json (the standard exporters' option) reads
    only the series docs/operations.md lists as read from their output."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    dashboard = json.loads((root / "deploy/grafana/exporters.json").read_text())
    named = {
        n for p in dashboard["panels"] for t in p.get("targets", []) for n in series_in(t["expr"])
    }
    doc = _section(
        (root / "docs/operations.md").read_text(), "### The standard exporters (optional)"
    )
    documented = set(re.findall(r"`((?:pg|redis)_[a-z_]+)`", doc))
    assert {"pg_stat_activity_count", "redis_memory_used_bytes"} <= named
    assert named <= documented, named - documented
    assert all(n.startswith(("pg_", "redis_")) for n in named)


def test_the_alert_rules_read_our_series_and_are_documented():
    import re
    from pathlib import Path

    import yaml
    from prometheus_client.parser import text_string_to_metric_families

    root = Path(__file__).resolve().parents[2]
    rules = yaml.safe_load((root / "deploy/prometheus/alerts.yml").read_text())
    alerts = [r for g in rules["groups"] for r in g["rules"]]
    heartbeat.record_sweeper_run()
    try:
        exported = {f.name for f in text_string_to_metric_families(scrape.render().decode())}
    finally:
        heartbeat.redis_client().delete(heartbeat.sweeper_key())
    read = {
        re.sub(r"_(bucket|total|count|sum)$", "", n) for a in alerts for n in series_in(a["expr"])
    }
    assert read - exported == {"probe_success"}  # the blackbox exporter's, polling /readyz
    doc = _section((root / "docs/operations.md").read_text(), "### Alerts")
    for alert in alerts:
        assert f"`{alert['alert']}`" in doc, alert["alert"]
    assert len(alerts) >= 20


def test_the_prometheus_configuration_reads_each_redis_role_and_the_rules():
    from pathlib import Path

    import yaml

    from vipgame.ops import stores

    root = Path(__file__).resolve().parents[2]
    config = yaml.safe_load((root / "deploy/prometheus/prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert {"vipgame", "postgres", "redis"} <= set(jobs)
    roles = [c["labels"]["role"] for c in jobs["redis"]["static_configs"]]
    assert sorted(roles) == sorted(stores.redis_roles())
    assert jobs["redis"]["metrics_path"] == "/scrape"
    assert config["rule_files"] == ["/etc/prometheus/rules/vipgame.yml"]
    assert "`/etc/prometheus/rules/vipgame.yml`" in (root / "docs/operations.md").read_text()
