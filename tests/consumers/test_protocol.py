"""The table WebSocket protocol (DESIGN.md), against the real channel layer."""

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games import publish, services
from games.consumers import TableSocket
from games.models import ChatMessage, Seat

from ..services.test_tables import table_snapshot
from .helpers import Client, ready_right_after_opening, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


async def close_code(client: Client) -> int | None:
    """Connect, and read until the server closes the socket: its close code."""
    connected, code = await client.ws.connect(timeout=5)
    while connected:
        output = await client.ws.receive_output(timeout=5)
        connected, code = output["type"] != "websocket.close", output.get("code")
    return code


def test_sit_ready_and_see_the_deal(make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=10, seat_count=2)
    tokens = token_for(lan), token_for(minh)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", tokens[0])
        b = Client(f"/ws/tables/{table.pk}/", tokens[1])
        assert await a.connect()
        assert await b.connect()
        first = await a.recv()
        assert first["type"] == "state"
        assert first["seat"] is None
        await b.recv()
        await a.send(type="sit", id="s1")
        await a.until(lambda m: m["type"] == "ack" and m["id"] == "s1")
        await b.send(type="sit", id="s2", position=1)
        await b.until(lambda m: m["type"] == "ack")
        await a.send(type="ready", id="r1", client_seed="abc")
        await b.send(type="ready", id="r2", client_seed="xyz")
        dealt = await a.until(lambda m: m["type"] == "state" and m["hand"] is not None)
        assert (dealt["seat"], dealt["you"]) == (0, 0)
        own = dealt["hand"]["view"]["own"]["cards"]
        assert len(own) == 13
        other = await b.until(lambda m: m["type"] == "state" and m["hand"] is not None)
        assert not set(own) & set(other["hand"]["view"]["own"]["cards"])
        await a.send(type="ping", t=5)
        pong = await a.until(lambda m: m["type"] == "pong")
        assert pong["t"] == 5
        await a.close()
        await b.close()

    run(scenario)
    assert Seat.objects.filter(table=table).count() == 2


def test_bad_messages_get_errors_then_a_1008_close(make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    token = token_for(lan)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        await a.recv()
        await a.ws.send_to(text_data="{nope")
        assert (await a.recv())["code"] == "bad_json"
        await a.send(type="dance")
        assert (await a.recv())["code"] == "unknown_type"
        await a.ws.send_to(text_data="x" * 9000)
        assert (await a.recv())["code"] == "message_too_large"
        await a.ws.send_to(bytes_data=b"\x00\x01")
        assert (await a.recv())["code"] == "binary_not_supported"
        await a.send(type="act", id="a1", action={"type": "pass"})
        assert (await a.recv())["code"] == "not_seated"
        for _ in range(40):
            await a.send(type="ping")
        codes = []
        while True:
            output = await a.ws.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                assert output["code"] == 1008
                break
            message = json.loads(output["text"])
            codes.append(message.get("code"))
        assert "rate_limited" in codes

    run(scenario)


def test_nul_characters_and_deep_nesting_are_refused_and_change_nothing(make_user):
    """PostgreSQL text and jsonb cannot hold NUL: a seed, an id or a chat line
    with one used to end the socket with 1011 (found by bench/fuzz.py)."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    token = token_for(lan)

    def picture():  # what the refused messages would have changed
        seats = Seat.objects.filter(table=table).order_by("position")
        return (
            table_snapshot(table)[1:4],
            list(seats.values_list("ready", "client_seed")),
            ChatMessage.objects.filter(table=table).count(),
        )

    before = picture()

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        await a.until(lambda m: m["type"] == "state")
        await a.settle()  # (a catch-up state may follow the first)
        for message in (
            {"type": "ready", "id": "r1", "client_seed": "seed\x00"},
            {"type": "ready", "id": "r\x00"},
            {"type": "chat", "id": "c1", "text": "xin chào\x00"},
            {"type": "act", "id": "a1", "action": {"type": "play", "cards\x00": ["3s"]}},
        ):
            await a.send(**message)
            refused = await a.recv()
            assert (refused["type"], refused["code"]) == ("error", "nul_character")
            assert refused["id"] == message["id"]
            assert refused["message"] == "Văn bản không được chứa ký tự NUL."
        await a.ws.send_to(text_data="[" * 4000 + "]" * 4000)
        assert (await a.recv())["code"] == "bad_json"
        await a.send(type="ping", t=1)
        assert (await a.until(lambda m: m["type"] == "pong"))["t"] == 1
        await a.close()

    run(scenario)
    assert picture() == before


def test_origin_must_match_when_sent(make_user):
    table = services.table_create(owner=None, game="tienlen", stake=1)

    async def scenario():
        evil = Client(f"/ws/tables/{table.pk}/", origin="https://evil.example")
        assert not await evil.connect()
        good = Client(f"/ws/tables/{table.pk}/", origin="http://127.0.0.1:8000")
        assert await good.connect()
        await good.close()
        app = Client(f"/ws/tables/{table.pk}/")
        assert await app.connect()
        await app.close()

    run(scenario)


def test_lobby_lists_open_tables_and_follows_seat_counts(make_user):
    lan = make_user()
    open_table = services.table_create(owner=lan, game="maubinh", stake=20)
    services.table_create(owner=lan, game="tienlen", stake=1, is_private=True)

    async def scenario():
        lobby = Client("/ws/lobby/")
        assert await lobby.connect()
        first = await lobby.recv()
        assert first["type"] == "lobby"
        assert [t["id"] for t in first["tables"]] == [open_table.pk]
        await sync_to_async(services.table_sit)(table_id=open_table.pk, user=lan)
        update = await lobby.until(lambda m: m["type"] == "table")
        assert (update["table"]["id"], update["table"]["taken"]) == (open_table.pk, 1)
        await lobby.close()

    run(scenario)


def test_the_channel_layer_reads_from_redis_longer_than_it_ever_blocks(settings):
    """The list-based layer (CHANNEL_BACKEND may name it) waits for messages
    with a blocking pop of ``brpop_timeout`` seconds: a read timeout that is not
    longer (redis-py 8's default is 5 s, the same) kills idle consumers at
    random (django/channels_redis#422)."""
    from channels_redis.core import RedisChannelLayer
    from channels_redis.utils import create_pool

    host = settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]
    pool = create_pool(host)
    assert pool.connection_kwargs["socket_timeout"] >= RedisChannelLayer.brpop_timeout + 5


def test_a_socket_that_loses_the_channel_layer_is_closed_for_a_restart(make_user, monkeypatch):
    """Redis went away under a live socket: the client is told to reconnect
    (1012) instead of the consumer crashing."""
    from channels_redis.core import RedisChannelLayer
    from channels_redis.pubsub import RedisPubSubLoopLayer
    from redis.exceptions import ConnectionError as RedisConnectionError

    table = services.table_create(owner=make_user(), game="tienlen", stake=1)

    async def lost(self, channel):
        raise RedisConnectionError("Connection closed by server.")

    async def scenario():
        monkeypatch.setattr(RedisChannelLayer, "receive", lost)
        monkeypatch.setattr(RedisPubSubLoopLayer, "receive", lost)
        watcher = Client(f"/ws/tables/{table.pk}/")
        assert await close_code(watcher) == 1012

    run(scenario)


def test_a_socket_that_missed_an_update_catches_up_at_its_next_ping(make_user, monkeypatch):
    """An update lost on the way (Redis restarting drops what is published
    meanwhile): the socket's next heartbeat sends the state it missed."""
    owner = make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1)

    async def scenario():
        watcher = Client(f"/ws/tables/{table.pk}/")
        assert await watcher.connect()
        first = await watcher.recv()
        held: list[tuple[str, dict]] = []
        with monkeypatch.context() as lost:
            lost.setattr(publish, "send", lambda messages, **_: held.extend(messages))
            await sync_to_async(services.table_add_bot)(table_id=table.pk, user=owner)
        assert await watcher.ws.receive_nothing(timeout=0.5)  # the change went unheard

        await watcher.send(type="ping", t=1)
        assert (await watcher.recv())["type"] == "pong"
        caught_up = await watcher.recv()
        assert caught_up["type"] == "state"
        assert caught_up["v"] == first["v"] + 1
        assert [s["bot"] for s in caught_up["table"]["seats"]] == [True]
        await sync_to_async(publish.send)(held)  # the publication comes after all
        assert await watcher.ws.receive_nothing(timeout=0.5)  # not sent twice
        await sync_to_async(services.table_add_bot)(table_id=table.pk, user=owner)
        assert (await watcher.recv())["v"] == first["v"] + 2  # and hears as before
        await watcher.close()

    run(scenario)


def test_a_change_published_while_the_socket_joins_its_groups_still_reaches_it(
    make_user, monkeypatch
):
    """A signed-in spectator learns from its opening read that it needs the
    public group, and joins it after: a change committed in between (bots
    readying, a deal) is published to nobody this socket hears. The socket
    catches up at once instead of at the next heartbeat."""
    lan, minh, chi = make_user(), make_user(), make_user()
    table = services.table_create(owner=minh, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=minh)
    services.table_sit(table_id=table.pk, user=chi)
    # Minh gets ready while Lan's socket (watching) is between its read and
    # the public group.
    ready_right_after_opening(monkeypatch, table.pk, minh)
    token = token_for(lan)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        first = await a.recv()
        caught_up = await a.recv(timeout=3)  # long before a heartbeat (15 s)
        assert caught_up["type"] == "state"
        assert caught_up["v"] > first["v"]
        ready = {s["user_id"]: s["ready"] for s in caught_up["table"]["seats"]}
        assert ready[minh.pk] is True
        await a.close()

    run(scenario)


def test_a_message_the_database_cannot_answer_gets_an_error_and_the_socket_stays(
    make_user, monkeypatch
):
    """PostgreSQL dropped the connection under a service call (a restart, a
    fail-over): the message is answered with ``server_error`` (send it again)
    and the socket stays open, where the consumer crashed and closed it."""
    from django.db import OperationalError

    from games import consumers

    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    services.table_sit(table_id=table.pk, user=lan)

    token = token_for(lan)

    def dropped(**_):
        raise OperationalError("terminating connection due to administrator command")

    async def scenario():
        player = Client(f"/ws/tables/{table.pk}/", token=token)
        assert await player.connect()
        assert (await player.recv())["type"] == "state"
        with monkeypatch.context() as down:
            down.setattr(consumers.services, "table_ready", dropped)
            await player.send(type="ready", id="r1")
            error = await player.until(lambda m: m["type"] == "error")
        assert error["id"] == "r1"
        assert error["code"] == "server_error"
        assert error["message"] == "Máy chủ gặp sự cố. Hãy thử lại sau."
        await player.send(type="ready", id="r2")  # the same message, again
        await player.until(lambda m: m["type"] == "ack" and m.get("id") == "r2")
        assert await sync_to_async(lambda: Seat.objects.get(table=table, user=lan).ready)()
        await player.close()

    run(scenario)


def test_a_handshake_while_redis_is_away_is_accepted_and_closed_for_a_restart(
    make_user, monkeypatch
):
    """The socket caps are counted in Redis before the socket is accepted:
    while Redis restarts or fails over, the handshake is accepted and closed
    with 1012 (the client reconnects), not refused with a 403 that no client
    can tell from a refusal (issue 33: 41 handshakes refused in a 3.2 s restart)."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from games import consumers

    table = services.table_create(owner=make_user(), game="tienlen", stake=1)

    def away(*_args):
        raise RedisConnectionError("Error 111 connecting to 10.0.0.5:6379. Connection refused.")

    async def scenario():
        monkeypatch.setattr(consumers.limits, "socket_join", away)
        watcher = Client(f"/ws/tables/{table.pk}/")
        connected, _ = await watcher.ws.connect(timeout=5)
        assert connected
        closed = await watcher.ws.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 1012}

    run(scenario)


def test_a_socket_whose_connect_the_database_cannot_answer_is_closed_for_a_restart(
    make_user, monkeypatch
):
    from django.db import OperationalError

    from games import consumers

    table = services.table_create(owner=make_user(), game="tienlen", stake=1)

    def dropped(**_):
        raise OperationalError("terminating connection due to administrator command")

    async def scenario():
        monkeypatch.setattr(consumers.selectors, "table_state", dropped)
        watcher = Client(f"/ws/tables/{table.pk}/")
        assert await close_code(watcher) == 1012

    run(scenario)


def test_a_heartbeat_renews_its_groups_while_a_delivery_joins_one():
    """A catch-up's delivery runs beside the heartbeat and may join or leave
    the public group while the heartbeat renews the groups (it closed the
    socket with "Set changed size during iteration", 1,000 tables)."""
    socket = TableSocket()
    socket.table_id, socket.channel_name = 0, "socket"  # (no table 0: nothing to catch up)
    socket.seated, socket.last_version, socket.catching_up = False, 0, None
    socket.groups_joined = {"chat", "user"}
    renewed: list[str] = []

    class Layer:
        async def group_add(self, group: str, channel: str) -> None:
            renewed.append(group)
            socket.groups_joined.add("public")  # what the delivery joined meanwhile

    socket.channel_layer = Layer()
    run(socket._heartbeat)

    assert {"chat", "user"} <= set(renewed)


def test_a_heartbeat_runs_beside_its_socket_not_in_its_way(monkeypatch):
    """The heartbeat's database work waits for the process's batch
    (games.heartbeats): the socket goes on receiving and delivering."""
    from games import heartbeats

    monkeypatch.setattr(heartbeats, "BATCH_S", 30)
    socket = TableSocket()
    socket.table_id, socket.channel_name = 0, "socket"
    socket.seated, socket.last_version, socket.catching_up = False, 0, None
    socket.groups_joined, socket.closed = set(), False

    async def scenario():
        await asyncio.wait_for(socket._heartbeat(), timeout=5)  # (not 30 s)
        pending = not socket.beating.done()
        socket.beating.cancel()
        return pending

    assert run(scenario)
