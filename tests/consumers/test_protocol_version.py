"""The protocol's version on the socket (docs/protocol.md "Versions"): every
``state`` and the lobby's first message say which version they follow; a
client may ask for one (``?protocol=1``); one the server does not speak is
refused with 4426, a deprecated one is told its sunset."""

import json

import pytest
from asgiref.sync import async_to_sync

from games import protocol, services

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


async def until_closed(client: Client) -> tuple[list[dict], int | None]:
    connected, code = await client.ws.connect(timeout=5)
    assert connected, code
    said: list[dict] = []
    while True:
        output = await client.ws.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return said, output.get("code")
        said.append(json.loads(output["text"]))


def test_states_and_the_lobby_say_their_protocol_version(make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    token = token_for(lan)

    async def scenario():
        for query in ("", "?protocol=1"):
            socket = Client(f"/ws/tables/{table.pk}/{query}", token)
            assert await socket.connect()
            assert (await socket.recv())["protocol"] == protocol.VERSION == 1
            await socket.ws.disconnect()
            lobby = Client(f"/ws/lobby/{query}")
            assert await lobby.connect()
            first = await lobby.recv()
            assert (first["type"], first["protocol"]) == ("lobby", 1)
            await lobby.ws.disconnect()

    run(scenario)


def test_the_rest_state_says_it_too(make_user, client):
    table = services.table_create(owner=make_user(), game="maubinh", stake=1)
    assert client.get(f"/api/v1/tables/{table.pk}").json()["protocol"] == protocol.VERSION


@pytest.mark.parametrize("asked", ["2", "0", "one", ""])
def test_a_version_the_server_does_not_speak_is_closed_with_4426(make_user, asked):
    table = services.table_create(owner=make_user(), game="holdem", stake=10)

    async def scenario():
        for path in (f"/ws/tables/{table.pk}/", "/ws/lobby/"):
            said, code = await until_closed(Client(f"{path}?protocol={asked}"))
            assert code == 4426
            assert [(m["type"], m["code"]) for m in said] == [("error", "unsupported_protocol")]
            assert said[0]["details"] == {"supported": [1], "current": 1}

    run(scenario)


def test_a_deprecated_version_is_told_its_sunset(make_user, monkeypatch):
    monkeypatch.setattr(protocol, "DEPRECATED", {1: "2031-01-31"})
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)

    async def scenario():
        for path in (f"/ws/tables/{table.pk}/?protocol=1", "/ws/lobby/?protocol=1"):
            socket = Client(path)
            assert await socket.connect()
            first, second = await socket.recv(), await socket.recv()
            assert first["type"] in ("state", "lobby")
            assert second["type"] == "event"
            assert (second["event"], second["protocol"], second["sunset"]) == (
                "deprecated",
                1,
                "2031-01-31",
            )
            assert second["message"]
            await socket.ws.disconnect()

    run(scenario)
