"""The AsyncAPI 3.0 document of the two sockets (``/ws/lobby/``,
``/ws/tables/<id>/``): their channels, the messages each way (the ``auth``
first message included), close codes and limits.

It is built at request time from the OpenAPI document's own components
(``/api/schema/``: the same generator, the same ``games.protocol`` and rules
types), turned from OpenAPI 3.0 schemas into AsyncAPI schemas (JSON Schema
draft 7: ``nullable`` becomes a ``null`` type, a discriminator its property
name, an ``example`` one of ``examples``), with ``$ref`` into this
document's own ``components/schemas``: the two documents cannot disagree.
``tests/api/test_asyncapi.py`` validates it against the official AsyncAPI
3.0.0 JSON Schema."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args, get_type_hints

import yaml
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator

from games import protocol
from games.consumers import MAX_MESSAGE_BYTES
from kernel import limits
from kernel.api.schema_view import SCHEMA_LANGUAGE, plain

from .schema import REF, component_name

Schema = dict[str, Any]

# Keywords whose value is a schema, a list of schemas, or a map of them.
_ONE = ("items", "additionalProperties", "not")
_MANY = ("allOf", "anyOf", "oneOf")
_MAP = ("properties", "patternProperties")


def asyncapi_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as an AsyncAPI (JSON Schema draft 7) one."""
    if not isinstance(node, dict):
        return node
    out: Schema = {}
    for key, value in node.items():
        if key in _ONE and isinstance(value, dict):
            out[key] = asyncapi_schema(value)
        elif key in _MANY:
            out[key] = [asyncapi_schema(v) for v in value]
        elif key in _MAP:
            out[key] = {name: asyncapi_schema(v) for name, v in value.items()}
        elif key == "discriminator":
            out[key] = value["propertyName"]
        elif key == "example":
            out["examples"] = [value]
        elif key != "nullable":
            out[key] = value
    if node.get("nullable"):
        return _nullable(out)
    return out


def _nullable(schema: Schema) -> Schema:
    if isinstance(schema.get("type"), str) and not any(k in schema for k in (*_MANY, "$ref")):
        schema = {**schema, "type": [schema["type"], "null"]}
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    described = {k: schema[k] for k in ("description",) if k in schema}
    inner = {k: v for k, v in schema.items() if k != "description"}
    if list(inner) == ["allOf"] and len(inner["allOf"]) == 1:
        inner = inner["allOf"][0]
    return {"oneOf": [inner, {"type": "null"}], **described}


def _type_of(message: type) -> str:
    (value,) = get_args(get_type_hints(message)["type"])
    return str(value)


def _summary(message: type) -> str | None:
    doc = message.__doc__
    if not doc or doc.startswith(f"{message.__name__}("):
        return None
    return " ".join(doc.split())


# Which socket hears and says what (docs/protocol.md).
LOBBY_IN = (protocol.AuthMessage, protocol.PingMessage)
LOBBY_OUT = (
    protocol.LobbyMessage,
    protocol.LobbyTableMessage,
    protocol.EventMessage,
    protocol.ErrorMessage,
    protocol.PongMessage,
)
TABLE_IN = protocol.CLIENT_MESSAGES
TABLE_OUT = tuple(m for m in protocol.SERVER_MESSAGES if m not in LOBBY_OUT[:2])
# (the ``state`` message is the REST table state, ``TableStateOut``)
STATE = "TableStateOut"
ANSWERS = {protocol.AckMessage, protocol.ErrorMessage}
CORRELATION = {"location": "$message.payload#/id"}


def _messages() -> dict[str, Schema]:
    """``components/messages``: one per socket message, named by its component."""
    found: dict[str, Schema] = {
        STATE: {
            "name": "state",
            "title": "state",
            "summary": "The table state for this viewer, complete: the same object as "
            "`GET /api/v1/tables/{table_id}`.",
            "contentType": "application/json",
            "payload": {"$ref": REF + STATE},
        }
    }
    for message in {*LOBBY_IN, *LOBBY_OUT, *TABLE_IN, *TABLE_OUT}:
        name = component_name(message)
        entry: Schema = {
            "name": _type_of(message),
            "title": _type_of(message),
            "contentType": "application/json",
            "payload": {"$ref": REF + name},
        }
        summary = _summary(message)
        if summary:
            entry["summary"] = summary
        if message in ANSWERS or ("id" in get_type_hints(message) and message in TABLE_IN):
            # (an ``ack`` or ``error`` answers the client message of its ``id``)
            entry["correlationId"] = CORRELATION
        found[name] = entry
    return dict(sorted(found.items()))


def _channel_messages(messages: Sequence[type], extra: Sequence[str] = ()) -> dict[str, Schema]:
    names = [*extra, *(component_name(m) for m in messages)]
    return {name: {"$ref": f"#/components/messages/{name}"} for name in names}


def _rate(name: str) -> str:
    rate = limits.settings_rate(name)
    return "none" if rate is None else f"{rate.count} in {rate.seconds:g} s"


def _limits() -> dict[str, Any]:
    return {
        "maxMessageBytes": MAX_MESSAGE_BYTES,
        "maxFrameBytes": "WS_MAX_FRAME_BYTES (16384): closed with 1009",
        "messages": f"{settings.WS_RATE_LIMIT} in 10 s per socket (more: `rate_limited`)",
        "chat": f"{_rate('WS_CHAT_RATE')} per user (`chat_rate_limited`)",
        "sync": f"{_rate('WS_SYNC_RATE')} per socket, {_rate('WS_SYNC_ADDRESS_RATE')} per "
        "address (`sync_rate_limited`)",
        "socketsPerUser": settings.WS_MAX_SOCKETS_PER_USER,
        "socketsPerAddress": settings.WS_MAX_SOCKETS_PER_ADDRESS,
        "maxPendingBytes": settings.WS_MAX_PENDING_BYTES,
        "ping": "send a `ping` every 10 to 20 s",
    }


def _close_codes() -> list[dict[str, Any]]:
    return [{"code": code, "meaning": text} for code, text in sorted(protocol.CLOSE_CODES.items())]


def _description() -> str:
    codes = "\n".join(f"| {c} | {text} |" for c, text in sorted(protocol.CLOSE_CODES.items()))
    limit = _limits()
    return (
        "The card room's two WebSockets, for apps: the lobby and a table. Every message "
        f"is one JSON object of at most {MAX_MESSAGE_BYTES // 1024} KB with a `type`. "
        "Authenticate with `Authorization: Bearer <access token>` on the handshake, or "
        "send `auth` first; browsers use their session cookie. Ask for the protocol "
        f"version you speak: `?protocol={protocol.VERSION}` (docs: "
        "[the protocol](/api/protocol.md), versions and deprecation policy included). "
        "The message payloads are the components of the OpenAPI document "
        "([/api/schema/](/api/schema/)), the same names.\n\n"
        f"Limits: {limit['messages']}; chat {limit['chat']}; `sync` {limit['sync']}; "
        f"{limit['socketsPerUser']} sockets per user, {limit['socketsPerAddress']} per "
        "address (more: closed with 4429); send a `ping` every 10 to 20 s.\n\n"
        "| close code | meaning |\n|---|---|\n" + codes
    )


def _query() -> Schema:
    return {
        "type": "object",
        "properties": {
            "protocol": {
                "type": "string",
                "pattern": "^[0-9]+$",
                "description": "The protocol version the client speaks (default: the "
                f"current one, {protocol.VERSION}). Not supported: closed with 4426.",
            },
        },
    }


def _headers() -> Schema:
    return {
        "type": "object",
        "properties": {
            "Authorization": {
                "type": "string",
                "description": "`Bearer <access token>` (or `Token <access token>`).",
            },
            "Accept-Language": {
                "type": "string",
                "description": "The language of errors (`vi`, the default, or `en`).",
            },
        },
    }


def document(request: HttpRequest) -> dict[str, Any]:
    """The AsyncAPI document, its schemas the OpenAPI document's components."""
    with translation.override(SCHEMA_LANGUAGE):  # as /api/schema/: one document
        openapi = SchemaGenerator().get_schema(request=None, public=True)
    schemas = {
        name: asyncapi_schema(schema) for name, schema in openapi["components"]["schemas"].items()
    }
    table_query = _query()
    table_query["properties"]["invite"] = {
        "type": "string",
        "description": "A private table's invite code.",
    }
    bearer = {"$ref": "#/components/securitySchemes/bearer"}
    cookie = {"$ref": "#/components/securitySchemes/session"}
    doc = {
        "asyncapi": "3.0.0",
        "info": {
            "title": "VIPGAME card room sockets",
            "version": str(protocol.VERSION),
            "description": _description(),
        },
        "defaultContentType": "application/json",
        "servers": {
            "site": {
                "host": request.get_host(),
                "protocol": "wss" if request.is_secure() else "ws",
                "description": "This server: the sockets live beside the REST API.",
                "security": [bearer, cookie],
            }
        },
        "channels": {
            "lobby": {
                "address": "/ws/lobby/",
                "title": "The lobby",
                "description": "The public open tables, then each table that changes, "
                "and (signed in) the wallet's balance.",
                "messages": _channel_messages([*LOBBY_IN, *LOBBY_OUT]),
                "bindings": {
                    "ws": {"query": _query(), "headers": _headers(), "bindingVersion": "0.1.0"}
                },
                "x-close-codes": _close_codes(),
                "x-limits": _limits(),
            },
            "table": {
                "address": "/ws/tables/{tableId}/",
                "title": "A table",
                "description": "One table: its state first, then a delta or a state per "
                "change, acks and errors for what the client sends, chat, events.",
                "parameters": {"tableId": {"description": "The table's id."}},
                "messages": _channel_messages([*TABLE_IN, *TABLE_OUT], extra=[STATE]),
                "bindings": {
                    "ws": {"query": table_query, "headers": _headers(), "bindingVersion": "0.1.0"}
                },
                "x-close-codes": _close_codes(),
                "x-limits": _limits(),
            },
        },
        "operations": {
            "lobbyReceive": _operation("receive", "lobby", LOBBY_IN, "What a client sends."),
            "lobbySend": _operation("send", "lobby", LOBBY_OUT, "What the server sends."),
            "tableReceive": _operation("receive", "table", TABLE_IN, "What a client sends."),
            "tableSend": _operation(
                "send", "table", TABLE_OUT, "What the server sends.", extra=[STATE]
            ),
        },
        "components": {
            "schemas": schemas,
            "messages": _messages(),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A device session's access token (`POST "
                    "/api/v1/auth/login`), on the handshake or in the `auth` message.",
                },
                "session": {
                    "type": "httpApiKey",
                    "name": settings.SESSION_COOKIE_NAME,
                    "in": "cookie",
                    "description": "A browser's session cookie (its `Origin` must be allowed).",
                },
            },
        },
    }
    plain_doc: dict[str, Any] = plain(doc)
    return plain_doc


def _operation(
    action: str, channel: str, messages: Sequence[type], summary: str, extra: Sequence[str] = ()
) -> Schema:
    names = [*extra, *(component_name(m) for m in messages)]
    return {
        "action": action,
        "channel": {"$ref": f"#/channels/{channel}"},
        "summary": summary,
        "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in names],
    }


def asyncapi_json(request: HttpRequest) -> HttpResponse:
    """``/api/asyncapi.json``: the sockets' AsyncAPI 3.0 document."""
    return JsonResponse(document(request), json_dumps_params={"ensure_ascii": False})


def asyncapi_yaml(request: HttpRequest) -> HttpResponse:
    """``/api/asyncapi.yaml``: the same document in YAML."""
    text = yaml.safe_dump(document(request), sort_keys=False, allow_unicode=True)
    return HttpResponse(text, content_type="application/yaml; charset=utf-8")
