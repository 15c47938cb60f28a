from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from wallet.selectors import user_account


def home(request: HttpRequest) -> HttpResponse:
    account = user_account(request.user) if request.user.is_authenticated else None
    return render(request, "home.html", {"account": account, "signup_grant": settings.SIGNUP_GRANT})
