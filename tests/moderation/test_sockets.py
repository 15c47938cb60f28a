"""What moderation does to open sockets (the real Redis channel layer)."""

import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.utils import timezone

from games.models import Seat
from moderation import services as moderation

from ..consumers.helpers import Client, token_for
from .helpers import deal, seated_table, wallets

pytestmark = pytest.mark.django_db(transaction=True)


async def until_closed(client: Client, timeout: float = 5) -> tuple[list[dict], int]:
    """Every message the socket is sent until the server closes it, and the
    close code. The client then hangs up, as a browser does, so the consumer
    stops listening to the channel layer."""
    messages: list[dict] = []
    for _ in range(100):
        output = await client.ws.receive_output(timeout)
        if output["type"] == "websocket.close":
            await client.ws.disconnect(code=output["code"])
            return messages, output["code"]
        messages.append(json.loads(output["text"]))
    raise AssertionError("the socket was never closed")


def test_a_ban_closes_every_socket_of_the_player_at_once(tables, make_user):
    staff = make_user(is_staff=True)
    table, (lan, minh, _) = seated_table(make_user, "holdem")
    tokens = token_for(lan), token_for(minh)

    async def scenario():
        table_socket = Client(f"/ws/tables/{table.pk}/", tokens[1])
        lobby_socket = Client("/ws/lobby/", tokens[1])
        bystander = Client(f"/ws/tables/{table.pk}/", tokens[0])
        for socket in (table_socket, lobby_socket, bystander):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] in ("state", "lobby"))

        await sync_to_async(moderation.user_ban)(by=staff, user=minh, reason="gian lận")

        for socket in (table_socket, lobby_socket):
            messages, code = await until_closed(socket)
            assert code == 4401
            assert messages[-1] == {
                "type": "error",
                "id": None,
                "code": "account_banned",
                "message": "Tài khoản của bạn đã bị khóa. Lý do: gian lận",
            }
        await bystander.until(
            lambda m: (
                m["type"] == "state" and [s["position"] for s in m["table"]["seats"]] == [0, 2]
            )
        )
        await bystander.send(type="ping", t=1)
        assert (await bystander.recv())["type"] == "pong"
        await bystander.close()

    async_to_sync(scenario)()
    assert not Seat.objects.filter(user=minh).exists()
    assert wallets([minh]) == {minh.pk: 10_000}


def test_a_banned_players_token_no_longer_opens_a_socket(tables, make_user):
    staff = make_user(is_staff=True)
    table, (_lan, minh, _) = seated_table(make_user, "tienlen")
    token = token_for(minh)
    moderation.user_ban(by=staff, user=minh, reason="spam")

    async def scenario():
        socket = Client(f"/ws/tables/{table.pk}/", token)
        assert await socket.connect()
        state = await socket.until(lambda m: m["type"] == "state")
        assert state["seat"] is None
        await socket.send(type="sit", id="s1")
        reply = await socket.until(lambda m: m["type"] == "error")
        assert (reply["id"], reply["code"]) == ("s1", "permission_denied")
        await socket.close()

    async_to_sync(scenario)()
    assert not Seat.objects.filter(user=minh).exists()


def test_a_muted_player_is_told_why_and_their_chat_is_refused(tables, make_user):
    staff = make_user(is_staff=True)
    table, (lan, minh, _) = seated_table(make_user, "maubinh")
    tokens = token_for(lan), token_for(minh)

    async def scenario():
        muted = Client(f"/ws/tables/{table.pk}/", tokens[0])
        other = Client(f"/ws/tables/{table.pk}/", tokens[1])
        for socket in (muted, other):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")

        await sync_to_async(moderation.user_mute)(by=staff, user=lan, minutes=30, reason="spam")

        notice = await muted.until(lambda m: m["type"] == "event")
        until = await sync_to_async(lambda: type(lan).objects.get(pk=lan.pk).muted_until)()
        shown = f"{timezone.localtime(until):%H:%M %d/%m/%Y}"
        assert notice == {
            "type": "event",
            "event": "muted",
            "until": int(until.timestamp() * 1000),
            "reason": "spam",
            "message": f"Bạn bị cấm chat đến {shown}. Lý do: spam",
        }
        await muted.send(type="chat", id="c1", text="mua chip rẻ")
        refused = await muted.until(lambda m: m["type"] == "error")
        assert refused == {
            "type": "error",
            "id": "c1",
            "code": "chat_muted",
            "message": f"Bạn bị cấm chat đến {shown}. Lý do: spam",
            "details": {"until": int(until.timestamp() * 1000), "reason": "spam"},
        }
        await other.send(type="chat", id="c2", text="chào")
        said = await other.until(lambda m: m["type"] == "chat")
        assert said["text"] == "chào"
        await muted.until(lambda m: m["type"] == "chat")
        assert [m["text"] for m in muted.received if m["type"] == "chat"] == ["chào"]
        for socket in (muted, other):
            await socket.close()

    async_to_sync(scenario)()


def test_a_force_closed_table_sends_every_seated_player_the_closed_state_and_reason(
    tables, make_user
):
    staff = make_user(is_staff=True)
    table, users, before = deal(make_user, "holdem")
    tokens = [token_for(u) for u in users]

    async def scenario():
        sockets = [Client(f"/ws/tables/{table.pk}/", t) for t in tokens]
        watcher = Client(f"/ws/tables/{table.pk}/")
        for socket in [*sockets, watcher]:
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        assert [s.state["seat"] for s in [*sockets, watcher]] == [0, 1, 2, None]

        await sync_to_async(moderation.table_force_close)(
            by=staff, table_id=table.pk, reason="Bảo trì máy chủ"
        )

        for socket in [*sockets, watcher]:
            final = await socket.until(
                lambda m: m["type"] == "state" and m["table"]["status"] == "closed"
            )
            assert final["table"]["closed_reason"] == "Bảo trì máy chủ"
            assert final["table"]["seats"] == []
            assert final["seat"] is None
            assert final["hand"]["finished"] is True
            assert final["hand"]["result"] == {
                "game": "holdem",
                "voided": True,
                "reason": "Bảo trì máy chủ",
                "unit": 1,
                "net": [0, 0, 0],
                "chips": [0, 0, 0],
                "payments": [],
                "summary": None,
            }
            await socket.close()

    async_to_sync(scenario)()
    assert wallets(users) == before


def test_a_player_reports_a_chat_line_on_the_table_socket(tables, make_user, settings):
    """The socket's ``report`` is the API's: acked with the line's id, refused
    with the same codes, limited by the same rate."""
    from games import services
    from games.models import ChatFlag, ChatReport

    settings.CHAT_REPORT_RATE = "1/hour"
    table, (lan, minh, _) = seated_table(make_user, "tienlen")
    rude = services.chat_post(table_id=table.pk, user=lan, text="đồ ngu")
    spam = services.chat_post(table_id=table.pk, user=lan, text="mua chip rẻ")
    mine = services.chat_post(table_id=table.pk, user=minh, text="xin chào")
    token = token_for(minh)

    async def scenario():
        socket = Client(f"/ws/tables/{table.pk}/", token)
        assert await socket.connect()
        await socket.until(lambda m: m["type"] == "state")
        answers = []
        for n, (line, category) in enumerate(
            [(mine.pk, "abuse"), (rude.pk, "nonsense"), (rude.pk, "abuse"), (rude.pk, "abuse"),
             (spam.pk, "spam"), ("7", "abuse")]
        ):  # fmt: skip
            await socket.send(type="report", id=f"r{n}", message_id=line, category=category)
            answers.append(await socket.until(lambda m: m["type"] in ("ack", "error")))
        await socket.close()
        return answers

    answers = async_to_sync(scenario)()

    assert [(a["id"], a["type"], a.get("code"), a.get("reported")) for a in answers] == [
        ("r0", "error", "cannot_report_own", None),
        ("r1", "error", "bad_report", None),
        ("r2", "ack", None, rude.pk),
        ("r3", "error", "already_reported", None),
        ("r4", "error", "report_rate_limited", None),
        ("r5", "error", "chat_line_not_found", None),
    ]
    assert answers[4]["details"]["wait"] >= 3590
    assert list(ChatReport.objects.values_list("message_id", "flag_count")) == [(rude.pk, 1)]
    assert list(ChatFlag.objects.values_list("reporter_id", "category")) == [(minh.pk, "abuse")]
