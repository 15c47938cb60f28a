"""The ``seed`` message (docs/protocol.md, docs/fairness.md) over a real socket:
a seed bound to the next commitment deals the hand; a stale one is refused and
changes nothing; the deal waits a moment for a connected player's seed."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games import services
from games.models import Hand, Seat, Table

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def table_row(table_id):
    table = Table.objects.get(pk=table_id)
    hand = None if table.current_hand_id is None else Hand.objects.get(pk=table.current_hand_id)
    seats = list(Seat.objects.filter(table=table).order_by("position").values_list("client_seed"))
    return table, hand, seats


def test_seeds_over_the_socket(tables, make_user, settings):
    settings.SEED_GRACE_MS = 1500
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    tokens = token_for(lan), token_for(minh)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", tokens[0])
        b = Client(f"/ws/tables/{table.pk}/", tokens[1])
        assert await a.connect()
        assert await b.connect()
        await a.send(type="sit", id="s1")
        await a.until(lambda m: m["type"] == "ack" and m["id"] == "s1")
        await b.send(type="sit", id="s2")
        await b.until(lambda m: m["type"] == "ack" and m["id"] == "s2")
        state = await a.until(lambda m: m["type"] == "state" and len(m["table"]["seats"]) == 2)
        commitment = state["table"]["next_commitment"]

        # A seed for a commitment that is not the next hand's: refused, nothing changes.
        before = await sync_to_async(table_row)(table.pk)
        await a.send(type="seed", id="x1", client_seed="early", commitment="ab" * 32)
        refused = await a.until(lambda m: m["type"] in ("ack", "error") and m["id"] == "x1")
        assert refused["code"] == "stale_commitment"
        assert refused["details"] == {"commitment": commitment}
        await a.send(type="seed", id="x2", client_seed="", commitment=commitment)
        empty = await a.until(lambda m: m["type"] in ("ack", "error") and m["id"] == "x2")
        assert empty["code"] == "bad_client_seed"
        after = await sync_to_async(table_row)(table.pk)
        assert (after[0].version, after[2]) == (before[0].version, before[2])

        await a.send(type="seed", id="k1", client_seed="lan-seed", commitment=commitment)
        ack = await a.until(lambda m: m["type"] in ("ack", "error") and m["id"] == "k1")
        assert ack == {"type": "ack", "id": "k1", "commitment": commitment}
        # Minh is ready first, his seed not yet sent: the deal waits for it...
        await b.send(type="ready", id="r2")
        await a.send(type="ready", id="r1")
        waiting = await a.until(
            lambda m: m["type"] == "state" and (m["clock"] or {}).get("kind") == "seeds"
        )
        assert waiting["hand"] is None
        # ... and deals the moment it arrives.
        await b.send(type="seed", id="k2", client_seed="minh-seed", commitment=commitment)
        dealt = await a.until(lambda m: m["type"] == "state" and m["hand"] is not None)
        assert dealt["hand"]["commitment"] == commitment
        assert dealt["hand"]["client_seeds"] == ["lan-seed", "minh-seed"]
        assert dealt["hand"]["seed_sources"] == ["player", "player"]
        # (not before the hand ends; a tới trắng ends it at the deal, and the
        # real deck here may be one: then it is shown at once)
        assert dealt["hand"]["server_seed"] is None or dealt["hand"]["finished"]
        assert dealt["table"]["next_commitment"] != commitment
        # The old commitment is over: a seed for it is refused.
        await a.send(type="seed", id="x3", client_seed="late", commitment=commitment)
        late = await a.until(lambda m: m["type"] in ("ack", "error") and m["id"] == "x3")
        assert late["code"] == "stale_commitment"
        await a.close()
        await b.close()

    async_to_sync(scenario)()
