"""Lobby forms: creating a table and quick join."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.limits import FIELD_RANGES, check_table, service_error_fields
from games.models import Game
from vipgame.errors import ServiceError

PRESETS: dict[str, list[tuple[str, Any]]] = {
    Game.MAUBINH: [
        ("vipgame", "VIPGAME"),
        ("maubinh_com", "maubinh.com"),
        ("classic", _("Classic")),
    ],
    Game.TIENLEN: [("vipgame", "VIPGAME")],
    Game.HOLDEM: [("vipgame", "VIPGAME")],
}
QUICK_STAKES = (10, 50, 100, 200)


class TableCreateForm(forms.Form):
    game = forms.ChoiceField(label=_("Game"), choices=Game.choices)
    preset = forms.ChoiceField(
        label=_("Rules"),
        choices=sorted({p for presets in PRESETS.values() for p in presets}, key=str),
        initial="vipgame",
    )
    name = forms.CharField(label=_("Table name"), max_length=60, required=False)
    stake = forms.IntegerField(
        label=_("Stake (chips)"), min_value=1, max_value=FIELD_RANGES["stake"].high, initial=10
    )
    seat_count = forms.IntegerField(label=_("Seats"), min_value=2, max_value=9, initial=4)
    is_private = forms.BooleanField(
        label=_("Private (by invite link)"), required=False, initial=False
    )
    max_raise = forms.IntegerField(
        label=_("Raise cap (stakes, empty = no limit)"),
        min_value=1,
        max_value=FIELD_RANGES["max_raise"].high,
        required=False,
    )
    buy_in_min = forms.IntegerField(
        label=_("Minimum buy-in (big blinds)"),
        min_value=1,
        max_value=FIELD_RANGES["buy_in_min"].high,
        initial=20,
    )
    buy_in_max = forms.IntegerField(
        label=_("Maximum buy-in (big blinds)"),
        min_value=1,
        max_value=FIELD_RANGES["buy_in_max"].high,
        initial=100,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        game, preset = data.get("game"), data.get("preset")
        if game and preset and preset not in {p for p, _name in PRESETS[game]}:
            self.add_error("preset", _("These rules are not offered for this game."))
        if not game or "preset" in self.errors:
            return data
        holdem = game == Game.HOLDEM
        # The one check of a table's numbers and options (games.limits).
        try:
            check_table(
                game=game,
                preset=preset,
                stake=data.get("stake"),
                seat_count=data.get("seat_count"),
                max_raise=data.get("max_raise") if holdem else None,
                buy_in_min=data.get("buy_in_min") if holdem else 20,
                buy_in_max=data.get("buy_in_max") if holdem else 100,
            )
        except ServiceError as err:
            for name, problems in service_error_fields(err).items():
                field = name if name in self.fields else None
                if field in self.errors:
                    continue  # already refused by the field itself
                for problem in problems if isinstance(problems, list) else [problems]:
                    self.add_error(field, str(problem))
        return data


class QuickJoinForm(forms.Form):
    game = forms.ChoiceField(choices=Game.choices)
    stake = forms.IntegerField(min_value=1)
