from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.models import Table
from games.plugins import PLUGINS
from games.selectors import my_lobby_entries
from wallet.selectors import bonus_claimed_today, user_account


def home(request: HttpRequest) -> HttpResponse:
    """The front page: a welcome with the daily bonus once logged in and "your
    tables" (where they sit, what they own, where they were invited), the
    games as tiles that open their lobby, and "play now" with bots."""
    user = request.user
    context = {
        "signup_grant": settings.SIGNUP_GRANT,
        "daily_bonus": settings.DAILY_BONUS,
        "games": list(PLUGINS.values()),
    }
    if user.is_authenticated:
        context["account"] = user_account(user)
        context["bonus_claimed"] = bonus_claimed_today(user)
        context["my_tables"] = [
            {
                **entry,
                "label": PLUGINS[entry["game"]].label,
                "status_label": Table.Status(entry["status"]).label,
            }
            for entry in my_lobby_entries(user=user)
            if entry["game"] in PLUGINS
        ]
    return render(request, "home.html", context)
