"""Log lines: JSON with the request id, user, table and hand; plain lines in
development; UTC; and error reports that never carry secrets."""

import io
import json
import logging
import re
from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import async_to_sync

from games import services
from kernel.ops import context
from kernel.ops.context import ContextFilter
from kernel.ops.logconfig import JsonFormatter, PlainFormatter, logging_config

from ..consumers.helpers import Client, token_for


@pytest.fixture
def captured():
    """A handler on the root logger with the production (JSON) formatter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(ContextFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.INFO)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    root.removeHandler(handler)
    root.setLevel(old_level)


def test_a_json_line_carries_the_context_and_a_utc_timestamp(captured):
    with context.bound(request_id="req-12345678", user=7, table=3, hand=41):
        logging.getLogger("games.test").warning("Bài đã chia %s", "xong")
    logging.getLogger("games.test").info("outside")
    inside, outside = captured()
    assert inside["message"] == "Bài đã chia xong"
    assert inside["level"] == "WARNING"
    assert inside["logger"] == "games.test"
    assert (inside["request_id"], inside["user"], inside["table"], inside["hand"]) == (
        "req-12345678", 7, 3, 41,
    )  # fmt: skip
    assert inside["timestamp"].endswith("Z")
    stamp = datetime.fromisoformat(inside["timestamp"].replace("Z", "+00:00"))
    assert stamp.utcoffset() == timedelta(0)
    assert abs((datetime.now(UTC) - stamp).total_seconds()) < 60
    assert "context" not in inside
    assert not {"request_id", "user", "table", "hand"} & set(outside)


def test_an_exception_is_one_json_line(captured):
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("x").exception("failed")
    (line,) = captured()
    assert "ValueError: boom" in line["exc_info"]


def test_plain_lines_are_readable_and_utc():
    record = logging.LogRecord("games.tasks", logging.INFO, __file__, 1, "swept %s", (3,), None)
    with context.bound(table=5, hand=9):
        ContextFilter().filter(record)
    line = PlainFormatter().format(record)
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO games.tasks \[table=5 hand=9\]: swept 3", line
    ), line


def test_log_format_setting():
    assert logging_config("json", "INFO")["formatters"]["main"]["()"].endswith("JsonFormatter")
    assert logging_config("plain", "INFO")["formatters"]["main"]["()"].endswith("PlainFormatter")
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        logging_config("xml", "INFO")


@pytest.mark.django_db
def test_http_requests_log_their_request_id_and_user(client, make_user, captured):
    lan = make_user()
    client.force_login(lan)
    response = client.get("/no-such-page/", HTTP_X_REQUEST_ID="proxy-req-0001")
    assert response.status_code == 404
    assert response["X-Request-ID"] == "proxy-req-0001"
    line = next(x for x in captured() if x["logger"] == "django.request")
    assert line["message"] == "Not Found: /no-such-page/"
    assert line["request_id"] == "proxy-req-0001"
    assert line["user"] == lan.pk
    # A request id that is not sane is replaced by a new one.
    response = client.get("/no-such-page/", HTTP_X_REQUEST_ID="bad id\n")
    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])


@pytest.mark.django_db(transaction=True)
def test_socket_actions_log_with_user_table_and_hand(tables, make_user, captured, monkeypatch):
    """The consumer binds the user and table; the service (in a database
    thread) binds the hand; a line logged there carries all of them."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=minh)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    real_ready = services.table_ready

    def logging_ready(**kwargs):
        real_ready(**kwargs)
        logging.getLogger("games.services.test").info("readied")

    monkeypatch.setattr(services, "table_ready", logging_ready)
    token = token_for(lan)

    async def scenario():
        seat = Client(f"/ws/tables/{table.pk}/", token)
        assert await seat.connect()
        await seat.send(type="ready", id="r1", client_seed="abc")
        await seat.until(lambda m: m["type"] == "ack" and m["id"] == "r1")
        await seat.close()

    async_to_sync(scenario)()
    table.refresh_from_db()
    line = next(x for x in captured() if x["message"] == "readied")
    assert line["user"] == lan.pk
    assert line["table"] == table.pk
    assert line["hand"] == table.current_hand_id is not None
    assert line["request_id"].startswith("ws-")


@pytest.mark.django_db
def test_celery_tasks_log_with_their_task_id(captured):
    from vipgame.ops.tasks import clean_up

    result = clean_up.apply()
    line = next(x for x in captured() if x["message"].startswith("retention: deleted"))
    assert line["request_id"] == result.id
    assert context.current() == {}  # cleared when the task ended


def test_sentry_reports_carry_no_seeds_cards_or_passwords():
    import sentry_sdk
    from sentry_sdk.transport import Transport

    from kernel.ops.errors import options

    sent: list[dict] = []

    class Capture(Transport):
        def capture_envelope(self, envelope):
            sent.extend(item.payload.json for item in envelope.items if item.payload.json)

    seed = "9f" * 32
    # Built here, not written out: the lines around the error are sent as source context.
    password = "-".join(["Bai", "Tien", "Len", "42"])
    address = ".".join(["203", "0", "113", "5"])
    sentry_sdk.init(
        transport=Capture,
        **options("https://key@sentry.example.invalid/1", environment="test", release="",
                  traces_sample_rate=0.0),
    )  # fmt: skip
    try:
        sentry_sdk.add_breadcrumb(message=f"dealt with seed {seed}")
        with sentry_sdk.new_scope() as scope:
            scope.set_context(
                "hand",
                {"server_seed": seed, "cards": ["As", "Kd"], "table_id": 12},
            )
            scope.set_extra("password", password)
            scope.set_extra("client_seeds", ["mine"])
            scope.set_user({"id": 5, "username": "lan", "ip_address": address})
            try:
                server_seed = seed  # a local variable holding the seed
                raise RuntimeError(f"deck broken for {server_seed}")
            except RuntimeError:
                sentry_sdk.capture_exception()
        sentry_sdk.flush()
    finally:
        sentry_sdk.get_client().close()
        sentry_sdk.init()  # no DSN: reporting off again
    assert sent, "nothing was reported"
    text = json.dumps(sent)
    assert seed not in text
    assert password not in text
    assert "As" not in json.dumps(sent[0].get("contexts", {}).get("hand", {}))
    assert address not in text
    assert sent[0]["user"] == {"id": 5}
    assert "deck broken for [Filtered]" in text
    frames = sent[0]["exception"]["values"][0]["stacktrace"]["frames"]
    assert all("vars" not in frame for frame in frames)


def test_celery_workers_keep_a_connection_without_the_pool():
    from vipgame.ops.celery_hooks import drop_pool

    databases = {"default": {"ENGINE": "x", "CONN_MAX_AGE": 0, "OPTIONS": {"pool": {"a": 1}}}}
    drop_pool(databases, 300)
    assert databases == {
        "default": {"ENGINE": "x", "CONN_MAX_AGE": 300, "CONN_HEALTH_CHECKS": True, "OPTIONS": {}}
    }
    without = {"default": {"ENGINE": "x", "CONN_MAX_AGE": 0, "OPTIONS": {}}}
    drop_pool(without, 300)  # DB_POOL=0: CONN_MAX_AGE is the operator's
    assert without == {"default": {"ENGINE": "x", "CONN_MAX_AGE": 0, "OPTIONS": {}}}
