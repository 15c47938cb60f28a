"""A table socket's opening: who it is, what it is sent first, what it misses
(bench.connects measures what it costs)."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels import auth as channels_auth
from django.test import Client as Browser

from games import publish, services
from kernel.notify import user_group as wallet_group

from .helpers import Client, browser_socket, ready_right_after_opening, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


def test_a_token_names_the_user_and_no_session_is_read(make_user, monkeypatch):
    """An app's socket is its token's user, whatever cookie comes with it, and
    a wrong token is a guest: the session is not looked up at all (one lookup
    per socket, not three). A browser's socket is its session's user."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    services.table_sit(table_id=table.pk, user=lan)
    path = f"/ws/tables/{table.pk}/"
    browser = Browser()
    browser.force_login(minh)
    looked_up = []
    get_user = channels_auth.get_user

    async def counted(scope):
        looked_up.append(scope["path"])
        return await get_user(scope)

    monkeypatch.setattr(channels_auth, "get_user", counted)

    async def scenario():
        token = await sync_to_async(token_for)(lan)
        as_lan = browser_socket(browser, path, token)
        assert await as_lan.connect()
        assert (await as_lan.recv())["seat"] == 0  # Lan's seat, not Minh
        guest = browser_socket(browser, path, "not-a-token")
        assert await guest.connect()
        state = await guest.recv()
        assert state["seat"] is None
        assert looked_up == []
        await guest.close()
        tab = browser_socket(browser, path)
        assert await tab.connect()
        await tab.recv()
        assert looked_up == [path]
        await tab.close()
        await as_lan.close()

    run(scenario)


def test_a_seated_player_is_sent_one_state_that_shows_them_connected(make_user):
    """The seat counts the socket before the state is read: its first state
    already shows the player connected, and no second state follows (the
    change it made reaches the socket too, as an older version: dropped)."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    tokens = [token_for(lan), token_for(minh)]
    path = f"/ws/tables/{table.pk}/"

    def connected(state, user):
        return next(s["connected"] for s in state["table"]["seats"] if s["user_id"] == user.pk)

    async def scenario():
        a = Client(path, tokens[0])
        assert await a.connect()
        first = await a.recv()
        assert connected(first, lan) is True
        await a.settle(quiet=0.3)
        assert [m["type"] for m in a.raw] == ["state"]
        b = Client(path, tokens[1])
        assert await b.connect()
        seen = await b.recv()
        assert (seen["type"], seen["seat"], connected(seen, minh)) == ("state", 1, True)
        await b.settle(quiet=0.3)
        assert [m["type"] for m in b.raw] == ["state"]
        told = await a.until(lambda m: connected(m, minh))  # Lan sees Minh arrive
        assert told["v"] == seen["v"]
        await a.close()
        await b.close()

    run(scenario)


def test_a_change_made_just_after_the_opening_read_reaches_the_socket(make_user, monkeypatch):
    """The socket joins its groups before it reads: a change committed right
    after the read is published to a group it is in, and reaches it at once."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    ready_right_after_opening(monkeypatch, table.pk, minh)
    token = token_for(lan)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        first = await a.recv()
        ready = await a.recv(timeout=3)  # long before a heartbeat (15 s)
        assert ready["v"] == first["v"] + 1
        assert {s["user_id"]: s["ready"] for s in ready["table"]["seats"]}[minh.pk] is True
        await a.close()

    run(scenario)


def test_a_socket_refused_at_its_opening_leaves_the_groups_it_joined(make_user, monkeypatch):
    """A table that is gone: the socket is refused, and the groups it joined
    to read safely are left (none stays subscribed in Redis)."""
    from games import consumers

    lan = make_user()
    left = []
    leave = consumers.TableSocket._leave

    async def counted(self, group):
        left.append(group)
        await leave(self, group)

    monkeypatch.setattr(consumers.TableSocket, "_leave", counted)
    token = token_for(lan)

    async def scenario():
        socket = Client("/ws/tables/999999/", token)
        assert await socket.connect()  # (accepted, told why, closed with 4404)
        assert (await socket.recv())["code"] == "table_not_found"
        assert (await socket.ws.receive_output(timeout=5))["code"] == 4404
        joined = [
            publish.chat_group(999999),
            publish.user_group(999999, lan.pk),
            wallet_group(lan.pk),
        ]
        assert sorted(left) == sorted(joined)

    run(scenario)
