"""The lobby socket follows the tournaments (issue 31 item 4: the sockets
cover the lobby): every change of one (created, a place taken or given back,
started, a player out, over, cancelled) reaches every lobby socket as its
lobby row, read after the commit; each message matches the published schema
(the ``socket_checked`` fixture)."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from tournaments import services

from .helpers import Client

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_lobby_socket_hears_a_sit_and_go_from_its_creation_to_its_start(make_user):
    lan, minh = make_user(), make_user()

    async def scenario():
        lobby = Client("/ws/lobby/")  # a guest's lobby: tournaments are public
        assert await lobby.connect()
        assert (await lobby.recv())["type"] == "lobby"

        def tournament_of(message, **expected):
            found = message["type"] == "tournament" and message["tournament"]
            return bool(found) and all(found[k] == v for k, v in expected.items())

        made = await sync_to_async(services.tournament_create)(
            game="holdem", seats=2, buy_in=50, fee=5
        )
        heard = await lobby.until(lambda m: tournament_of(m, id=made.pk))
        assert heard["tournament"] == {
            "id": made.pk, "kind": "sit_and_go", "game": "holdem", "seats": 2,
            "buy_in": 50, "fee": 5, "status": "registering", "registered": 0,
            "starts_at": None, "tables": [],
        }  # fmt: skip

        await sync_to_async(services.tournament_register)(tournament_id=made.pk, user=lan)
        await lobby.until(lambda m: tournament_of(m, id=made.pk, registered=1))
        await sync_to_async(services.tournament_unregister)(tournament_id=made.pk, user=lan)
        await lobby.until(lambda m: tournament_of(m, id=made.pk, registered=0))

        await sync_to_async(services.tournament_register)(tournament_id=made.pk, user=lan)
        await sync_to_async(services.tournament_register)(tournament_id=made.pk, user=minh)
        started = await lobby.until(lambda m: tournament_of(m, id=made.pk, status="running"))
        assert started["tournament"]["registered"] == 2
        assert len(started["tournament"]["tables"]) == 1

        await sync_to_async(services.tournament_cancel)(tournament_id=made.pk, reason="test")
        await lobby.until(lambda m: tournament_of(m, id=made.pk, status="cancelled"))
        await lobby.close()

    async_to_sync(scenario)()
