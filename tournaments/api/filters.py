import django_filters

from games.api.filters import IntegerFilter
from games.plugins import game_choices
from kernel.api.filters import StrictFilterSet
from tournaments.models import Tournament


class TournamentFilter(StrictFilterSet):
    game = django_filters.ChoiceFilter(choices=game_choices())
    buy_in = IntegerFilter(min_value=1, help_text="Exactly this buy-in.")
    buy_in_min = IntegerFilter(field_name="buy_in", lookup_expr="gte", min_value=1)
    buy_in_max = IntegerFilter(field_name="buy_in", lookup_expr="lte", min_value=1)
    table = IntegerFilter(
        field_name="tables__table_id",
        min_value=1,
        help_text="The tournament that plays at this table.",
    )
    status = django_filters.ChoiceFilter(
        choices=Tournament.Status.choices,
        help_text="Without it: those registering and those running.",
    )

    class Meta:
        model = Tournament
        fields = ["game", "buy_in", "buy_in_min", "buy_in_max", "table", "status"]
