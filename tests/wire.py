"""Every message the server sends, checked against the published schema
(Zulip's ``test_events`` pattern): the OpenAPI components of ``/api/schema/``
turned into one JSON Schema, strict (a field the schema does not name is an
error, so the schema cannot fall behind the code)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

OPENAPI_REF = "#/components/schemas/"


def json_schema(node: Any, *, strict: bool) -> Any:
    """OpenAPI 3.0 to JSON Schema: ``nullable`` becomes ``null`` allowed, refs
    point at ``$defs``, and (strict) objects allow only the properties they name."""
    if isinstance(node, list):
        return [json_schema(n, strict=strict) for n in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: json_schema(v, strict=strict)
        for k, v in node.items()
        if k not in ("nullable", "discriminator", "example", "examples", "readOnly", "writeOnly")
    }
    if "$ref" in out:
        out["$ref"] = out["$ref"].replace(OPENAPI_REF, "#/$defs/")
    if strict and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if node.get("nullable"):
        if list(out) == ["allOf"] and len(out["allOf"]) == 1:
            out = out["allOf"][0]
        description = out.pop("description", None)
        out = {"anyOf": [out, {"type": "null"}]}
        if description:
            out["description"] = description
    return out


@cache
def openapi() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


@cache
def validator(component: str) -> jsonschema.Draft202012Validator:
    defs = json_schema(openapi()["components"]["schemas"], strict=True)
    schema = {"$defs": defs, "$ref": f"#/$defs/{component}"}
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(component: str, message: Any) -> Iterator[str]:
    for error in validator(component).iter_errors(message):
        best = jsonschema.exceptions.best_match([error])
        where = "/".join(str(p) for p in best.absolute_path)
        yield f"{where}: {best.message}"


def branch(component: str, message: Any) -> str:
    """The member of a ``oneOf`` the message names by its discriminator (for a
    clear error), else the component itself."""
    schema = openapi()["components"]["schemas"][component]
    discriminator = schema.get("discriminator") or {}
    key = discriminator.get("propertyName")
    target = discriminator.get("mapping", {}).get(message.get(key)) if key else None
    return component if target is None else target.removeprefix(OPENAPI_REF)


def check(component: str, message: Any) -> None:
    """Fail the test if ``message`` does not match the component ``component``."""
    found = list(errors(component, message))
    if found:
        component = branch(component, message)
        found = list(errors(component, message)) or found
    if found:
        pytest.fail(f"{component} does not describe {message!r}:\n" + "\n".join(found[:10]))


def check_group_message(group: str, message: dict[str, Any]) -> None:
    """A message sent to the channel layer, as the sockets will send it on
    (a table's ``payload``: ``state``, ``delta``, ``chat``)."""
    kind = message.get("type")
    if kind == "table.state" and isinstance(message.get("text"), str):
        payload = json.loads(message["text"])
        check("WsServerMessage", payload)
        # The fields the socket reads are the payload's own.
        assert (message["kind"], message["v"]) == (payload["type"], payload["v"])
        assert message["base"] == payload.get("base")
        assert message["seat"] == payload.get("seat")
    elif str(kind).startswith("table.") and isinstance(message.get("payload"), dict):
        check("WsServerMessage", message["payload"])
    elif kind == "lobby.table":
        check("WsServerMessage", {"type": "table", "table": message["table"]})


class Checked:
    """What was checked, so that a test can say it checked something."""

    def __init__(self) -> None:
        self.count = 0
