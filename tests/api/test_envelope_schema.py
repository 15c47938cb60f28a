"""The published schema of the state envelope: its per-game components and
examples, checked against the schema itself (strict: no field it does not name)."""

import pytest

from games.api.schema import state_example
from games.plugins import PLUGINS

from .. import wire
from ..deltas import delta_for, seat_delta

GAMES = {game: plugin.schema_name for game, plugin in PLUGINS.items()}


@pytest.mark.parametrize("game", list(GAMES))
def test_each_games_example_state_matches_the_schema(game):
    example = state_example(game)

    wire.check("WsServerMessage", example)
    wire.check("TableStateOut", example)
    assert example["hand"]["view"]["game"] == game


@pytest.mark.parametrize("title", list(GAMES.values()))
def test_each_games_view_result_and_summary_examples_match_their_components(title):
    schemas = wire.openapi()["components"]["schemas"]

    for part in ("View", "Result", "Summary"):
        example = schemas[f"{title}{part}"]["example"]
        wire.check(f"{title}{part}", example)
    wire.check("Result", schemas[f"{title}Result"]["example"])
    wire.check("View", schemas[f"{title}View"]["example"])


def test_a_view_of_another_game_is_refused_by_the_games_component():
    schemas = wire.openapi()["components"]["schemas"]

    assert list(wire.errors("HoldemView", schemas["TienLenView"]["example"]))
    assert list(wire.errors("MauBinhResult", schemas["HoldemResult"]["example"]))


def test_the_table_state_documents_an_example_of_each_game():
    operation = wire.openapi()["paths"]["/api/v1/tables/{table_id}"]["get"]
    examples = operation["responses"]["200"]["content"]["application/json"]["examples"]

    assert {e["value"]["table"]["game"] for e in examples.values()} == set(GAMES)
    for example in examples.values():
        wire.check("TableStateOut", example["value"])


@pytest.mark.parametrize(
    ("message", "component"),
    [
        ({"type": "act", "id": "m1", "v": 3, "action": {"type": "pass"}}, "WsClientMessage"),
        ({"type": "report", "id": "r1", "message_id": 7, "category": "spam"}, "WsClientMessage"),
        ({"type": "report", "id": "r2", "message_id": 7, "note": "rude"}, "WsClientMessage"),
        ({"type": "play", "cards": ["3s"]}, "Action"),
        ({"type": "raise", "to": 40}, "Action"),
        ({"type": "pong", "t": 1, "server_time": 2}, "WsServerMessage"),
    ],
)
def test_messages_of_the_protocol_match(message, component):
    wire.check(component, message)


@pytest.mark.parametrize(
    ("message", "component"),
    [
        ({"type": "raise"}, "Action"),
        ({"type": "bet", "to": 4}, "Action"),
        ({"type": "pong", "t": 1, "server_time": 2, "extra": 1}, "WsServerMessage"),
        ({"type": "state", "v": 1}, "WsServerMessage"),
        # an act's action is a move of a game (the REST ``Action``), not any object
        ({"type": "act", "id": "m1", "action": {"type": "bet", "to": 4}}, "WsClientMessage"),
        ({"type": "act", "id": "m1", "action": {"type": "raise"}}, "WsClientMessage"),
        ({"type": "report", "id": "r1", "message_id": 7, "category": "rude"}, "WsClientMessage"),
        ({"type": "report", "id": "r1"}, "WsClientMessage"),
    ],
)
def test_messages_the_schema_does_not_describe_are_refused(message, component):
    assert list(wire.errors(component, message))


def test_a_delta_matches_the_schema_with_the_states_clock_and_events():
    schemas = wire.openapi()["components"]["schemas"]
    delta = delta_for({"log": [1], "pot": 2}, {"log": [1, 3]}, base=8)
    ticking = delta_for({}, {"pot": 1}, base=7)

    wire.check("WsServerMessage", delta)
    wire.check("WsServerMessage", ticking)
    assert schemas["WsDeltaMessage"]["properties"]["clock"]["allOf"] == [
        {"$ref": "#/components/schemas/ClockInfo"}
    ]
    assert schemas["WsDeltaMessage"]["properties"]["events"]["items"] == {
        "$ref": "#/components/schemas/Event"
    }
    assert list(wire.errors("WsServerMessage", {**ticking, "clock": {"kind": "turn"}}))
    assert list(wire.errors("WsServerMessage", {**delta, "events": [{"type": "played"}]}))
    # an event is one of a game's, whole and closed (no field it does not name)
    (played,) = delta["events"]
    for wrong in (
        {**played, "combination": "flush"},  # not a Tiến Lên combination
        {**played, "extra": 1},
        {k: v for k, v in played.items() if k != "chop"},
        {**played, "type": "play"},
    ):
        assert list(wire.errors("WsServerMessage", {**delta, "events": [wrong]})), wrong
    assert list(wire.errors("WsServerMessage", {**delta, "seat": 0}))


def test_a_seat_delta_matches_the_schema_with_the_states_seats():
    schemas = wire.openapi()["components"]["schemas"]
    seats = state_example("tienlen")["table"]["seats"]
    delta = {**seat_delta(), "table": {"seats": seats}}

    wire.check("WsServerMessage", delta)
    assert "hand" not in schemas["WsDeltaMessage"]["required"]
    assert schemas["WsDeltaTable"]["properties"]["seats"]["items"] == {
        "$ref": "#/components/schemas/SeatState"
    }
    assert list(wire.errors("WsServerMessage", {**delta, "table": {"seats": [{"ready": 1}]}}))


@pytest.mark.django_db
def test_the_api_docs_link_the_protocol_which_describes_the_envelope(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    protocol = client.get("/api/protocol.md")

    assert "(/api/protocol.md)" in schema["info"]["description"]
    assert protocol.status_code == 200
    assert protocol["Content-Type"] == "text/markdown; charset=utf-8"
    text = protocol.content.decode()
    assert "## The state envelope" in text
    assert '"payer", "payee", "amount", "reason", "detail"' in text


def test_a_deltas_result_is_the_one_result():
    schemas = wire.openapi()["components"]["schemas"]
    example = schemas["TienLenResult"]["example"]
    end = delta_for({"pot": 1}, {"pot": 2}, base=8)
    end["hand"] = {**end["hand"], "finished": True, "result": example, "server_seed": "ab"}

    wire.check("WsServerMessage", end)
    assert list(wire.errors("WsServerMessage", {**end, "hand": {**end["hand"], "result": {}}}))
    broken = {**example, "net": "x"}
    assert list(wire.errors("WsServerMessage", {**end, "hand": {**end["hand"], "result": broken}}))
