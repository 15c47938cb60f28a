"""One client intent is one service, one transaction, one version: a socket
that sits is seated and counted present in the same change; one that leaves
now stops counting at the seat in the leave's change."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games import services
from games.models import Seat, Table

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def _version(table_id: int) -> int:
    return Table.objects.get(pk=table_id).version


def test_a_socket_sits_present_in_one_version(make_user):
    # given a signed-in spectator's socket at a table
    owner, lan = make_user(), make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1, seat_count=4)
    token = token_for(lan)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        first = await a.recv()
        assert first["seat"] is None
        before = await sync_to_async(_version)(table.pk)
        # when it sits
        await a.send(type="sit", id="s1")
        await a.until(lambda m: m["type"] == "ack" and m["id"] == "s1")
        seated = await a.until(lambda m: m["type"] == "state" and m["seat"] is not None)
        # then one version: seated and connected at once
        assert seated["v"] == before + 1
        assert seated["table"]["seats"][0]["connected"] is True
        assert await sync_to_async(_version)(table.pk) == before + 1
        await a.close()

    async_to_sync(scenario)()
    assert Seat.objects.get(table=table, user=lan).connections == 0  # (the socket closed)
