"""The typed game parts of the API schema: each game's view, actions and
result summary (the rules package's TypedDicts), the one result and payment
shape, and the WebSocket messages (``games.protocol``), published as OpenAPI
components with ``oneOf`` by ``game`` (or by ``type`` for actions and socket
messages), with an example of each game built by its own engine.

``component`` makes a serializer field refer to one of them; ``add_components``
is the drf-spectacular post-processing hook that adds them to the schema.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from functools import cache
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import protocol
from games.models import Table
from games.plugins import PLUGINS, GamePlugin
from games.publish import hand_result
from games.rules.game import EventLog, GameEngine, HandStartedEvent, PaymentJSON

Schema = dict[str, Any]
REF = "#/components/schemas/"
EXAMPLE_STAKE = 10


def _typed(plugin: GamePlugin, part: str) -> Any:
    """The game's ``<schema_name><part>`` type of its rules package."""
    return getattr(plugin.rules_types(), f"{plugin.schema_name}{part}")


def _prefixes() -> dict[str, str]:
    prefixes = {p.rules_types().__name__: p.schema_name for p in PLUGINS.values()}
    return {**prefixes, "games.protocol": "Ws"}


def ref(name: str) -> Schema:
    return {"$ref": REF + name}


@cache
def _field_class(name: str, many: bool, base: Any) -> Any:
    target = {"type": "array", "items": ref(name)} if many else ref(name)
    field = type(f"{name}{'List' if many else ''}Field", (base,), {})
    return extend_schema_field(target)(field)


def component(
    name: str,
    *,
    many: bool = False,
    base: Any = serializers.JSONField,
    **kwargs: Any,
) -> Any:
    """A serializer field documented as the component ``name`` (or a list of them);
    ``base`` is the field class that validates input (any JSON by default)."""
    return _field_class(name, many, base)(**kwargs)


# -- TypedDicts to schemas -------------------------------------------------------


def component_name(tp: Any) -> str:
    name: str = tp.__name__.removesuffix("JSON")
    prefix = _prefixes().get(tp.__module__, "")
    return name if name.startswith(prefix) else prefix + name


class Converter:
    """Turns type hints into OpenAPI 3.0 schemas, TypedDicts into components."""

    def __init__(self) -> None:
        self.components: dict[str, Schema] = {}

    def typed_dict(self, tp: Any, *, name: str | None = None, type_key: str = "type") -> Schema:
        """The component of a TypedDict (``name``: another name; ``type_key``:
        its ``type`` field published under that key)."""
        name = name or component_name(tp)
        if name not in self.components:
            self.components[name] = {}  # (recursion guard)
            # (``__required_keys__`` misses NotRequired under postponed annotations)
            hints = get_type_hints(tp, include_extras=True)
            optional = {k for k, hint in hints.items() if get_origin(hint) is NotRequired}

            def key_of(key: str) -> str:
                return type_key if key == "type" else key

            schema: Schema = {
                "type": "object",
                "properties": {
                    key_of(key): self.schema(get_args(hint)[0] if key in optional else hint)
                    for key, hint in hints.items()
                },
                "required": sorted(key_of(k) for k in set(hints) - optional),
                # Closed: a game's payload has exactly these keys (a client
                # generated from the schema gets no catch-all of ``Any``).
                "additionalProperties": False,
            }
            if tp.__doc__ and not tp.__doc__.startswith(f"{tp.__name__}("):
                schema["description"] = " ".join(tp.__doc__.split())
            self.components[name] = schema
        return ref(name)

    def event_log(self, union: Any) -> Schema:
        """A view's list of a game's events kept as records (``EventLog``):
        each event's fields, ``kind`` for its ``type``, one of them by ``kind``."""
        members = get_args(union) or (union,)
        names = [f"{component_name(m).removesuffix('Event')}Record" for m in members]
        for member, name in zip(members, names, strict=True):
            self.typed_dict(member, name=name, type_key="kind")
        kinds = [get_args(get_type_hints(m)["type"])[0] for m in members]
        return {
            "type": "array",
            "items": {
                "oneOf": [ref(n) for n in names],
                "discriminator": {
                    "propertyName": "kind",
                    "mapping": {k: REF + n for k, n in zip(kinds, names, strict=True)},
                },
            },
        }

    def schema(self, tp: Any) -> Schema:
        origin, args = get_origin(tp), get_args(tp)
        if tp is Any:
            return {}
        if origin is Annotated:  # (a shape published elsewhere: ``protocol.Component``)
            named = [m for m in args[1:] if isinstance(m, protocol.Component)]
            logs = [m for m in args[1:] if isinstance(m, EventLog)]
            if logs:
                return self.event_log(logs[0].events)
            return ref(named[0].name) if named else self.schema(args[0])
        if is_typeddict(tp):
            return self.typed_dict(tp)
        if tp in (int, bool, str, float):
            return {"type": {int: "integer", bool: "boolean", str: "string", float: "number"}[tp]}
        if origin is Literal:
            kind = "boolean" if isinstance(args[0], bool) else "string"
            kind = "integer" if isinstance(args[0], int) and kind != "boolean" else kind
            return {"type": kind, "enum": list(args)}
        if origin in (Union, types.UnionType):
            return self.union(args)
        if origin in (list, tuple, Sequence):
            return {"type": "array", "items": self.schema(args[0]) if args else {}}
        if origin in (dict, Mapping):
            return {"type": "object", "additionalProperties": self.schema(args[1])}
        if tp in (dict, typing.Dict):  # noqa: UP006
            return {"type": "object", "additionalProperties": {}}
        raise TypeError(f"No schema for {tp!r}")

    def union(self, args: tuple[Any, ...]) -> Schema:
        options = [a for a in args if a is not type(None)]
        nullable = len(options) < len(args)
        if len(options) == 1:
            schema = self.schema(options[0])
        else:
            schema = {"oneOf": [self.schema(a) for a in options]}
            if all(is_typeddict(a) and "type" in a.__annotations__ for a in options):
                schema["discriminator"] = by_type(options)
        if not nullable:
            return schema
        if "$ref" in schema:
            return {"allOf": [schema], "nullable": True}
        if "enum" in schema:  # (OpenAPI 3.0: a nullable enum lists null too)
            schema = {**schema, "enum": [*schema["enum"], None]}
        return {**schema, "nullable": True}


def by_type(typed_dicts: Sequence[Any], extra: Mapping[str, str] | None = None) -> Schema:
    """A discriminator by the ``type`` each TypedDict fixes (a ``Literal``)."""
    mapping = dict(extra or {})
    for tp in typed_dicts:
        for value in get_args(get_type_hints(tp)["type"]):
            mapping[value] = REF + component_name(tp)
    return {"propertyName": "type", "mapping": mapping}


def one_of(names: Sequence[str], key: str, values: Sequence[str]) -> Schema:
    return {
        "oneOf": [ref(n) for n in names],
        "discriminator": {
            "propertyName": key,
            "mapping": {value: REF + n for value, n in zip(values, names, strict=True)},
        },
    }


def components() -> dict[str, Schema]:
    """Every game component, the one result and the socket messages."""
    convert = Converter()
    convert.schema(PaymentJSON)
    titles = {game: plugin.schema_name for game, plugin in PLUGINS.items()}
    actions_of = {game: _typed(plugin, "Action") for game, plugin in PLUGINS.items()}
    for game, plugin in PLUGINS.items():
        title = titles[game]
        convert.schema(_typed(plugin, "View"))
        convert.schema(_typed(plugin, "Summary"))
        convert.components[f"{title}Action"] = convert.schema(actions_of[game])
        convert.components[f"{title}Result"] = result_schema(game, title)
    found = convert.components
    found["View"] = one_of([f"{t}View" for t in titles.values()], "game", list(titles))
    found["Result"] = one_of([f"{t}Result" for t in titles.values()], "game", list(titles))
    actions = [a for game in titles for a in get_args(actions_of[game]) or [actions_of[game]]]
    found["Action"] = {
        "oneOf": [ref(component_name(a)) for a in actions],
        "discriminator": by_type(actions),
        "description": "A move (`act`): Mậu Binh `submit`; Tiến Lên `play`, `pass`; "
        "Hold'em `fold`, `check`, `call`, `raise`, `all_in`.",
    }
    for game, plugin in PLUGINS.items():
        found[f"{titles[game]}Event"] = game_events(convert, _typed(plugin, "Event"))
    found["Event"] = {
        "anyOf": [ref(f"{t}Event") for t in titles.values()],
        "description": "Something that happened in the hand, in order (`seq`), at table "
        "version `v`: one of the events of the table's game (`table.game`): "
        + ", ".join(f"`{t}Event`" for t in titles.values())
        + ' (each `oneOf` by `type`; docs/protocol.md "Game events").',
    }
    for message in protocol.CLIENT_MESSAGES + protocol.SERVER_MESSAGES:
        convert.schema(message)
    client = [component_name(m) for m in protocol.CLIENT_MESSAGES]
    server = [component_name(m) for m in protocol.SERVER_MESSAGES]
    found["GameName"] = {
        "type": "string",
        "enum": list(PLUGINS),
        "description": "A game: each has its plugin (settings `VIPGAME_GAMES`).",
    }
    found["WsStateMessage"] = ref("TableStateOut")
    found["WsClientMessage"] = {
        "oneOf": [ref(n) for n in client],
        "discriminator": by_type(protocol.CLIENT_MESSAGES),
        "description": "What a client sends on a table socket (docs/protocol.md).",
    }
    found["WsServerMessage"] = {
        "oneOf": [ref("TableStateOut"), *(ref(n) for n in server)],
        "discriminator": by_type(protocol.SERVER_MESSAGES, {"state": REF + "TableStateOut"}),
        "description": "What the server sends on a table or lobby socket (docs/protocol.md).",
    }
    return found


EVENT_FIELDS: dict[str, Schema] = {
    "seq": {"type": "integer", "description": "Its place in the hand's events, from 1."},
    "v": {"type": "integer", "description": "The table version it happened at."},
    "private_to": {
        "type": "integer",
        "nullable": True,
        "description": "Staff replays only: the player a private event went to (null: everyone's).",
    },
}


def game_events(convert: Converter, union: Any) -> Schema:
    """A game's events (its rules' ``<Game>Event`` union, with the table's
    ``hand_started`` first), each with where it stands (``seq``, ``v``), as
    one ``oneOf`` by ``type``."""
    members = [HandStartedEvent, *(get_args(union) or [union])]
    for member in members:
        convert.schema(member)
        schema = convert.components[component_name(member)]
        if "seq" not in schema["properties"]:
            schema["properties"] = {**schema["properties"], **EVENT_FIELDS}
            schema["required"] = sorted({*schema["required"], "seq", "v"})
    return {"oneOf": [ref(component_name(m)) for m in members], "discriminator": by_type(members)}


def result_schema(game: str, title: str) -> Schema:
    return {
        "type": "object",
        "description": "A finished hand's result, the same shape for every game: `net` "
        "and `payments` in units of `unit` chips before anyone's cap; `chips`, what "
        "each player's wallet or stack really moved, once settled (null before). A "
        "voided hand (its table closed during it) moved nothing: `voided`, `reason`.",
        "properties": {
            "game": {"type": "string", "enum": [game]},
            "voided": {"type": "boolean"},
            "reason": {"type": "string", "nullable": True},
            "unit": {"type": "integer", "description": "Chips per unit."},
            "net": {"type": "array", "items": {"type": "integer"}},
            "chips": {"type": "array", "items": {"type": "integer"}, "nullable": True},
            "payments": {"type": "array", "items": ref("Payment")},
            "summary": {"allOf": [ref(f"{title}Summary")], "nullable": True},
        },
        "required": ["game", "voided", "reason", "unit", "net", "chips", "payments", "summary"],
        "additionalProperties": False,
    }


# -- examples -------------------------------------------------------------------


def _finish(engine: GameEngine, state: Any) -> Any:
    """Play a hand to its end: the players' bots move, else the clock runs out."""
    for step in range(400):
        status = engine.status(state)
        if status.finished:
            return state
        if status.actors:
            player = status.actors[0]
            action = engine.bot_action(engine.view(state, player), step)
            state, _ = engine.apply(state, player, action)
        else:
            state, _ = engine.timeout(state)
    raise AssertionError("the example hand did not finish")


@cache
def game_examples(game: str) -> dict[str, Any]:
    """A two-player hand of this game dealt from a fixed deck: player 0's view
    after the deal, and its result once played to the end by the bots."""
    plugin = PLUGINS[game]
    engine: GameEngine = plugin.engine
    ruleset = engine.ruleset("vipgame", {})
    deck = [(7 * i + 3) % 52 for i in range(52)]
    state, _ = engine.start(ruleset, deck, 2, plugin.example_setup(2))
    finished = _finish(engine, state)
    unit = EXAMPLE_STAKE if plugin.pays_in_units else 1
    result = hand_result(game, unit, engine.outcome(finished))
    actors = list(engine.status(state).actors)
    return {
        "view": engine.view(state, 0),
        "actors": actors,
        "result": result,
        "summary": result["summary"],
        "action": engine.bot_action(engine.view(state, actors[0]), 0) if actors else None,
    }


def state_example(game: str) -> dict[str, Any]:
    """A ``state`` message of a two-player table of this game, for player 0."""
    plugin = PLUGINS[game]
    parts = game_examples(game)
    actors = parts["actors"]
    stake = EXAMPLE_STAKE
    clock = next(iter(plugin.engine.clocks))  # the engine's first clock
    table = Table(game=plugin.game, stake=stake, settings=plugin.complete({}))
    buy_in = plugin.money.buy_in_range(table)
    seats = [
        {
            "position": position,
            "user_id": user_id,
            "name": name,
            "avatar": avatar,
            "bot": bot,
            "ready": True,
            "connected": True,
            "sitting_out": False,
            "leaving": False,
            "leave_after_hand": False,
            "auto_ready": not plugin.keeps_ready,
            "chips": 2000 if plugin.money.chips_on_seat else 9400,
        }
        for position, user_id, name, avatar, bot in [
            (0, 7, "Lan", "non-la", False),
            (2, 31, "Quốc Bảo", "cap", True),
        ]
    ]
    return {
        "type": "state",
        "protocol": protocol.VERSION,
        "v": 12,
        "server_time": 1767225600500,
        "seat": 0,
        "you": 0,
        "actors": actors,
        "clock": {
            "kind": clock,
            "started": 1767225600000,
            "deadline": 1767225630000,
            "seats": [seats[i]["position"] for i in actors],
        },
        "table": {
            "id": 5,
            "game": game,
            "name": "",
            "preset": "vipgame",
            "stake": stake,
            "seat_count": 4,
            "private": False,
            "status": "playing",
            "rules": [],
            "max_raise": None,
            "buy_in": None if buy_in is None else list(buy_in),
            "money": "",
            "hands_played": 3,
            "next_commitment": "9f" * 32,
            "seats": seats,
        },
        "hand": {
            "id": 41,
            "number": 3,
            "players": [
                {"index": i, **{k: s[k] for k in ("position", "user_id", "name", "bot")}}
                for i, s in enumerate(seats)
            ],
            "last_seq": 4,
            "commitment": "3c" * 32,
            "fair_id": "5-3",
            "view": parts["view"],
            "finished": False,
            "settled": False,
            "client_seeds": ["my-seed-1", "0a1b2c3d4e5f"],
            "seed_sources": ["player", "bot"],
            "result": None,
            "server_seed": None,
        },
        "events": [],
        "resync": False,
    }


#: The serializer components of a hand in a state (games.api.serializers).
HAND_PARTS = ("HandInfo", "HandPlayerOut")


def add_components(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular post-processing hook: the game components, their
    examples, and an example ``state`` of each game on the table state."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(components())
    # The hand's own part of a state (its serializers' fields, exactly): closed
    # like the game components it carries.
    for name in HAND_PARTS:
        if name in schemas:
            schemas[name]["additionalProperties"] = False
    for game, plugin in PLUGINS.items():
        title, parts = plugin.schema_name, game_examples(game)
        schemas[f"{title}View"]["example"] = parts["view"]
        schemas[f"{title}Summary"]["example"] = parts["summary"]
        schemas[f"{title}Result"]["example"] = parts["result"]
    operation = result.get("paths", {}).get("/api/v1/tables/{table_id}", {}).get("get")
    if operation is not None:
        content = operation["responses"]["200"]["content"]["application/json"]
        content["examples"] = {
            plugin.schema_name: {
                "summary": f"{plugin.label}: a hand in play",
                "value": state_example(game),
            }
            for game, plugin in PLUGINS.items()
        }
    return result
