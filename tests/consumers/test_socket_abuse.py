"""Issue 34, the WebSocket findings: text that is not Unicode (S-05) and
``sync`` as a free full read (S-03), against the real channel layer. The slow
readers (S-02) and the 1009 close need a real Daphne: tests/test_slow_readers.py
and tests/test_server_limits.py."""

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync

from games import services
from games.models import ChatFlag, ChatMessage, ChatReport, Seat

from ..services.test_tables import table_snapshot
from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)

LONE = "\ud800"  # sent escaped (json.dumps): "\\ud800"
REFUSED = "Văn bản chứa ký tự Unicode không hợp lệ (một ký tự surrogate đứng lẻ)."


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


# Every string field of the client messages (docs/protocol.md), one at a time.
MESSAGES: dict[str, dict[str, Any]] = {
    "chat text": {"type": "chat", "id": "c1", "text": f"xin chào {LONE}"},
    "action id": {"type": "act", "id": f"a{LONE}", "action": {"type": "pass"}},
    "action field": {"type": "act", "id": "a1", "action": {"type": f"pass{LONE}"}},
    "action key": {"type": "act", "id": "a1", "action": {"type": "play", f"cards{LONE}": []}},
    "report note": {"type": "report", "id": "r1", "message_id": 0, "note": f"xấu {LONE}"},
    "report category": {"type": "report", "id": "r1", "message_id": 0, "category": LONE},
    "ready seed": {"type": "ready", "id": "r1", "client_seed": f"seed{LONE}"},
    "ready commitment": {"type": "ready", "id": "r1", "commitment": LONE},
    "seed": {"type": "seed", "id": "s1", "client_seed": LONE, "commitment": "ab"},
    "sit invite": {"type": "sit", "id": "s1", "invite": LONE},
    "leave when": {"type": "leave", "id": "l1", "when": LONE},
    "ping t": {"type": "ping", "t": LONE},
    "message type": {"type": f"ping{LONE}"},
    "low surrogate": {"type": "chat", "id": "c1", "text": "\udfff"},
}


def seated_table(make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    line = services.chat_post(table_id=table.pk, user=minh, text="chào")
    return table, lan, line


def picture(table):
    """What a refused message could have changed."""
    seats = Seat.objects.filter(table=table).order_by("position")
    return (
        table_snapshot(table)[1:4],  # (not the version: the socket counts at its seat)
        list(seats.values_list("ready", "client_seed", "leaving")),
        list(ChatMessage.objects.filter(table=table).values_list("text", flat=True)),
        ChatReport.objects.count(),
        ChatFlag.objects.count(),
    )


@pytest.mark.parametrize("field", MESSAGES)
def test_a_lone_surrogate_in_any_string_is_refused_and_changes_nothing(make_user, field):
    """It used to close the socket with 1011 and log a traceback (the text
    could not be written as UTF-8, nor stored)."""
    table, lan, line = seated_table(make_user)
    message = dict(MESSAGES[field])
    if message["type"] == "report":
        message["message_id"] = line.pk  # a line lan could report
    before = picture(table)
    token = token_for(lan)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        await a.until(lambda m: m["type"] == "state")
        await a.settle()
        await a.ws.send_to(text_data=json.dumps(message))
        refused = await a.recv()
        assert (refused["type"], refused["code"]) == ("error", "bad_unicode")
        assert refused["message"] == REFUSED
        sent_id = message.get("id")
        assert refused["id"] == (sent_id.replace(LONE, "?") if sent_id else None)
        await a.send(type="ping", t=1)  # the socket is still open
        assert (await a.until(lambda m: m["type"] == "pong"))["t"] == 1
        await a.close()

    run(scenario)
    assert picture(table) == before


@pytest.mark.parametrize("path", ["/ws/lobby/", "table"])
def test_a_lone_surrogate_in_the_auth_token_is_refused_without_an_account(make_user, path):
    table = services.table_create(owner=None, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/" if path == "table" else path

    async def scenario():
        guest = Client(path)
        assert await guest.connect()
        await guest.recv()
        await guest.settle()
        await guest.send(type="auth", token=f"abc{LONE}", lang="en")
        refused = await guest.recv()
        assert (refused["type"], refused["code"], refused["id"]) == ("error", "bad_unicode", None)
        await guest.send(type="ping", t=2)
        assert (await guest.until(lambda m: m["type"] == "pong"))["t"] == 2
        assert not [m for m in guest.received if m.get("event") == "authenticated"]
        await guest.close()

    run(scenario)


def test_a_surrogate_pair_is_one_character_and_is_accepted(make_user):
    table, lan, _line = seated_table(make_user)
    token = token_for(lan)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        await a.until(lambda m: m["type"] == "state")
        await a.send(type="chat", id="c1", text="vui \ud83d\ude00")  # escaped as a pair
        assert (await a.until(lambda m: m["type"] in ("ack", "error")))["type"] == "ack"
        await a.close()

    run(scenario)
    assert ChatMessage.objects.filter(user=lan).get().text == "vui 😀"


def test_sync_is_limited_per_socket_with_an_error_not_a_close(settings, make_user):
    settings.WS_SYNC_RATE = "2/10s"
    settings.WS_SYNC_ADDRESS_RATE = "none"
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)

    async def scenario():
        guest = Client(f"/ws/tables/{table.pk}/")
        assert await guest.connect()
        await guest.until(lambda m: m["type"] == "state")
        await guest.settle()
        answers = []
        for _ in range(16):  # more refusals than the flood rule's strikes (10)
            await guest.send(type="sync", v=0)
            answers.append(await guest.recv())
        assert [a["type"] for a in answers] == ["state"] * 2 + ["error"] * 14
        refused = answers[2]
        assert (refused["code"], refused["id"], refused["details"]) == (
            "sync_rate_limited",
            None,
            {"wait": 10},
        )
        assert refused["message"] == "Bạn tải lại bàn nhiều quá: chờ 10 giây rồi thử lại nha."
        await guest.send(type="ping", t=3)  # still open
        assert (await guest.until(lambda m: m["type"] == "pong"))["t"] == 3
        await guest.close()

    run(scenario)


def test_sync_is_limited_per_address_over_every_socket(settings, make_user):
    settings.WS_SYNC_RATE = "none"
    settings.WS_SYNC_ADDRESS_RATE = "3/10s"
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)
    other = services.table_create(owner=make_user(), game="maubinh", stake=1)

    async def scenario():
        a, b = Client(f"/ws/tables/{table.pk}/"), Client(f"/ws/tables/{other.pk}/")
        for socket in (a, b):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
            await socket.settle()
        answers = []
        for socket in (a, b, a, b, a):
            await socket.send(type="sync", v=0)
            answers.append(await socket.recv())
        assert [m["type"] for m in answers] == ["state"] * 3 + ["error"] * 2
        assert {m["code"] for m in answers[3:]} == {"sync_rate_limited"}
        # Pings and the other messages are not counted.
        await b.send(type="ping", t=4)
        assert (await b.until(lambda m: m["type"] == "pong"))["t"] == 4
        for socket in (a, b):
            await socket.close()

    run(scenario)
