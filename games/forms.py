"""Lobby forms: creating a table and quick join."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.limits import (
    FIELD_RANGES,
    SEATS,
    check_table,
    game_settings,
    range_errors,
    service_error_fields,
)
from games.plugins import PLUGINS, Knob, game_choices, plugin_for
from kernel.errors import ServiceError

QUICK_STAKES = (10, 50, 100, 200)
#: The table knobs only some games have that players set (the lobby shows
#: each game its own): a field each, made from the knob.
GAME_KNOBS: dict[str, Knob] = {
    name: knob for p in PLUGINS.values() for name in p.player_fields() for knob in [p.knobs[name]]
}
GAME_FIELDS = tuple(GAME_KNOBS)


def knob_field(name: str, knob: Knob) -> forms.Field:
    """The form field of a number knob (a table's own numbers are numbers)."""
    assert knob.kind == "number"
    assert knob.range is not None
    return forms.IntegerField(
        label=knob.label or name,
        min_value=knob.range.low,
        max_value=knob.range.high,
        required=not knob.nullable,
        initial=knob.default,
        error_messages=range_errors(name, knob.range),
    )


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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, knob in GAME_KNOBS.items():
            self.fields[name] = knob_field(name, knob)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        game, preset = data.get("game"), data.get("preset")
        if game and preset and preset not in {p for p, _name in plugin_for(game).presets}:
            self.add_error("preset", _("These rules are not offered for this game."))
        if not game or "preset" in self.errors:
            return data
        # The one check of a table's numbers and settings (games.limits).
        try:
            settings, _numbers = game_settings(game, {}, self.game_fields(game, data))
            check_table(
                game=game,
                preset=preset,
                settings=settings,
                stake=data.get("stake"),
                seat_count=data.get("seat_count"),
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
        own = plugin_for(game).player_fields()
        return {name: data.get(name) for name in GAME_FIELDS if name in own and name in self.fields}


class QuickJoinForm(forms.Form):
    game = forms.ChoiceField(choices=game_choices)
    stake = forms.IntegerField(min_value=1)
