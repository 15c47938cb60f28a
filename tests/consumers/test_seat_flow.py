"""The seat flow's socket messages (docs/protocol.md): leave_cost, leave now or
after the hand, stay, auto_ready; bad input gets a stable error code in the
socket's language and changes nothing."""

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from games import services
from games.models import Seat

from ..seeds import ORDINARY
from ..services.test_tables import table_snapshot
from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def mine(state):
    return next(s for s in state["table"]["seats"] if s["position"] == state["seat"])


def test_leave_cost_leave_after_the_hand_stay_and_auto_ready(tables, dealer, make_user):
    dealer.stack(*ORDINARY, first=1)  # the bot leads: lan has played nothing
    lan = make_user()
    table = services.table_create(
        owner=lan, game="tienlen", stake=10, seat_count=2, fill_with_bots=True
    )
    services.table_sit(table_id=table.pk, user=lan)
    tables.drain()  # the bot is ready
    token = token_for(lan)

    async def scenario():
        a = Client(f"/ws/tables/{table.pk}/", token)
        assert await a.connect()
        await a.recv()
        assert mine(a.state)["auto_ready"] is True
        await a.send(type="leave_cost", id="c0")
        reply = await a.until(lambda m: m.get("id") == "c0")
        assert reply == {"type": "ack", "id": "c0", "leave_cost": None}  # between hands
        await a.send(type="ready", id="r1", client_seed="lan-1")
        await a.until(lambda m: m["type"] == "state" and m["hand"] is not None)

        await a.send(type="leave_cost", id="c1")
        reply = await a.until(lambda m: m.get("id") == "c1")
        assert reply["leave_cost"] == {
            "chips": 320, "reason": "cong", "exact": False, "detail": {"cards": 13, "thoi": 6}
        }  # fmt: skip

        before = await sync_to_async(table_snapshot)(table)
        for message, code in [
            ({"type": "leave", "when": "soon"}, "bad_leave"),
            ({"type": "auto_ready", "on": "yes"}, "bad_switch"),
            ({"type": "auto_ready"}, "bad_switch"),
        ]:
            await a.send(id="x", **message)
            error = await a.until(lambda m: m["type"] == "error")
            assert (error["id"], error["code"]) == ("x", code)
            assert error["message"]  # in the socket's language (Vietnamese by default)
        assert await sync_to_async(table_snapshot)(table) == before

        await a.send(type="auto_ready", id="o1", on=False)
        await a.until(lambda m: m.get("id") == "o1")
        await a.until(lambda m: m["type"] == "state" and not mine(m)["auto_ready"])
        await a.send(type="leave", id="l1", when="after_hand")
        await a.until(lambda m: m.get("id") == "l1" and m["type"] == "ack")
        await a.until(lambda m: m["type"] == "state" and mine(m)["leave_after_hand"])
        await a.send(type="stay", id="s1")
        await a.until(lambda m: m.get("id") == "s1" and m["type"] == "ack")
        state = await a.until(lambda m: m["type"] == "state" and not mine(m)["leave_after_hand"])
        assert mine(state)["connected"] is True  # leaving after the hand keeps the socket
        await a.close()

    async_to_sync(scenario)()
    seat = Seat.objects.get(table=table, user=lan)
    assert (seat.auto_ready, seat.leave_after_hand, seat.leaving) == (False, False, False)
