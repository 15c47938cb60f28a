"""Every message the server sends, checked against the published schema
(Zulip's ``test_events`` pattern): the OpenAPI components of ``/api/schema/``
turned into one JSON Schema, strict (a field the schema does not name is an
error, so the schema cannot fall behind the code).

Two validators of the same schema: ``jsonschema-rs`` (compiled, Rust) says
yes or no to every message, and only a message it refuses goes to
``jsonschema``, the reference, for the errors a test prints. The yes/no was a
quarter of the table tests' time with ``jsonschema`` alone (its ``oneOf``
collects every error of each member before the one that matches);
``tests/services/test_wire_validators.py`` holds the two to the same answer
on every message of a hand of each game and on their broken variants."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
import jsonschema_rs
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
def definitions() -> dict[str, Any]:
    """Every component as JSON Schema, checked against the 2020-12 meta-schema once."""
    defs: dict[str, Any] = json_schema(openapi()["components"]["schemas"], strict=True)
    jsonschema.Draft202012Validator.check_schema({"$defs": defs})
    return defs


def schema_of(component: str) -> dict[str, Any]:
    return {"$defs": definitions(), "$ref": f"#/$defs/{component}"}


@cache
def validator(component: str) -> jsonschema.Draft202012Validator:
    """The reference validator (its errors say what is wrong)."""
    return jsonschema.Draft202012Validator(schema_of(component))


@cache
def fast_validator(component: str) -> jsonschema_rs.Draft202012Validator:
    """The compiled one, for yes or no. ``format`` is an annotation in draft
    2020-12, as the reference treats it: not checked by either."""
    return jsonschema_rs.Draft202012Validator(schema_of(component), validate_formats=False)


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
    if fast_validator(component).is_valid(message):
        return
    found = list(errors(component, message))
    if found:
        component = branch(component, message)
        found = list(errors(component, message)) or found
    if found:
        pytest.fail(f"{component} does not describe {message!r}:\n" + "\n".join(found[:10]))
    # (never silently: the differential test keeps the two validators alike)
    pytest.fail(f"jsonschema-rs refuses what jsonschema accepts as {component}: {message!r}")


def check_group_message(group: str, message: dict[str, Any]) -> None:
    """A message sent to the channel layer, as the sockets will send it on
    (a table's ``payload``: ``state``, ``delta``, ``chat``)."""
    payload = payload_of(message)
    if payload is None:
        return
    check("WsServerMessage", payload)
    if message["type"] == "table.state":  # the fields the socket reads are the payload's own
        assert (message["kind"], message["v"]) == (payload["type"], payload["v"])
        assert message["base"] == payload.get("base")
        assert message["seat"] == payload.get("seat")


def payload_of(message: dict[str, Any]) -> dict[str, Any] | None:
    """What a socket sends on for a message of the channel layer, if anything."""
    kind = message.get("type")
    if kind == "table.state" and isinstance(message.get("text"), str):
        payload: dict[str, Any] = json.loads(message["text"])
        return payload
    if str(kind).startswith("table.") and isinstance(message.get("payload"), dict):
        return dict(message["payload"])
    if kind == "lobby.table":
        return {"type": "table", "table": message["table"]}
    return None


class Checked:
    """What was checked, so that a test can say it checked something."""

    def __init__(self) -> None:
        self.count = 0
