from typing import Any

import django_filters
from django import forms
from drf_spectacular.drainage import set_override

from games.models import HandPlayer, Table
from games.plugins import game_choices
from kernel.api.filters import StrictFilterSet


class IntegerFilter(django_filters.NumberFilter):
    """An integer of at least ``min_value``, in the schema as in the form."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, min_value: int, **kwargs: Any) -> None:
        super().__init__(*args, min_value=min_value, **kwargs)
        set_override(self, "field", {"type": "integer", "minimum": min_value})


class TableFilter(StrictFilterSet):
    game = django_filters.ChoiceFilter(choices=game_choices())
    stake = IntegerFilter(min_value=1, help_text="Exactly this stake.")
    stake_min = IntegerFilter(field_name="stake", lookup_expr="gte", min_value=1)
    stake_max = IntegerFilter(field_name="stake", lookup_expr="lte", min_value=1)
    free_seats = IntegerFilter(
        field_name="free_seats", lookup_expr="gte", min_value=0, help_text="At least this many."
    )

    class Meta:
        model = Table
        fields = ["game", "stake", "stake_min", "stake_max", "free_seats"]


class HandFilter(StrictFilterSet):
    game = django_filters.ChoiceFilter(field_name="hand__game", choices=game_choices())
    date = django_filters.DateFromToRangeFilter(
        field_name="hand__ended_at",
        help_text="`date_after` / `date_before` (YYYY-MM-DD, inclusive, Asia/Ho_Chi_Minh days).",
    )

    class Meta:
        model = HandPlayer
        fields = ["game", "date"]
