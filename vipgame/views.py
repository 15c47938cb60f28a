from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.plugins import PLUGINS
from wallet.selectors import bonus_claimed_today, user_account


def home(request: HttpRequest) -> HttpResponse:
    """The front page: a welcome with the daily bonus once logged in, the games
    as tiles that open their lobby, and "play now" with bots."""
    user = request.user
    context = {
        "signup_grant": settings.SIGNUP_GRANT,
        "daily_bonus": settings.DAILY_BONUS,
        "games": list(PLUGINS.values()),
    }
    if user.is_authenticated:
        context["account"] = user_account(user)
        context["bonus_claimed"] = bonus_claimed_today(user)
    return render(request, "home.html", context)
