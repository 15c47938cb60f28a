"""Input and output shapes of the games API. Table states and replays are the
WebSocket payloads (docs/protocol.md: times in ms since the epoch); the output
serializers here document them for the schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import limits, publish
from games.api.schema import component, ref
from games.models import Departure, HandPlayer, Table
from games.plugins import PLUGINS, Knob, game_choices, plugin_for
from games.plugins.money import money_for
from games.selectors import MyTable
from kernel.api.strict import StrictIn, StrictQuery

HEX64 = r"^[0-9a-fA-F]{64}$"
MAX_CHIPS = 10**12


# -- tables ------------------------------------------------------------------


class BuyInRange(serializers.Serializer[dict[str, int]]):
    min = serializers.IntegerField()
    max = serializers.IntegerField()


class TableOut(serializers.ModelSerializer[Table]):
    private = serializers.BooleanField(source="is_private")
    taken = serializers.IntegerField(help_text="Seats taken.")
    humans = serializers.IntegerField(help_text="Seats taken by people (not bots).")
    free_seats = serializers.IntegerField()
    buy_in = serializers.SerializerMethodField(help_text="Poker: buy-in range in chips.")
    min_balance = serializers.SerializerMethodField(
        help_text="Mậu Binh, Tiến Lên: chips a player needs to sit."
    )
    rules = serializers.SerializerMethodField(
        help_text="The rule options that differ from the preset: `[name, value]` pairs."
    )
    players = serializers.SerializerMethodField(
        help_text=(
            "Who sits, in seat order (`user_id`: the player, as in a table's seats and "
            "`GET /api/v1/players/{user_id}`); the lobby socket's `players`."
        )
    )

    class Meta:
        model = Table
        fields: tuple[str, ...] = (
            "id",
            "game",
            "name",
            "preset",
            "stake",
            "seat_count",
            "private",
            "status",
            "taken",
            "humans",
            "free_seats",
            "buy_in",
            "min_balance",
            "rules",
            "players",
        )
        read_only_fields: tuple[str, ...] = fields

    @extend_schema_field(BuyInRange(allow_null=True))
    def get_buy_in(self, table: Table) -> dict[str, int] | None:
        limits = money_for(table).buy_in_range(table)
        return None if limits is None else {"min": limits[0], "max": limits[1]}

    def get_min_balance(self, table: Table) -> int | None:
        return money_for(table).min_balance(table)

    @extend_schema_field(serializers.ListField(child=serializers.ListField()))
    def get_rules(self, table: Table) -> list[list[Any]]:
        return limits.non_default_rules(table.game, table.preset, table.settings)

    @extend_schema_field({"type": "array", "items": ref("WsLobbyPlayer")})
    def get_players(self, table: Table) -> list[dict[str, Any]]:
        # (the seats prefetched with their players: ``selectors.lobby_rows``)
        return publish.lobby_players(list(table.seats.all()))


class MySeatOut(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField(help_text="Your seat's position.")
    in_hand = serializers.BooleanField(
        help_text="You were dealt into the hand in play (false between hands)."
    )
    leaving = serializers.BooleanField(
        help_text="You left the hand in play (`leave` now): the seat frees at its settlement."
    )
    leave_after_hand = serializers.BooleanField(
        help_text="You play the hand out, then leave at its settlement (`stay` cancels)."
    )
    chips = serializers.IntegerField(
        help_text="Your chips held at this seat: its stack (Poker's buy-in and winnings), "
        "or the wallet hold that backs it (Mậu Binh, Tiến Lên). Leaving gives them back."
    )


class MyTableOut(TableOut):
    """One of your tables: its lobby entry (``TableOut``) and why it is listed."""

    seat = MySeatOut(allow_null=True, help_text="You sit here (null: you do not).")
    owned = serializers.BooleanField(help_text="You own the table (you opened it).")
    invited = serializers.BooleanField(
        help_text="You were invited: you opened this private table with its invite code once."
    )
    invite_code = serializers.CharField(
        allow_null=True,
        help_text="Your private table's invite code (`?invite=`); null for anyone else.",
    )

    class Meta(TableOut.Meta):
        fields = (*TableOut.Meta.fields, "seat", "owned", "invited", "invite_code")
        read_only_fields = fields

    def to_representation(self, instance: Any) -> dict[str, Any]:
        mine: MyTable = instance
        table = mine.table
        return {
            **TableOut(table, context=self.context).data,
            "seat": mine.seat,
            "owned": mine.owned,
            "invited": mine.invited,
            "invite_code": table.invite_code if mine.owned and table.is_private else None,
        }


def _knob_help(name: str, knob: Knob) -> str:
    r = knob.range
    if knob.kind == "number":
        assert r is not None
        return f"`{name}` {r.low}-{r.high}"
    if knob.kind == "switch":
        return f"`{name}` true/false"
    if knob.kind == "choice":
        return f"`{name}` {'|'.join(knob.choices)}"
    assert r is not None
    return f"`{name}` {{name: {r.low}-{r.high}}}"


def _options_help() -> str:
    lines = ["Rule options of the preset (each refused outside its range, code `invalid`):"]
    for game, plugin in PLUGINS.items():
        parts = [_knob_help(name, knob) for name, knob in plugin.rule_knobs().items()]
        lines.append(f"{game}: " + ", ".join(parts) + ".")
    return " ".join(lines)


def _options_schema() -> dict[str, Any]:
    """Every game's rule options, each with its type and range (a name several
    games share takes their widest range); no other key: the server refuses an
    unknown option (``bad_table_settings``). Which game takes which option, and
    its range there, is in the description."""
    properties: dict[str, dict[str, Any]] = {}

    def integer(name: str, low: int, high: int) -> dict[str, Any]:
        known = properties.get(name, {})
        return {
            "type": "integer",
            "minimum": min(low, known.get("minimum", low)),
            "maximum": max(high, known.get("maximum", high)),
        }

    for plugin in PLUGINS.values():
        for name, knob in plugin.rule_knobs().items():
            r = knob.range
            if knob.kind == "number":
                assert r is not None
                properties[name] = integer(name, r.low, r.high)
            elif knob.kind == "switch":
                properties[name] = {"type": "boolean"}
            elif knob.kind == "choice":
                known = properties.get(name, {}).get("enum", [])
                properties[name] = {
                    "type": "string",
                    "enum": [*known, *(c for c in knob.choices if c not in known)],
                }
            else:
                assert r is not None
                each = {"type": "integer", "minimum": r.low, "maximum": r.high}
                properties[name] = {
                    "type": "object",
                    "minProperties": 1,
                    "additionalProperties": each,
                }
    return {"type": "object", "properties": properties, "additionalProperties": False}


@extend_schema_field(_options_schema())
class OptionsField(serializers.DictField):
    """Any object here; each option is checked by ``games.limits.check_table``."""


def _number(name: str, **kwargs: Any) -> serializers.IntegerField:
    allowed = limits.FIELD_RANGES[name]
    return serializers.IntegerField(
        min_value=allowed.low,
        max_value=allowed.high,
        error_messages=limits.range_errors(name),
        **kwargs,
    )


#: The table knobs players set, of every game (a field each of the body; a
#: game's own are given to its table, another game's are left out).
GAME_KNOBS: dict[str, tuple[Knob, list[str]]] = {}
for _game, _plugin in PLUGINS.items():
    for _name in _plugin.player_fields():
        GAME_KNOBS.setdefault(_name, (_plugin.knobs[_name], []))[1].append(_plugin.label)


def _knob_field(name: str, knob: Knob, games: list[str]) -> serializers.IntegerField:
    assert knob.kind == "number"
    assert knob.range is not None
    return serializers.IntegerField(
        min_value=knob.range.low,
        max_value=knob.range.high,
        error_messages=limits.range_errors(name, knob.range),
        required=False,
        allow_null=knob.nullable,
        default=knob.default,
        help_text=knob.help or f"{', '.join(games)}: {knob.label}.",
    )


class TableCreateIn(StrictIn):
    game = serializers.ChoiceField(choices=game_choices())
    stake = _number("stake", help_text="Chips per unit.")
    seat_count = serializers.IntegerField(
        min_value=limits.SEATS.low,
        max_value=limits.SEATS.high,
        error_messages=limits.range_errors("seat_count", limits.SEATS),
        required=False,
        help_text="Default: the most the game allows.",
    )
    name = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    preset = serializers.CharField(max_length=30, required=False, default="vipgame")
    options = OptionsField(
        child=serializers.JSONField(), required=False, default=dict, help_text=_options_help()
    )
    is_private = serializers.BooleanField(required=False, default=False)
    fill_with_bots = serializers.BooleanField(required=False, default=False)

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # The games' table knobs players set: one field each, made from the knob.
        fields = super().get_fields()
        for name, (knob, games) in GAME_KNOBS.items():
            fields[name] = _knob_field(name, knob, games)
        return fields

    def game_fields(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The table knobs the body gave (defaults included), of every game."""
        return {name: attrs[name] for name in GAME_KNOBS if name in attrs}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # The one check (games.limits) the form and the services use too:
        # out of range is refused here with `invalid` and each field's range.
        settings, _numbers = limits.game_settings(
            attrs["game"], attrs["options"], self.game_fields(attrs)
        )
        limits.check_table(
            game=attrs["game"],
            preset=attrs["preset"],
            settings=settings,
            stake=attrs["stake"],
            seat_count=attrs.get("seat_count") or plugin_for(attrs["game"]).seats.high,
        )
        return attrs


class TableCreatedOut(serializers.ModelSerializer[Table]):
    private = serializers.BooleanField(source="is_private")
    invite_code = serializers.CharField(
        allow_null=True, help_text="Private tables: the code others need (`?invite=`)."
    )

    class Meta:
        model = Table
        fields = (
            "id",
            "game",
            "name",
            "preset",
            "stake",
            "seat_count",
            "private",
            "status",
            "invite_code",
        )
        read_only_fields = fields


class SeatState(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField()
    user_id = serializers.IntegerField()
    name = serializers.CharField()
    avatar = serializers.CharField(help_text="The player's avatar (`GET /api/v1/me/avatar`).")
    bot = serializers.BooleanField()
    ready = serializers.BooleanField()
    connected = serializers.BooleanField()
    sitting_out = serializers.BooleanField(
        help_text="Poker: dealt out (no chips left, or missed turns) until ready again."
    )
    leaving = serializers.BooleanField(
        help_text="Left the hand in play (`leave` now): the seat frees at its settlement."
    )
    leave_after_hand = serializers.BooleanField(
        help_text="Plays the hand out, then leaves at its settlement (`stay` cancels)."
    )
    auto_ready = serializers.BooleanField(
        help_text="Mậu Binh, Tiến Lên: the server readies the seat for each next hand."
    )
    chips = serializers.IntegerField(
        allow_null=True, help_text="Poker: the stack on the seat; else the wallet."
    )


class TableInfo(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    game = serializers.ChoiceField(choices=game_choices())
    name = serializers.CharField(allow_blank=True)
    preset = serializers.CharField()
    stake = serializers.IntegerField()
    seat_count = serializers.IntegerField()
    private = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Table.Status.choices)
    rules = serializers.ListField(
        child=serializers.ListField(), help_text="Rule options that differ from the preset."
    )
    max_raise = serializers.IntegerField(allow_null=True, help_text="Poker: the raise cap.")
    buy_in = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=2,
        max_length=2,
        allow_null=True,
        help_text="Poker: the buy-in range in chips (null: no buy-in).",
    )
    money = serializers.CharField(
        allow_blank=True,
        help_text=(
            "Empty: the game's own chips (the wallet's, or Poker's stacks bought in). "
            '"tournament": a tournament\'s table, played with tournament chips (the '
            "seats' chips); nobody sits down or leaves; the tournament is "
            "GET /api/v1/tournaments?table=<id>."
        ),
    )
    hands_played = serializers.IntegerField()
    next_commitment = serializers.CharField(help_text="sha256 of the next hand's server seed.")
    seats = SeatState(many=True)
    closed_reason = serializers.CharField(
        required=False, allow_blank=True, help_text="A closed table: why (owner or moderator)."
    )


#: Every clock a table may show: the shared ones and each engine's.
CLOCK_KINDS = list(
    dict.fromkeys([*Table.Clock.values, *(k for p in PLUGINS.values() for k in p.engine.clocks)])
)


class ClockInfo(serializers.Serializer[dict[str, Any]]):
    kind = serializers.ChoiceField(choices=CLOCK_KINDS)
    started = serializers.IntegerField(help_text="ms since the epoch (server clock)")
    deadline = serializers.IntegerField(help_text="ms since the epoch (server clock)")
    seats = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The seat positions the clock runs for (their countdown rings).",
    )


class HandPlayerOut(serializers.Serializer[dict[str, Any]]):
    index = serializers.IntegerField(help_text="The player's index in the hand.")
    position = serializers.IntegerField(help_text="The seat they were dealt at.")
    user_id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()


class HandInfo(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    players = HandPlayerOut(many=True, help_text="Who was dealt in, in player order.")
    last_seq = serializers.IntegerField(help_text="The hand's last event so far.")
    commitment = serializers.CharField()
    fair_id = serializers.CharField()
    view = component(
        "View",
        allow_null=True,
        help_text="The game's view for you (`you`), or for a spectator if `you` is null.",
    )
    finished = serializers.BooleanField()
    settled = serializers.BooleanField()
    result = component("Result", allow_null=True, help_text="Once finished.")
    server_seed = serializers.CharField(allow_null=True, help_text="Once finished.")
    client_seeds = serializers.ListField(
        child=serializers.CharField(allow_blank=True),
        help_text="The players' seeds this hand was dealt with, in player order.",
    )
    seed_sources = serializers.ListField(
        child=serializers.ChoiceField(choices=["player", "bot", "server"]),
        help_text=(
            "Whose each seed was: `player` (sent for this hand's commitment), `bot`, or "
            "`server` (drawn for a player who sent none in time)."
        ),
    )


class RemovedInfo(serializers.Serializer[dict[str, Any]]):
    reason = serializers.ChoiceField(
        choices=Departure.Reason.choices,
        help_text=(
            "`left` (you left), `not_ready` (the ready clock ran out), `no_chips` (not "
            "enough chips for the next hand), `closed` (the table was closed)."
        ),
    )
    at = serializers.IntegerField(help_text="ms since the epoch")


class TableStateOut(serializers.Serializer[dict[str, Any]]):
    """The one state envelope, the same on the socket (`state`) and here
    (docs/protocol.md)."""

    type = serializers.ChoiceField(choices=["state"])
    protocol = serializers.IntegerField(
        help_text="The version of the table protocol this state follows (docs/protocol.md "
        '"Versions").'
    )
    v = serializers.IntegerField(help_text="The table's version.")
    server_time = serializers.IntegerField(help_text="ms since the epoch")
    seat = serializers.IntegerField(
        allow_null=True, help_text="Your seat position (null: you are not seated)."
    )
    you = serializers.IntegerField(
        allow_null=True,
        help_text=(
            "Your player index in `hand` (null: you were not dealt into it, e.g. the "
            "previous hand right after you sat down)."
        ),
    )
    actors = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The player indices whose move it is (from the rules; empty between hands).",
    )
    clock = ClockInfo(allow_null=True, help_text="The running clock, if any.")
    table = TableInfo()
    hand = HandInfo(allow_null=True)
    events = component(
        "Event", many=True, help_text="What happened since `since` (or this change) you may see."
    )
    resync = serializers.BooleanField(help_text="An answer to `since` / `sync`.")
    removed = RemovedInfo(
        required=False,
        help_text=(
            "You are not seated here, and your seat here was freed: why and when "
            "(until you sit here again)."
        ),
    )


class SitIn(StrictIn):
    position = serializers.IntegerField(
        min_value=0, max_value=8, required=False, allow_null=True, default=None
    )
    buy_in = serializers.IntegerField(
        min_value=1,
        max_value=MAX_CHIPS,
        required=False,
        allow_null=True,
        default=None,
        help_text="Poker: chips to bring (default: the minimum).",
    )
    invite = serializers.CharField(max_length=16, required=False, allow_blank=True, default="")
    auto_ready = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text=(
            "Mậu Binh, Tiến Lên: the server readies your seat for each next hand "
            "(default: on at a table with bots)."
        ),
    )


class LeaveIn(StrictIn):
    when = serializers.ChoiceField(
        choices=["now", "after_hand"],
        required=False,
        default="now",
        help_text=(
            "`now`: in a hand, the game's leave rule (its cost: `GET .../leave-cost`); "
            "`after_hand`: play the hand out, then leave (`POST .../stay` cancels)."
        ),
    )


class AutoReadyIn(StrictIn):
    on = serializers.BooleanField(help_text="The switch: true or false.")


class LeaveCostOut(serializers.Serializer[dict[str, Any]]):
    leave_cost = component(
        "WsLeaveCost",
        allow_null=True,
        help_text="What leaving now costs you; null: nothing.",
    )


class ReadyIn(StrictIn):
    client_seed = serializers.CharField(
        max_length=64,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        default="",
        help_text=(
            "Your seed for the next hand (feeds the provably fair shuffle; never one you "
            "used before). Empty: keep the one sent with `seed`, or the server draws one."
        ),
    )
    commitment = serializers.CharField(
        max_length=64,
        required=False,
        allow_null=True,
        default=None,
        help_text="The table's `next_commitment` the seed answers (refused if it is not).",
    )


class SeedIn(StrictIn):
    client_seed = serializers.CharField(
        min_length=1,
        max_length=64,
        trim_whitespace=False,
        help_text="A fresh random seed for the next hand, 1 to 64 characters.",
    )
    commitment = serializers.CharField(
        max_length=64, help_text="The table's `next_commitment` this seed answers."
    )


class SeedOut(serializers.Serializer[dict[str, Any]]):
    commitment = serializers.CharField(help_text="The commitment the seed was accepted for.")


class ActIn(StrictIn):
    id = serializers.CharField(
        min_length=1,
        max_length=64,
        # taken as sent: the socket's act does not trim its id either, and a
        # trimmed id would refuse one the schema allows (e.g. "\x1c")
        trim_whitespace=False,
        help_text="Client id: a repeated id is never applied twice.",
    )
    v = serializers.IntegerField(
        min_value=0,
        max_value=2**62,
        required=False,
        allow_null=True,
        default=None,
        help_text="The table version the move was decided on.",
    )
    action = component(
        "Action",
        base=serializers.DictField,
        child=serializers.JSONField(allow_null=True),
        help_text='The move, e.g. `{"type": "fold"}` (docs/protocol.md).',
    )


class ActOut(serializers.Serializer[dict[str, Any]]):
    duplicate = serializers.BooleanField(help_text="This id was applied before.")
    v = serializers.IntegerField()
    state = TableStateOut()


class BotIn(StrictIn):
    position = serializers.IntegerField(
        min_value=0, max_value=8, required=False, allow_null=True, default=None
    )


class BuyInIn(StrictIn):
    amount = serializers.IntegerField(min_value=1, max_value=MAX_CHIPS)


# -- hands -------------------------------------------------------------------


class HandPlayerName(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField()
    user_id = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.BooleanField()


class HandListOut(serializers.ModelSerializer[HandPlayer]):
    id = serializers.IntegerField(source="hand_id")
    table = serializers.IntegerField(source="hand.table_id")
    game = serializers.ChoiceField(source="hand.game", choices=game_choices())
    number = serializers.IntegerField(source="hand.number")
    stake = serializers.SerializerMethodField(
        help_text="The stake the hand was dealt at (a tournament's rises with its levels)."
    )
    timeouts = serializers.IntegerField(
        help_text=(
            "Your clocks that ran out in the hand: the rules played for you "
            "(fold or check, pass, the auto-arrangement)."
        )
    )
    started_at = serializers.DateTimeField(source="hand.started_at")
    ended_at = serializers.DateTimeField(source="hand.ended_at")
    settled = serializers.BooleanField(source="hand.settled")
    voided = serializers.BooleanField(source="hand.voided")
    you = serializers.IntegerField(source="index", help_text="Your player index in the hand.")
    net = serializers.IntegerField(
        allow_null=True, help_text="Chips you won (negative: lost); null until settled."
    )
    players = HandPlayerName(source="hand.players", many=True)

    class Meta:
        model = HandPlayer
        fields = (
            "id",
            "table",
            "game",
            "number",
            "stake",
            "started_at",
            "ended_at",
            "settled",
            "voided",
            "you",
            "position",
            "net",
            "timeouts",
            "players",
        )
        read_only_fields = fields

    def get_stake(self, obj: HandPlayer) -> int:
        return int(obj.hand.stake or obj.hand.table.stake)


class HandDetailOut(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.ChoiceField(choices=game_choices())
    number = serializers.IntegerField()
    stake = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField()
    settled = serializers.BooleanField()
    voided = serializers.BooleanField()
    you = serializers.IntegerField(allow_null=True, help_text="Your player index, if you played.")
    players = HandPlayerOut(many=True)
    result = component("Result", help_text="Each player's net and every payment, as on the socket.")


class FairnessOut(serializers.Serializer[dict[str, Any]]):
    commitment = serializers.CharField()
    server_seed = serializers.CharField()
    hand_id = serializers.CharField(help_text="The id fed to the shuffle (`<table>-<number>`).")
    client_seeds = serializers.ListField(child=serializers.CharField(allow_blank=True))
    seed_sources = serializers.ListField(
        child=serializers.ChoiceField(choices=["player", "bot", "server"]),
        help_text="Whose each seed was (empty for hands dealt before this was recorded).",
    )


class ReplayOut(serializers.Serializer[dict[str, Any]]):
    hand = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.ChoiceField(choices=game_choices())
    number = serializers.IntegerField()
    players = HandPlayerOut(many=True)
    you = serializers.IntegerField(allow_null=True)
    started_at = serializers.IntegerField(help_text="ms since the epoch")
    ended_at = serializers.IntegerField(help_text="ms since the epoch")
    voided = serializers.BooleanField()
    events = component("Event", many=True)
    result = component("Result", allow_null=True)
    fairness = FairnessOut()
    deck = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Staff only: the whole deck."
    )


class ReplayStepOut(serializers.Serializer[dict[str, Any]]):
    events = component("Event", many=True, help_text="What this step did that you could see.")
    view = component("View", help_text="The game's view after this step, as you saw it then.")
    actors = serializers.ListField(
        child=serializers.IntegerField(), help_text="The player indices whose move it was next."
    )
    finished = serializers.BooleanField(help_text="The rules ended the hand at this step.")
    result = component(
        "Result", allow_null=True, help_text="The hand's result: on the last step only."
    )


class ReplayStepsOut(serializers.Serializer[dict[str, Any]]):
    hand = serializers.IntegerField()
    table = serializers.IntegerField()
    game = serializers.ChoiceField(choices=game_choices())
    number = serializers.IntegerField()
    stake = serializers.IntegerField()
    players = HandPlayerOut(many=True)
    you = serializers.IntegerField(allow_null=True)
    voided = serializers.BooleanField()
    steps = ReplayStepOut(many=True, help_text="The deal, then one step per change, in order.")


class PhhOut(serializers.Serializer[dict[str, Any]]):
    hand = serializers.IntegerField()
    complete = serializers.BooleanField(
        help_text="Every hole card is written (staff); else others' unshown cards are `????`."
    )
    phh = serializers.CharField(help_text="The hand history in PHH (TOML text).")


# -- leaderboard and fairness -------------------------------------------------


class LeaderboardQuery(StrictQuery):
    game = serializers.ChoiceField(choices=game_choices())
    period = serializers.ChoiceField(choices=["week", "all"], required=False, default="week")
    limit = serializers.IntegerField(min_value=1, max_value=100, required=False, default=50)


class LeaderboardEntry(serializers.Serializer[dict[str, Any]]):
    rank = serializers.IntegerField()
    user_id = serializers.IntegerField()
    name = serializers.CharField()
    avatar = serializers.CharField(help_text="The player's avatar (`PlayerOut.avatar`).")
    net = serializers.IntegerField(help_text="Chips won minus chips lost.")
    hands = serializers.IntegerField()


class LeaderboardOut(serializers.Serializer[dict[str, Any]]):
    game = serializers.ChoiceField(choices=game_choices())
    period = serializers.ChoiceField(choices=["week", "all"])
    since = serializers.DateTimeField(
        allow_null=True, help_text="Monday 00:00 Asia/Ho_Chi_Minh for `week`."
    )
    entries = LeaderboardEntry(many=True)


class PlayerOut(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    avatar = serializers.CharField(help_text="Its key: the seats' `avatar`.")
    avatar_url = serializers.CharField(help_text="The SVG file.")
    bot = serializers.BooleanField()
    hands = serializers.IntegerField(help_text="Settled hands played, every game, all time.")
    net_week = serializers.IntegerField(
        help_text="Chips won minus chips lost in the hands that ended this week."
    )
    since = serializers.DateTimeField(help_text="This week: Monday 00:00 Asia/Ho_Chi_Minh.")


class FairnessIn(StrictIn):
    server_seed = serializers.RegexField(HEX64, help_text="64 hex digits, shown after the hand.")
    hand_id = serializers.CharField(
        max_length=64, trim_whitespace=False, help_text="`fair_id`: `<table>-<number>`."
    )
    client_seeds = serializers.ListField(
        child=serializers.CharField(max_length=64, allow_blank=True, trim_whitespace=False),
        max_length=9,
        required=False,
        default=list,
    )
    commitment = serializers.RegexField(
        HEX64, required=False, help_text="The commitment shown before the hand."
    )
    seed_sources = serializers.ListField(
        child=serializers.ChoiceField(choices=["player", "bot", "server"]),
        max_length=9,
        required=False,
        help_text="Not used: a replay's `fairness` may be sent back as it is.",
    )


class FairnessVerifyOut(serializers.Serializer[dict[str, Any]]):
    deck = serializers.ListField(child=serializers.CharField(), min_length=52, max_length=52)
    commitment = serializers.CharField(help_text="sha256 of the server seed.")
    matches = serializers.BooleanField(
        allow_null=True, help_text="The seed matches the given commitment (null: none given)."
    )


class TableStateQuery(StrictQuery):
    invite = serializers.CharField(max_length=16, required=False, allow_blank=True, default="")
    since = serializers.IntegerField(
        min_value=0, max_value=2**62, required=False, allow_null=True, default=None
    )


class RulesSectionOut(serializers.Serializer[dict[str, Any]]):
    id = serializers.CharField(help_text="Its anchor on the rules page.")
    title = serializers.CharField(help_text="In the request's language.")
    contract = serializers.CharField(
        help_text='Where the rules contract says it: "docs/rules.md 2.6".'
    )
    url = serializers.CharField(help_text="The section on the rules page (HTML, any language).")


class RulesDifferenceOut(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(help_text="A field of the ruleset (a key of `numbers`).")
    value = serializers.JSONField(help_text="The table's.")
    preset_value = serializers.JSONField(help_text="The preset's.")


class RulesTableOut(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    differences = RulesDifferenceOut(many=True, help_text="The rules the table changed.")
    numbers = serializers.DictField(
        child=serializers.JSONField(),
        help_text="The table's own numbers: its stake, seats and table knobs (e.g. a raise cap).",
    )


class RulesOut(serializers.Serializer[dict[str, Any]]):
    game = serializers.CharField()
    preset = serializers.CharField()
    preset_label = serializers.CharField()
    url = serializers.CharField(help_text="The rules page (HTML).")
    numbers = serializers.DictField(
        child=serializers.JSONField(),
        help_text=(
            "Every field of the ruleset played (docs/rules.md names them): the preset's, "
            "or the table's with its own options."
        ),
    )
    sections = RulesSectionOut(many=True, help_text="The page's sections of prose.")
    table = RulesTableOut(allow_null=True, help_text="Null unless asked for a table's rules.")
