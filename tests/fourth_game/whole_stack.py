"""High card, a game only the tests know, through the whole stack: the lobby
lists it, a table is opened through the REST API, a person sits, adds a bot
and plays over the table socket, the clock runs out on them once, the bot
plays, the hands are settled, and the history, the replay and the export
answer for them. Run by ``tests/test_fourth_game.py`` under
``tests.settings_fourth`` (the only change the game needs); not collected
otherwise (its name is not ``test_*``)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.urls import reverse

from games.models import Hand, Table
from games.plugins import PLUGINS, engine_for
from games.rules import registry

from ..api.helpers import client_for, error, url
from ..consumers.helpers import Client, token_for
from ..tables import assert_money_consistent
from ..wallet.helpers import wallet_of

pytestmark = pytest.mark.django_db(transaction=True)

GAME = "highcard"
STAKE = 5


def test_the_fourth_game_is_registered_from_the_test_settings_alone():
    assert GAME in PLUGINS
    assert GAME not in {registry.get(g).name for g in PLUGINS if g != GAME}
    assert registry.get(GAME).package == "tests.fourth_game"
    assert engine_for(GAME) is PLUGINS[GAME].engine


def _hand_state(table_id: int) -> tuple[Table, Hand | None, list[int]]:
    """The table, its current hand, and the seat positions the hand waits for."""
    table = Table.objects.get(pk=table_id)
    if table.current_hand_id is None:
        return table, None, []
    hand = Hand.objects.get(pk=table.current_hand_id)
    if hand.ended_at is not None:
        return table, hand, []
    engine = engine_for(GAME)
    actors = engine.status(engine.loads(hand.state)).actors
    return table, hand, [hand.players[i]["position"] for i in actors]


def test_high_card_from_the_lobby_to_the_replay(tables, make_user, client):
    lan = make_user()
    start = wallet_of(lan).balance
    client.force_login(lan)
    api = client_for(lan)

    # the lobby offers the game
    lobby = client.get(reverse("lobby"))
    assert lobby.status_code == 200
    assert "High card" in lobby.content.decode()

    # a table through the REST API; the lobby lists it
    created = api.post(url("tables"), {"game": GAME, "stake": STAKE}, format="json")
    assert created.status_code == 201, created.json()
    table_id = created.json()["id"]
    assert created.json()["game"] == GAME
    listed = api.get(url("tables"), {"game": GAME}).json()
    assert [t["id"] for t in listed["results"]] == [table_id]
    # its page says it has no browser screens (no module to load)
    page = client.get(reverse("table", args=[table_id])).content.decode()
    assert "data-no-screen" in page
    assert "data-game-module" not in page

    token = token_for(lan)
    played: list[int] = []
    timed_out: list[int] = []

    async def scenario() -> None:
        watcher = Client("/ws/lobby/")
        assert await watcher.connect()
        first = await watcher.recv()
        assert first["type"] == "lobby"
        assert [(t["id"], t["game"]) for t in first["tables"]] == [(table_id, GAME)]
        await watcher.close()

        socket = Client(f"/ws/tables/{table_id}/", token)
        assert await socket.connect()
        await socket.send(type="sit", id="sit")
        assert (await socket.until(lambda m: m["type"] in ("ack", "error")))["type"] == "ack"
        await socket.send(type="add_bot", id="bot")
        assert (await socket.until(lambda m: m["type"] in ("ack", "error")))["type"] == "ack"
        await sync_to_async(tables.drain)()  # the bot readies
        for number in (1, 2):
            await socket.send(type="ready", id=f"ready{number}", client_seed=f"lan-{number}")
            # (its answer first: under load the consumer took it after the
            # loop's first look, which then let the wrong clock run out)
            assert (await socket.until(lambda m: m["type"] in ("ack", "error")))["type"] == "ack"
            for step in range(50):
                await sync_to_async(tables.drain)()
                await socket.settle()
                table, hand, waiting = await sync_to_async(_hand_state)(table_id)
                if hand is not None and hand.number == number and hand.ended_at is not None:
                    break
                mine = socket.state.get("seat")
                if mine in waiting and number == 2:
                    # the person shows their card over the socket
                    if socket.state["v"] < table.hand_version:
                        await socket.until(
                            lambda m, v=table.hand_version: m["type"] == "state" and m["v"] >= v
                        )
                    view = socket.state["hand"]["view"]
                    assert view["card"] is not None
                    assert view["shown"][1 - view["you"]] is None  # the other card: hidden
                    await socket.send(
                        type="act", id=f"a{step}", v=socket.state["v"], action={"type": "show"}
                    )
                    reply = await socket.until(lambda m: m["type"] in ("ack", "error"))
                    assert reply["type"] == "ack", reply
                    played.append(number)
                else:
                    # hand 1: the person lets the turn clock run out
                    if mine in waiting:
                        timed_out.append(number)
                    await sync_to_async(tables.fire)(table_id)
            else:
                raise AssertionError(f"hand {number} did not end")
            await sync_to_async(tables.drain)()
            await socket.settle()
            final = socket.state["hand"]
            assert final["finished"]
            assert final["settled"]
            assert sum(final["result"]["chips"]) == 0
            assert final["view"]["shown"].count(None) == 0  # every card shown at the end
            await sync_to_async(tables.fire)(table_id)  # the summary pause ends
        await socket.close()

    async_to_sync(scenario)()
    assert timed_out == [1]
    assert played == [2]

    # settlement: the wallet moved by the hands' results, the books balance
    hands = list(Hand.objects.filter(table_id=table_id).order_by("number"))
    assert [h.number for h in hands] == [1, 2]
    assert all(h.settled for h in hands)
    mine = [
        h.result["chips"][[p["user_id"] for p in h.players].index(lan.pk)]
        for h in hands
        if h.result is not None
    ]
    assert len(mine) == 2
    assert all(abs(c) in (0, STAKE) for c in mine)
    assert wallet_of(lan).balance == start + sum(mine)
    assert_money_consistent()

    # the history (API and page), the replay (API and page), no export offered
    history = api.get(url("hands"), {"game": GAME}).json()
    nets = {row["id"]: row["net"] for row in history["results"]}
    assert nets == {h.pk: chips for h, chips in zip(hands, mine, strict=True)}
    assert {row["game"] for row in history["results"]} == {GAME}
    assert "High card" in client.get(reverse("history")).content.decode()
    for hand in hands:
        replay = api.get(url(f"hands/{hand.pk}/replay"))
        assert replay.status_code == 200, replay.json()
        steps = api.get(url(f"hands/{hand.pk}/replay/steps"))
        assert steps.status_code == 200, steps.json()
        last = steps.json()["steps"][-1]
        assert last["view"]["finished"]
        page = client.get(reverse("replay", args=[hand.pk]))
        assert page.status_code == 200
        assert "data-no-screen" in page.content.decode()
        assert error(api.get(url(f"hands/{hand.pk}/phh"))) == (409, "phh_unavailable")


def test_high_card_has_its_rules_page_and_api_without_a_shared_change(client):
    """No template of its own: the rules page lists its ruleset's numbers, and
    the index and the API offer it (issue 32 item 5)."""
    assert f'href="/rules/{GAME}/vipgame/"' in client.get(reverse("rules")).content.decode()
    page = client.get(reverse("rules-preset", args=[GAME, "vipgame"]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-rules-game="{GAME}"' in html
    assert 'data-number="preset"' in html
    body = client.get(f"/api/v1/rules/{GAME}/vipgame").json()
    assert body["numbers"] == {"preset": "vipgame"}
    assert body["sections"] == []
