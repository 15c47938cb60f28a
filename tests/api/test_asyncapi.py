"""The sockets' AsyncAPI 3.0 document (``/api/asyncapi.json`` and ``.yaml``):
valid against the official AsyncAPI 3.0.0 JSON Schema (vendored in
tests/asyncapi/), its schemas the OpenAPI document's own components, every
message of both sockets, the ``auth`` first message, the close codes and the
limits."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from django.conf import settings
from django.test import RequestFactory
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator

from games import consumers, protocol, ws_auth, ws_close
from games.api.asyncapi import asyncapi_schema, document

from .. import wire

ROOT = Path(__file__).resolve().parents[2]
OFFICIAL = ROOT / "tests" / "asyncapi" / "asyncapi-3.0.0.schema.json"

pytestmark = pytest.mark.django_db


@cache
def doc() -> dict[str, Any]:
    return document(RequestFactory().get("/api/asyncapi.json", HTTP_HOST="127.0.0.1:8000"))


@cache
def openapi() -> dict[str, Any]:
    """The OpenAPI document as the AsyncAPI one reads it (in English)."""
    with translation.override("en"):
        schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


@cache
def official() -> jsonschema.Draft7Validator:
    schema = json.loads(OFFICIAL.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def problems(document: dict[str, Any]) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
        for e in official().iter_errors(document)
    ]


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def resolve(document: dict[str, Any], pointer: str) -> Any:
    assert pointer.startswith("#/"), pointer
    node: Any = document
    for part in pointer[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    if isinstance(node, dict) and list(node) == ["$ref"]:  # (a reference to a reference)
        return resolve(document, node["$ref"])
    return node


def test_the_served_document_is_valid_asyncapi_3_in_json_and_yaml(client):
    as_json = client.get("/api/asyncapi.json")
    assert as_json.status_code == 200
    assert as_json["Content-Type"] == "application/json"
    served = as_json.json()
    assert served["asyncapi"] == "3.0.0"
    assert problems(served) == []
    as_yaml = client.get("/api/asyncapi.yaml")
    assert as_yaml.status_code == 200
    assert as_yaml["Content-Type"].startswith("application/yaml")
    assert yaml.safe_load(as_yaml.content) == served
    # the same whatever the language asked for
    english = client.get("/api/asyncapi.json", HTTP_ACCEPT_LANGUAGE="en").json()
    vietnamese = client.get("/api/asyncapi.json", HTTP_ACCEPT_LANGUAGE="vi").json()
    assert english == vietnamese == served


def test_the_official_schema_finds_a_broken_document():
    broken = json.loads(json.dumps(doc()))
    broken["operations"]["tableSend"]["action"] = "publish"  # (AsyncAPI 2's word)
    broken["components"]["schemas"]["WsSitMessage"]["discriminator"] = {"propertyName": "x"}
    assert len(problems(broken)) == 2


def test_every_ref_resolves_inside_the_document():
    document = doc()
    found = set(refs(document))
    assert "#/components/schemas/TableStateOut" in found
    for pointer in found:
        resolve(document, pointer)


def test_its_schemas_are_the_openapi_components():
    components = openapi()["components"]["schemas"]
    schemas = doc()["components"]["schemas"]
    assert set(schemas) == set(components)
    for name, schema in components.items():
        assert schemas[name] == asyncapi_schema(schema), name
    # (an OpenAPI 3.0 schema turned into JSON Schema: no OpenAPI-only keyword left)
    text = json.dumps(schemas)
    assert '"nullable"' not in text
    assert '"propertyName"' not in text


def test_nullable_and_discriminators_become_json_schema():
    assert asyncapi_schema({"type": "integer", "nullable": True}) == {"type": ["integer", "null"]}
    for enum in (["a"], ["a", None]):
        assert asyncapi_schema({"type": "string", "enum": enum, "nullable": True}) == {
            "type": ["string", "null"],
            "enum": ["a", None],
        }
    assert asyncapi_schema(
        {"allOf": [{"$ref": "#/components/schemas/X"}], "nullable": True, "description": "d"}
    ) == {"oneOf": [{"$ref": "#/components/schemas/X"}, {"type": "null"}], "description": "d"}
    assert asyncapi_schema(
        {"oneOf": [], "discriminator": {"propertyName": "type", "mapping": {}}, "example": 1}
    ) == {"oneOf": [], "discriminator": "type", "examples": [1]}
    # (a property may be named like a keyword)
    assert asyncapi_schema({"properties": {"nullable": {"type": "boolean"}}}) == {
        "properties": {"nullable": {"type": "boolean"}}
    }


def type_of(message: dict[str, Any]) -> str:
    """The ``type`` a message's payload fixes."""
    document = doc()
    schema = resolve(document, message["payload"]["$ref"])["properties"]["type"]
    if "$ref" in schema:
        schema = resolve(document, schema["$ref"])
    (kind,) = schema["enum"]
    return str(kind)


def message_types(channel: str) -> set[str]:
    document = doc()
    found = set()
    for ref in document["channels"][channel]["messages"].values():
        message = resolve(document, ref["$ref"])
        assert message["name"] == type_of(message)
        found.add(message["name"])
    return found


def discriminated(component: str) -> set[str]:
    return set(wire.openapi()["components"]["schemas"][component]["discriminator"]["mapping"])


def test_every_message_of_both_sockets_is_in_its_channel():
    client, server = discriminated("WsClientMessage"), discriminated("WsServerMessage")
    assert "report" in client
    assert "auth" in client
    assert message_types("table") == client | server - {"lobby", "table"}
    assert message_types("lobby") == {"auth", "ping", "lobby", "table", "event", "error", "pong"}
    # and the operations send what the server says and receive what the client says
    document = doc()
    for name, operation in document["operations"].items():
        channel = operation["channel"]["$ref"].removeprefix("#/channels/")
        assert name.startswith(channel)
        kinds = {type_of(resolve(document, m["$ref"])) for m in operation["messages"]}
        assert kinds <= (server if operation["action"] == "send" else client)


def test_auth_is_the_first_message_and_the_handshake_takes_a_bearer_token():
    document = doc()
    auth = document["components"]["schemas"]["WsAuthMessage"]
    assert set(auth["required"]) == {"type", "token"}
    server = document["servers"]["site"]
    assert server["protocol"] == "ws"
    assert server["host"] == "127.0.0.1:8000"
    schemes = document["components"]["securitySchemes"]
    assert schemes["bearer"] == {**schemes["bearer"], "type": "http", "scheme": "bearer"}
    table = document["channels"]["table"]
    assert table["address"] == "/ws/tables/{tableId}/"
    assert set(table["bindings"]["ws"]["query"]["properties"]) == {"protocol", "invite"}
    assert "Authorization" in table["bindings"]["ws"]["headers"]["properties"]


def codes_used() -> set[int]:
    """Every close code the socket code sends (its constants)."""
    found = {
        consumers.POLICY_VIOLATION,
        consumers.ACCOUNT_BANNED,
        consumers.LOGGED_OUT,
        consumers.TOO_MANY_SOCKETS,
        consumers.PRIVATE,
        consumers.NOT_FOUND,
        consumers.UNSUPPORTED,
        consumers.SERVICE_RESTART,
        ws_close.TOO_SLOW,
        ws_auth.TRY_AGAIN_LATER,
        *ws_close.PROTOCOL_CLOSE_CODES,
    }
    source = (ROOT / "games" / "consumers.py").read_text(encoding="utf-8")
    assert not re.findall(r"close\(code=\d", source)  # (every code by its name)
    return found | {1009}  # (Daphne's, for a frame over WS_MAX_FRAME_BYTES)


def test_the_close_codes_are_all_there_in_the_document_and_the_protocol_page():
    listed = set(protocol.CLOSE_CODES)
    assert codes_used() <= listed
    for channel in doc()["channels"].values():
        assert [c["code"] for c in channel["x-close-codes"]] == sorted(listed)
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    table = page.split("### Close codes", 1)[1].split("\n\n", 2)[1]
    documented = {int(c) for c in re.findall(r"^\| (\d{4}) \|", table, re.MULTILINE)}
    assert documented == listed


def test_the_limits_are_the_servers():
    limits = doc()["channels"]["table"]["x-limits"]
    assert limits["maxMessageBytes"] == consumers.MAX_MESSAGE_BYTES == 8 * 1024
    assert limits["socketsPerUser"] == settings.WS_MAX_SOCKETS_PER_USER
    assert str(settings.WS_RATE_LIMIT) in limits["messages"]
    assert "8 KB" in doc()["info"]["description"]


def test_the_api_docs_and_the_protocol_page_link_it(client):
    described = wire.openapi()["info"]["description"]
    assert "/api/asyncapi.json" in described
    page = client.get("/api/protocol.md").content.decode()
    assert "/api/asyncapi.json" in page
    assert "/api/asyncapi.yaml" in page
