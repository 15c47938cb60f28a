"""What the tournaments API reads (a new Sit & Go) and answers."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from kernel.api.strict import StrictIn
from tournaments import levels, services
from tournaments.models import Entry, Tournament


class Ranged(serializers.IntegerField):
    """An integer whose range the schema states and the services check: out of
    it, ``bad_tournament`` (``tournament_create``), not this serializer's
    ``invalid``."""

    def __init__(self, low: int, high: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.min_value, self.max_value = low, high  # (the schema's; no validator)


def _games_help() -> str:
    sizes = ", ".join(
        f"{game} ({' or '.join(map(str, seats))})" for game, seats in services.sit_and_go_games()
    )
    return f"A game with Sit & Gos, with the table sizes it offers: {sizes}."


class TournamentCreateIn(StrictIn):
    """A player's Sit & Go. The numbers' ranges are the services' (out of
    range, a game without Sit & Gos or a size it does not offer:
    ``bad_tournament``, with the range in its message)."""

    game = serializers.CharField(max_length=20, help_text=_games_help())
    seats = Ranged(
        2,
        max(size for _game, sizes in services.sit_and_go_games() for size in sizes),
        help_text="Players: a table size the game offers for Sit & Gos.",
    )
    buy_in = Ranged(1, services.BUY_IN_MAX, help_text="Chips to the prize pool (no fee).")
    allow_bots = serializers.BooleanField(required=False, default=False)
    bots_after_seconds = Ranged(
        0,
        24 * 3600,
        required=False,
        default=300,
        help_text="Bots may take the empty places after this wait (with someone registered).",
    )
    level_seconds = Ranged(
        *services.LEVEL_SECONDS, required=False, default=300, help_text="Each level's length."
    )
    starting_chips = Ranged(
        *services.STARTING_CHIPS, required=False, default=1500, help_text="Tournament chips each."
    )


class LevelOut(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField(help_text="From 1.")
    seconds = serializers.IntegerField(help_text="How long it lasts (the last one holds).")
    stake = serializers.IntegerField(
        help_text="The table's stake: Poker's big blind, else the chips per scoring unit."
    )
    small_blind = serializers.IntegerField(help_text="Poker (0 otherwise).")
    big_blind = serializers.IntegerField(help_text="Poker (0 otherwise).")
    ante = serializers.IntegerField(help_text="Poker, each player (0 otherwise).")


class LevelNowOut(LevelOut):
    next_in = serializers.FloatField(
        allow_null=True, help_text="Seconds until the next level (null: this is the last)."
    )


class TournamentEntryOut(serializers.ModelSerializer[Entry]):
    user_id = serializers.IntegerField(source="player_id")
    name = serializers.CharField(source="player.shown_name")

    class Meta:
        model = Entry
        fields = ("user_id", "name", "is_bot", "status", "place", "prize", "registered_at")
        read_only_fields = fields


class TournamentOut(serializers.ModelSerializer[Tournament]):
    registered = serializers.IntegerField(help_text="Places taken.")
    tables = serializers.SerializerMethodField(
        help_text="Its tables (GET /api/v1/tables/<id>: to watch or play), once it started."
    )
    mine = serializers.SerializerMethodField(
        help_text="You hold a place in it (registered, playing or finished)."
    )

    class Meta:
        model = Tournament
        fields: tuple[str, ...] = (
            "id",
            "kind",
            "game",
            "seats",
            "buy_in",
            "fee",
            "status",
            "registered",
            "allow_bots",
            "starting_chips",
            "level_kind",
            "created_at",
            "started_at",
            "ended_at",
            "tables",
            "mine",
        )
        read_only_fields: tuple[str, ...] = fields

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_tables(self, obj: Tournament) -> list[int]:
        return [t.table_id for t in obj.tables.all()]

    def get_mine(self, obj: Tournament) -> bool:
        # (the list's annotation: tournaments.api.views.TournamentsView)
        return bool(getattr(obj, "is_mine", False))


class TournamentDetailOut(TournamentOut):
    levels = serializers.SerializerMethodField(help_text="The level schedule, fixed at creation.")
    prizes = serializers.SerializerMethodField(
        help_text=(
            "The pool (`buy_in` x the field: a Sit & Go's `seats`, a scheduled "
            "tournament's entrants so far) paid by place, first place first (the odd "
            "chips to first place; players out in one hand share their places' prizes)."
        )
    )
    entries = serializers.SerializerMethodField(
        help_text="Who registered (not those who unregistered), in order of registration."
    )
    level = serializers.SerializerMethodField(
        help_text="The level in play while it runs (null before the start and once over)."
    )
    players_left = serializers.SerializerMethodField(
        help_text="Players still in (with chips); before the start, those registered."
    )

    class Meta(TournamentOut.Meta):
        fields = (
            *TournamentOut.Meta.fields,
            "levels",
            "prizes",
            "entries",
            "level",
            "players_left",
        )
        read_only_fields = fields

    @extend_schema_field(LevelOut(many=True))
    def get_levels(self, obj: Tournament) -> list[dict[str, int]]:
        return levels.dumps(levels.loads(obj.levels))

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_prizes(self, obj: Tournament) -> list[int]:
        taken = (Entry.Status.REGISTERED, Entry.Status.PLAYING, Entry.Status.FINISHED)
        return services.prizes_by_place(obj, sum(e.status in taken for e in obj.entries.all()))

    @extend_schema_field(TournamentEntryOut(many=True))
    def get_entries(self, obj: Tournament) -> list[dict[str, Any]]:
        shown = [e for e in obj.entries.all() if e.status != Entry.Status.UNREGISTERED]
        return TournamentEntryOut(shown, many=True).data  # type: ignore[return-value]

    def get_mine(self, obj: Tournament) -> bool:
        user = self.context.get("user")
        return user is not None and any(
            e.player_id == user.pk
            and e.status != Entry.Status.UNREGISTERED
            and e.status != Entry.Status.REFUNDED
            for e in obj.entries.all()
        )

    def get_players_left(self, obj: Tournament) -> int:
        still = (Entry.Status.REGISTERED, Entry.Status.PLAYING)
        return sum(e.status in still for e in obj.entries.all())

    @extend_schema_field(LevelNowOut(allow_null=True))
    def get_level(self, obj: Tournament) -> dict[str, Any] | None:
        now = services.level_in_play(obj)
        if now is None:
            return None
        level, next_in = now
        return {**level.as_dict(), "next_in": next_in}
