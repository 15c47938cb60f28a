"""Lobby forms: creating a table and quick join."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.limits import FIELD_RANGES, SEATS, check_table, range_errors, service_error_fields
from games.plugins import PLUGINS, game_choices, plugin_for, table_default
from kernel.errors import ServiceError

QUICK_STAKES = (10, 50, 100, 200)
#: The fields only some games use (the lobby shows each game its own).
GAME_FIELDS = tuple(dict.fromkeys(f for p in PLUGINS.values() for f in p.table_fields))


class TableCreateForm(forms.Form):
    game = forms.ChoiceField(label=_("Game"), choices=game_choices)
    preset = forms.ChoiceField(
        label=_("Rules"),
        choices=sorted({p for plugin in PLUGINS.values() for p in plugin.presets}, key=str),
        initial="vipgame",
    )
    name = forms.CharField(label=_("Table name"), max_length=60, required=False)
    stake = forms.IntegerField(
        label=_("Stake (chips)"),
        min_value=1,
        max_value=FIELD_RANGES["stake"].high,
        initial=10,
        error_messages=range_errors("stake"),
    )
    seat_count = forms.IntegerField(
        label=_("Seats"),
        min_value=SEATS.low,
        max_value=SEATS.high,
        initial=4,
        error_messages=range_errors("seat_count", SEATS),
    )
    is_private = forms.BooleanField(
        label=_("Private (by invite link)"), required=False, initial=False
    )
    max_raise = forms.IntegerField(
        label=_("Raise cap (stakes, empty = no limit)"),
        min_value=1,
        max_value=FIELD_RANGES["max_raise"].high,
        required=False,
        error_messages=range_errors("max_raise"),
    )
    buy_in_min = forms.IntegerField(
        label=_("Minimum buy-in (big blinds)"),
        min_value=1,
        max_value=FIELD_RANGES["buy_in_min"].high,
        initial=table_default("buy_in_min"),
        error_messages=range_errors("buy_in_min"),
    )
    buy_in_max = forms.IntegerField(
        label=_("Maximum buy-in (big blinds)"),
        min_value=1,
        max_value=FIELD_RANGES["buy_in_max"].high,
        initial=table_default("buy_in_max"),
        error_messages=range_errors("buy_in_max"),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        game, preset = data.get("game"), data.get("preset")
        if game and preset and preset not in {p for p, _name in plugin_for(game).presets}:
            self.add_error("preset", _("These rules are not offered for this game."))
        if not game or "preset" in self.errors:
            return data
        # The one check of a table's numbers and options (games.limits).
        try:
            check_table(
                game=game,
                preset=preset,
                stake=data.get("stake"),
                seat_count=data.get("seat_count"),
                **self.game_fields(game, data),
            )
        except ServiceError as err:
            for name, problems in service_error_fields(err).items():
                field = name if name in self.fields else None
                if field in self.errors:
                    continue  # already refused by the field itself
                for problem in problems if isinstance(problems, list) else [problems]:
                    self.add_error(field, str(problem))
        return data

    def game_fields(self, game: str, data: dict[str, Any]) -> dict[str, Any]:
        """The values of the fields this game uses of those only some games use."""
        own = plugin_for(game).table_fields
        return {name: data.get(name) for name in GAME_FIELDS if name in own and name in self.fields}


class QuickJoinForm(forms.Form):
    game = forms.ChoiceField(choices=game_choices)
    stake = forms.IntegerField(min_value=1)
