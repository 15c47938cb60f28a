"""Issue 13 items 9 and 10 on the sockets: caps on open sockets per user and
per address, a chat rate per user over all of their sockets, a deactivated
account stopped on every action, private tables kept off the lobby socket
and the Origin compared by scheme, host and port."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from accounts.models import User
from games import services
from games.models import ChatMessage, Seat, Table
from kernel import limits

from ..moderation.test_sockets import until_closed
from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


def from_address(client: Client, peer: str, forwarded: str | None = None) -> Client:
    client.ws.scope["client"] = (peer, 40000)
    if forwarded is not None:
        client.ws.scope["headers"] = [
            *client.ws.scope["headers"],
            (b"x-forwarded-for", forwarded.encode()),
        ]
    return client


async def refused_as_too_many(client: Client) -> None:
    messages, code = await until_closed(client)
    assert code == 4429
    assert messages[-1]["code"] == "too_many_sockets"


def test_open_sockets_per_user_are_capped(settings, make_user):
    settings.WS_MAX_SOCKETS_PER_USER = 3
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    token, minh_token = token_for(lan), token_for(minh)

    async def scenario():
        sockets = [Client(path, token) for _ in range(3)]
        for socket in sockets:
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        fourth = Client(path, token)
        assert await fourth.connect()
        await refused_as_too_many(fourth)
        lobby = Client("/ws/lobby/", token)  # every kind of socket counts
        assert await lobby.connect()
        await refused_as_too_many(lobby)
        by_message = Client(path)  # anonymous, then the token in a first message
        assert await by_message.connect()
        await by_message.until(lambda m: m["type"] == "state")
        await by_message.send(type="auth", token=token)
        await refused_as_too_many(by_message)
        other = Client(path, minh_token)  # someone else is not affected
        assert await other.connect()
        await other.until(lambda m: m["type"] == "state")
        await other.close()
        await sockets[0].close()  # a closed socket frees its place
        again = Client(path, token)
        assert await again.connect()
        assert (await again.until(lambda m: m["type"] in ("state", "error")))["type"] == "state"
        for socket in (*sockets[1:], again):
            await socket.close()

    run(scenario)
    assert limits.socket_count("ws-user", str(lan.pk)) == 0


def test_open_sockets_per_address_are_capped_whatever_x_forwarded_for_says(settings, make_user):
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 2
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    table = services.table_create(owner=None, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"

    async def scenario():
        rotating = [from_address(Client(path), "203.0.113.66", f"198.51.100.{n}") for n in range(3)]
        for socket in rotating[:2]:
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        assert await rotating[2].connect()
        await refused_as_too_many(rotating[2])
        # Behind the trusted proxy each forwarded client has its own count.
        proxied = [
            from_address(Client(path), "10.0.0.1", f"6.6.6.6, 198.51.100.{n}") for n in (1, 2)
        ]
        same = from_address(Client(path), "10.0.0.1", "198.51.100.1")
        for socket in proxied:
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        assert await same.connect()
        await same.until(lambda m: m["type"] == "state")
        third = from_address(Client(path), "10.0.0.1", "7.7.7.7, 198.51.100.1")
        assert await third.connect()
        await refused_as_too_many(third)
        for socket in (*rotating[:2], *proxied, same):
            await socket.close()

    run(scenario)
    assert limits.socket_count("ws-address", "203.0.113.66") == 0


@pytest.fixture
def now(monkeypatch) -> list[float]:
    """The limits' clock, stopped: moved by hand (``now[0] += ...``)."""
    moment = [1_000_000.0]

    class Clock:
        @staticmethod
        def time() -> float:
            return moment[0]

    monkeypatch.setattr(limits, "time", Clock)
    return moment


def test_sockets_of_a_process_that_died_age_out(now):
    caps = [("ws-user", "42", 2)]

    assert [limits.socket_join(f"dead-{n}", caps) for n in range(3)] == [0, 0, 1]
    now[0] += limits.SOCKET_STALE_S / 2
    assert limits.socket_join("dead-0", caps) == 0  # a heartbeat renews one
    now[0] += limits.SOCKET_STALE_S / 2 + 1  # dead-1 was never renewed
    assert limits.socket_join("new", caps) == 0
    assert limits.socket_count("ws-user", "42") == 2


def test_a_process_renews_its_sockets_in_one_round_trip(now):
    user, address = [("ws-user", "43", 2)], [("ws-address", "198.51.100.7", 3)]
    assert limits.socket_join("a", user + address) == 0
    assert limits.socket_join("b", user + address) == 0
    assert limits.socket_join("c", address) == 0
    assert limits.sockets_renew([]) == []
    now[0] += limits.SOCKET_STALE_S / 2
    assert limits.sockets_renew([("a", user + address), ("c", address)]) == [0, 0]
    now[0] += limits.SOCKET_STALE_S / 2 + 1  # b was never renewed: it aged out
    assert limits.socket_count("ws-user", "43") == 1
    assert limits.socket_count("ws-address", "198.51.100.7") == 2


def test_chat_is_rate_limited_per_user_over_all_their_sockets(settings, make_user):
    settings.WS_CHAT_RATE = "3/10s"
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    path = f"/ws/tables/{table.pk}/"
    token, minh_token = token_for(lan), token_for(minh)

    async def scenario():
        tabs = [Client(path, token) for _ in range(3)]
        watcher = Client(path, minh_token)
        for socket in (*tabs, watcher):
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        answers = []
        for n in range(6):
            tab = tabs[n % 3]
            await tab.send(type="chat", id=f"c{n}", text=f"line {n}")
            answers.append(await tab.until(lambda m: m["type"] in ("ack", "error")))
        assert [a["type"] for a in answers] == ["ack"] * 3 + ["error"] * 3
        assert {a["code"] for a in answers[3:]} == {"chat_rate_limited"}
        await watcher.send(type="chat", id="w", text="hello")
        assert (await watcher.until(lambda m: m["type"] in ("ack", "error")))["type"] == "ack"
        await watcher.settle(0.3)
        lines = [m["text"] for m in watcher.received if m["type"] == "chat"]
        assert lines == ["line 0", "line 1", "line 2", "hello"]
        for socket in (*tabs, watcher):
            await socket.close()

    run(scenario)
    assert ChatMessage.objects.filter(user=lan).count() == 3


@pytest.mark.parametrize(
    "message",
    [
        {"type": "chat", "text": "still here"},
        {"type": "sit"},
        {"type": "add_bot"},
        {"type": "ready", "client_seed": "ab"},
        {"type": "leave"},
    ],
)
def test_a_deactivated_account_cannot_act_even_if_its_ban_message_was_lost(make_user, message):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    services.table_sit(table_id=table.pk, user=lan)
    path = f"/ws/tables/{table.pk}/"
    token = token_for(lan)

    def picture():
        # Presence (the socket's own connect and close) may change; nothing else.
        return (
            list(Seat.objects.filter(table=table).values_list("user_id", "position", "ready")),
            ChatMessage.objects.count(),
            Table.objects.get(pk=table.pk).current_hand_id,
        )

    async def scenario():
        socket = Client(path, token)
        assert await socket.connect()
        await socket.until(lambda m: m["type"] == "state")
        await socket.settle()
        # A ban whose channel message never arrived: only the database knows.
        await sync_to_async(User.objects.filter(pk=lan.pk).update)(is_active=False)
        before = await sync_to_async(picture)()
        await socket.send(id="x1", **message)
        messages, code = await until_closed(socket)
        assert code == 4401
        assert (messages[-1]["code"], messages[-1]["id"]) == ("account_banned", "x1")
        return before

    before = run(scenario)
    assert picture() == before


def test_private_tables_are_not_published_on_the_lobby_socket(make_user):
    lan, minh = make_user(), make_user()

    async def scenario():
        lobby = Client("/ws/lobby/")
        assert await lobby.connect()
        first = await lobby.recv()
        assert first["type"] == "lobby"
        private = await sync_to_async(services.table_create)(
            owner=lan, game="tienlen", stake=1, is_private=True, name="Nhà Lan"
        )
        await sync_to_async(services.table_sit)(table_id=private.pk, user=lan)
        await sync_to_async(services.table_sit)(
            table_id=private.pk, user=minh, invite_code=private.invite_code
        )
        public = await sync_to_async(services.table_create)(owner=lan, game="tienlen", stake=1)
        await sync_to_async(services.table_sit)(table_id=public.pk, user=minh)
        seen = await lobby.until(lambda m: m["type"] == "table" and m["table"]["id"] == public.pk)
        await lobby.settle(0.3)
        announced = {m["table"]["id"] for m in lobby.received if m["type"] == "table"}
        assert private.pk not in announced
        assert "Nhà Lan" not in str(lobby.received)
        assert seen["table"]["private"] is False
        await lobby.close()

    run(scenario)


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        ("http://127.0.0.1:8000", True),  # make run's address (DEBUG)
        ("https://127.0.0.1", True),
        ("http://localhost:9999", False),  # same host, another port
        ("https://127.0.0.1:8000", False),  # another scheme
        ("http://127.0.0.1", False),  # port 80 is not 8000
        ("https://evil.example", False),
        ("null", False),
        ("http://127.0.0.1:8000.evil.example", False),
    ],
)
def test_the_origin_must_match_scheme_host_and_port(settings, origin, accepted):
    table = services.table_create(owner=None, game="tienlen", stake=1)

    async def scenario():
        socket = Client(f"/ws/tables/{table.pk}/", origin=origin)
        assert await socket.connect() is accepted
        if accepted:
            await socket.close()

    run(scenario)


def test_configured_origins_replace_the_derived_ones(settings):
    settings.ALLOWED_ORIGINS = ["https://vipgame.example", "https://m.vipgame.example:8443"]
    table = services.table_create(owner=None, game="tienlen", stake=1)

    async def scenario():
        results = []
        for origin in (
            "https://vipgame.example",
            "https://vipgame.example:443",
            "https://m.vipgame.example:8443",
            "https://m.vipgame.example",
            "http://vipgame.example",
            "http://127.0.0.1:8000",
        ):
            socket = Client(f"/ws/tables/{table.pk}/", origin=origin)
            results.append(await socket.connect())
            if results[-1]:
                await socket.close()
        assert results == [True, True, True, False, False, False]

    run(scenario)


def test_the_socket_registry_keeps_one_redis_pool_for_every_thread_and_context():
    """The sockets call the registry through ``asyncio.to_thread``, a new
    context each time: every call uses the process's one pool (it once built
    a new one, and opened a new Redis connection, on every heartbeat)."""

    async def pools() -> list[object]:
        seen = []
        for _ in range(5):
            await asyncio.to_thread(limits.socket_count, "user", "pool-check")
            seen.append(await asyncio.to_thread(lambda: limits._client().connection_pool))
        return seen

    seen = asyncio.run(pools())
    assert all(pool is seen[0] for pool in seen)
    assert limits.socket_count("user", "pool-check") == 0
