"""Your game found again on the sockets (issue 30, item 3): the lobby socket
lists a private table, and follows it, for its owner and its invited players
only; its players carry their user ids; an owner's close reaches every socket
at the table as a force-close does. (The API's side: tests/api/test_my_tables.py.)"""

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games import services
from games.models import Invitation

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


def ids(message):
    return [t["id"] for t in message["tables"]]


def test_the_lobby_socket_lists_a_private_table_to_its_owner_and_invited_players_only(
    make_user,
):
    lan, minh, stranger = make_user(), make_user(), make_user()
    private = services.table_create(
        owner=lan, game="tienlen", stake=1, is_private=True, name="Nhà Lan"
    )
    public = services.table_create(owner=stranger, game="tienlen", stake=1)
    tokens = {u.pk: token_for(u) for u in (lan, minh, stranger)}

    async def scenario():
        owner = Client("/ws/lobby/", tokens[lan.pk])
        invitee = Client("/ws/lobby/", tokens[minh.pk])
        others = [Client("/ws/lobby/", tokens[stranger.pk]), Client("/ws/lobby/")]
        firsts = []
        for socket in (owner, invitee, *others):
            assert await socket.connect()
            firsts.append(await socket.recv())
        assert [ids(m) for m in firsts] == [
            [private.pk, public.pk],  # by game, stake, id
            [public.pk],
            [public.pk],
            [public.pk],
        ]
        assert firsts[0]["tables"][0]["private"] is True

        # Minh opens the table with its invite link: invited, his lobby hears of it.
        table = Client(f"/ws/tables/{private.pk}/?invite={private.invite_code}", tokens[minh.pk])
        assert await table.connect()
        await table.until(lambda m: m["type"] == "state")
        heard = await invitee.until(lambda m: m["type"] == "table")
        assert (heard["table"]["id"], heard["table"]["private"]) == (private.pk, True)
        assert await sync_to_async(Invitation.objects.filter(user=minh, table=private).exists)()

        # A seat taken there: its owner's and its invited player's lobbies follow it.
        await sync_to_async(services.table_sit)(table_id=private.pk, user=lan)
        for socket in (owner, invitee):
            update = await socket.until(
                lambda m: m["type"] == "table" and m["table"]["id"] == private.pk
            )
            assert update["table"]["players"][0]["user_id"] == lan.pk
            assert update["table"]["taken"] == 1

        # Nobody else hears a word of it (a public table's change does reach them).
        await sync_to_async(services.table_sit)(table_id=public.pk, user=stranger)
        for socket in others:
            seen = await socket.until(lambda m: m["type"] == "table")
            assert seen["table"]["id"] == public.pk
            assert seen["table"]["players"][0]["user_id"] == stranger.pk
            await socket.settle(0.3)
            assert private.pk not in {m["table"]["id"] for m in socket.received if "table" in m}
            assert "Nhà Lan" not in str(socket.received)
            assert private.invite_code not in str(socket.received)
        for socket in (owner, invitee):
            assert private.invite_code not in str(socket.received)

        # Closed: its owner's and invitee's lobbies see it go.
        await sync_to_async(services.table_close_own)(table_id=private.pk, user=lan)
        for socket in (owner, invitee):
            gone = await socket.until(
                lambda m: m["type"] == "table" and m["table"]["status"] == "closed"
            )
            assert gone["table"]["id"] == private.pk
        for socket in (owner, invitee, *others, table):
            await socket.close()

    run(scenario)


def test_an_app_lobby_socket_gets_its_private_tables_after_auth(make_user):
    lan = make_user()
    private = services.table_create(owner=lan, game="holdem", stake=1, is_private=True)
    public = services.table_create(owner=lan, game="holdem", stake=1)
    token = token_for(lan)

    async def scenario():
        app = Client("/ws/lobby/")  # a token in the first message, not the handshake
        assert await app.connect()
        first = await app.recv()
        assert ids(first) == [public.pk]
        await app.send(type="auth", token=token)
        authenticated = await app.recv()
        assert authenticated == {"type": "event", "event": "authenticated", "user_id": lan.pk}
        again = await app.recv()
        assert again["type"] == "lobby"
        assert ids(again) == [private.pk, public.pk]  # by game, stake, id
        await sync_to_async(services.table_sit)(table_id=private.pk, user=lan, buy_in=100)
        update = await app.until(lambda m: m["type"] == "table")
        assert update["table"]["id"] == private.pk
        assert update["table"]["players"] == [
            {
                "position": 0,
                "user_id": lan.pk,
                "name": lan.shown_name,
                "avatar": lan.avatar_key,
                "bot": False,
            }
        ]
        await app.close()

    run(scenario)


def test_an_owner_closing_sends_every_socket_at_the_table_the_closed_state(make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="holdem", stake=1, seat_count=2)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user, buy_in=100)
        services.table_ready(table_id=table.pk, user=user)
    tokens = token_for(lan), token_for(minh)

    async def scenario():
        sockets = [Client(f"/ws/tables/{table.pk}/", t) for t in tokens]
        watcher = Client(f"/ws/tables/{table.pk}/")
        for socket in [*sockets, watcher]:
            assert await socket.connect()
            await socket.until(lambda m: m["type"] == "state")
        assert [s.state["seat"] for s in [*sockets, watcher]] == [0, 1, None]
        assert sockets[0].state["hand"]["finished"] is False

        await sync_to_async(services.table_close_own)(table_id=table.pk, user=lan)

        for socket in [*sockets, watcher]:
            final = await socket.until(
                lambda m: m["type"] == "state" and m["table"]["status"] == "closed"
            )
            assert final["table"]["closed_reason"] == "Chủ bàn đã đóng bàn."
            assert (final["table"]["seats"], final["seat"]) == ([], None)
            assert final["hand"]["result"]["voided"] is True
            assert final["hand"]["result"]["chips"] == [0, 0]
            await socket.close()

    run(scenario)
