"""The documented close codes reach the client (docs/protocol.md "Close
codes"): a socket that cannot be served is accepted, told why (an ``error``),
then closed with its code, instead of a handshake refused with HTTP 403 and
no code at all."""

import json
import logging

import pytest
from asgiref.sync import async_to_sync

from games import services

from .helpers import Client, token_for

pytestmark = pytest.mark.django_db(transaction=True)


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


async def refusal(client: Client) -> tuple[list[dict], int | None]:
    """Connect (the handshake must be accepted), and read until the server
    closes: what it said, and its close code."""
    connected, code = await client.ws.connect(timeout=5)
    assert connected, f"the handshake was refused ({code}): the client never sees a close code"
    said: list[dict] = []
    while True:
        output = await client.ws.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return said, output.get("code")
        said.append(json.loads(output["text"]))


def test_a_missing_table_is_closed_with_4404(make_user):
    token = token_for(make_user())

    async def scenario():
        for client in (Client("/ws/tables/999999/", token), Client("/ws/tables/999998/")):
            said, code = await refusal(client)
            assert code == 4404
            assert [(m["type"], m["id"], m["code"]) for m in said] == [
                ("error", None, "table_not_found")
            ]

    run(scenario)


def test_a_private_table_without_its_invite_is_closed_with_4403(make_user):
    lan, stranger = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, is_private=True)
    invite, tokens = table.invite_code, (token_for(stranger), token_for(stranger))

    async def scenario():
        said, code = await refusal(Client(f"/ws/tables/{table.pk}/", tokens[0]))
        assert code == 4403
        assert [(m["type"], m["code"]) for m in said] == [("error", "private_table")]
        # With the invite, the same socket opens.
        invited = Client(f"/ws/tables/{table.pk}/?invite={invite}", tokens[1])
        assert await invited.connect()
        assert (await invited.recv())["type"] == "state"
        await invited.ws.disconnect()

    run(scenario)


def test_the_refusal_speaks_the_clients_language(make_user):
    async def scenario():
        english = Client("/ws/tables/999999/")
        english.ws.scope["headers"].append((b"accept-language", b"en"))
        said, _ = await refusal(english)
        assert said[0]["message"] == "That table does not exist."
        vietnamese, _ = await refusal(Client("/ws/tables/999999/"))
        assert vietnamese[0]["message"] != "That table does not exist."

    run(scenario)


@pytest.mark.parametrize("path", ["/ws/nope/", "/ws/tables/abc/", "/ws/lobby/extra/", "/"])
def test_an_unknown_socket_path_is_closed_with_4404_and_logs_no_error(path, caplog):
    caplog.set_level(logging.INFO)

    async def scenario():
        said, code = await refusal(Client(path))
        assert code == 4404
        assert [(m["type"], m["id"], m["code"]) for m in said] == [("error", None, "not_found")]

    run(scenario)
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_a_silent_client_is_closed_with_4410(make_user, settings):
    """A client that sends nothing, not even its ping, for WS_SILENT_CLOSE_S
    (frozen, or its network gone without a close): the server closes it."""
    settings.WS_SILENT_CLOSE_S = 3.0
    token = token_for(make_user())

    async def scenario():
        import asyncio
        import time

        # Given one socket that pings every 0.25 s from its opening, and one
        # that says nothing.
        talker, silent = Client("/ws/lobby/", token), Client("/ws/lobby/", token)

        async def pings():
            while True:
                await talker.send(type="ping", t=1)
                await asyncio.sleep(0.25)

        assert await talker.connect()
        pinging = asyncio.ensure_future(pings())
        assert await silent.connect()
        started = time.monotonic()
        closed = None
        while time.monotonic() - started < 40 and closed is None:
            output = await silent.ws.receive_output(timeout=40)
            if output["type"] == "websocket.close":
                closed = output["code"], time.monotonic() - started
        pinging.cancel()
        # Then the silent one is closed with 4410 within about the bound ...
        assert closed is not None
        assert closed[0] == 4410, closed
        # (its grace, and a loaded machine's slack: the event loop of a test
        # on a machine five agents share can stall for seconds)
        assert closed[1] < 30
        # ... and the talker is open past it.
        await talker.send(type="ping", t=2)
        while True:
            output = await talker.ws.receive_output(timeout=5)
            assert output["type"] == "websocket.send", output
            message = json.loads(output["text"])
            if message.get("type") == "pong" and message.get("t") == 2:
                break
        await talker.ws.disconnect()

    run(scenario)
