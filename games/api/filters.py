import django_filters
from django import forms

from games.models import Game, HandPlayer, Table


class IntegerFilter(django_filters.NumberFilter):
    field_class = forms.IntegerField


class TableFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    stake = IntegerFilter(min_value=1, help_text="Exactly this stake.")
    stake_min = IntegerFilter(field_name="stake", lookup_expr="gte", min_value=1)
    stake_max = IntegerFilter(field_name="stake", lookup_expr="lte", min_value=1)
    free_seats = IntegerFilter(
        field_name="free_seats", lookup_expr="gte", min_value=0, help_text="At least this many."
    )

    class Meta:
        model = Table
        fields = ["game", "stake", "stake_min", "stake_max", "free_seats"]


class HandFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(field_name="hand__game", choices=Game.choices)
    date = django_filters.DateFromToRangeFilter(
        field_name="hand__ended_at",
        help_text="`date_after` / `date_before` (YYYY-MM-DD, inclusive, Asia/Ho_Chi_Minh days).",
    )

    class Meta:
        model = HandPlayer
        fields = ["game", "date"]
