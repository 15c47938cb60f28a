"""Signing up, on the page and in the API: a new player is a user (accounts)
with a wallet and the sign-up grant (wallet), so the site composes it
(``wallet.services.player_signup``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import login
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import SignupIn, TokenOut, device_fields, tokens_body
from accounts.forms import SignupForm
from accounts.limits import TooManyAttempts, signup_take, too_many
from accounts.models import User
from accounts.recovery import email_at_signup
from accounts.services import device_of
from accounts.sessions import session_start
from kernel.api.idempotency import idempotent
from kernel.api.schema import errors
from wallet.services import player_signup


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignupForm(request.POST or None)
    next_url = _next_url(request)
    if request.method == "POST" and form.is_valid():
        try:
            signup_take(request)
        except TooManyAttempts as err:
            return too_many(request, err.params["wait"])
        user = signup_with_email(
            email=form.cleaned_data["email"],
            username=form.cleaned_data["username"],
            display_name=form.cleaned_data["display_name"],
            password=form.cleaned_data["password1"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(next_url or "home")
    return render(request, "registration/signup.html", {"form": form, "next": next_url})


@transaction.atomic
def signup_with_email(*, email: str = "", **fields: Any) -> User:
    """A new player (``player_signup``) and, if given, their address: pending,
    its verification link mailed once the account is committed."""
    user = player_signup(**fields)
    if email:
        email_at_signup(user=user, email=email)
    return user


def _next_url(request: HttpRequest) -> str:
    """Where to go after signing up: ``next`` when it is a page of this site."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        wanted, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return wanted if safe else ""


class SignupView(APIView):
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    @extend_schema(
        operation_id="auth_signup",
        summary="Sign up",
        description=(
            "Creates a player with the sign-up grant of chips and starts a session for this "
            "device (the tokens, as `POST /api/v1/auth/login` answers them). "
            "The password must pass Django's validators (`details.password`). Sign-ups "
            "are limited per client address, web and API together (`SIGNUP_RATE`, "
            "`throttled` with `details.wait`). Names that impersonate are refused with "
            '`details.field` (docs/security.md, "Names and player cards"): control, '
            "invisible or text-direction characters (`name_characters`), floods of "
            "accent marks (`name_marks`), staff words or a bot's name (`name_reserved`), "
            "another player's name under any look-alike spelling (`name_taken`), a "
            "look-alike of a username (`username_taken`)."
        ),
        request=SignupIn,
        responses={
            201: TokenOut,
            **errors(
                400,
                429,
                bad=[
                    "name_characters",
                    "name_marks",
                    "name_reserved",
                    "name_taken",
                    "username_taken",
                ],
            ),
        },
        auth=[],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = SignupIn(data=request.data)
        data.is_valid(raise_exception=True)
        signup_take(request._request)
        fields = dict(data.validated_data)
        device = device_of(request._request, **device_fields(fields))
        user = signup_with_email(**fields)
        body = tokens_body(session_start(user=user, **device), user)
        return Response(body, status=status.HTTP_201_CREATED)
