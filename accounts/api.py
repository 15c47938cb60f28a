"""Accounts API: log in for a token, log out (revokes it), who am I, avatars (signing up
composes accounts and wallet: ``vipgame.signup``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.api.schema import errors
from kernel.api.strict import StrictIn

from .avatars import FACES, avatar_url
from .models import User
from .names import display_name_check, username_check
from .services import (
    avatar_set,
    password_change,
    token_login,
    token_logout,
)


class UserOut(serializers.ModelSerializer[User]):
    avatar = serializers.CharField(
        source="avatar_key",
        help_text="The avatar picked (`POST /api/v1/me/avatar`), else the one the id gives.",
    )
    avatar_url = serializers.SerializerMethodField()

    class Meta:
        model = User
        fields = (
            "id",
            "username",
            "display_name",
            "avatar",
            "avatar_url",
            "is_staff",
            "date_joined",
        )
        read_only_fields = fields

    def get_avatar_url(self, user: User) -> str:
        return avatar_url(user.avatar_key)


class AvatarOut(serializers.Serializer[dict[str, Any]]):
    key = serializers.CharField()
    name = serializers.CharField(help_text="In the request's language.")
    url = serializers.CharField(help_text="The SVG file.")


class AvatarsOut(serializers.Serializer[dict[str, Any]]):
    avatar = serializers.CharField(help_text="Yours: picked, else the one your id gives.")
    picked = serializers.BooleanField(help_text="Whether you picked it.")
    avatars = AvatarOut(many=True, help_text="Those you may pick.")


@extend_schema_field({"type": "string", "enum": [face.key for face in FACES]})
class AvatarKeyField(serializers.JSONField):
    """Any JSON, as sent: a value that is not a face's key is ``unknown_avatar``
    (with the keys) from ``avatar_set``, as in the schema's enum."""


class AvatarIn(StrictIn):
    avatar = AvatarKeyField(help_text="One of the keys of `GET /api/v1/me/avatar`.")


class LoginIn(StrictIn):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class TokenOut(serializers.Serializer[dict[str, Any]]):
    token = serializers.CharField(
        help_text="Send as `Authorization: Token <token>` over HTTP and on the WebSocket."
    )
    user = UserOut()


class SignupIn(StrictIn):
    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    display_name = serializers.CharField(max_length=40)
    password = serializers.CharField(max_length=128, trim_whitespace=False)

    def validate_username(self, value: str) -> str:
        return username_check(username=value)

    def validate_display_name(self, value: str) -> str:
        return display_name_check(name=value)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = User(username=attrs["username"], display_name=attrs["display_name"])
        try:
            validate_password(attrs["password"], candidate)
        except DjangoValidationError as err:
            raise serializers.ValidationError({"password": list(err.messages)}) from None
        return attrs


class PasswordIn(StrictIn):
    old_password = serializers.CharField(max_length=128, trim_whitespace=False)
    new_password = serializers.CharField(max_length=128, trim_whitespace=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            validate_password(attrs["new_password"], self.context["user"])
        except DjangoValidationError as err:
            raise serializers.ValidationError({"new_password": list(err.messages)}) from None
        return attrs


LIMITS = (
    "Per client address (docs/security.md): `LOGIN_RATE` attempts and "
    "`LOGIN_FAILURE_RATE` failures over every username, then `throttled` (429, "
    "`details.wait`), even with the right password. Per server process, at most "
    "`PASSWORD_CHECKS_AT_ONCE` password checks run at once: past a short wait, `busy` "
    "(503, `Retry-After`), with no password checked."
)


class LoginView(APIView):
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    @extend_schema(
        operation_id="auth_login",
        summary="Log in for an API token",
        description=(
            "Checks the password through django-axes: 5 failures for a username from one "
            "address lock it out for 15 minutes (`locked_out`, 429). Bots never log in. "
            "The token is the same on every device until log-out or a password change. " + LIMITS
        ),
        request=LoginIn,
        responses={
            200: TokenOut,
            **errors(400, 429, bad=["invalid_credentials"], throttle=["locked_out"], busy=["busy"]),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = LoginIn(data=request.data)
        data.is_valid(raise_exception=True)
        user, token = token_login(
            request=request._request,
            username=data.validated_data["username"],
            password=data.validated_data["password"],
        )
        return Response(TokenOut({"token": token, "user": user}).data)


class LogoutView(APIView):
    @extend_schema(
        operation_id="auth_logout",
        summary="Log out: revoke the API token",
        description=(
            "Deletes the caller's token (on every device: HTTP and new WebSocket "
            "connections refuse it; open sockets opened with it are closed with code "
            "4400) and ends the browser session if there is one."
        ),
        request=None,
        responses={204: None, **errors(401, 403, 429)},
    )
    def post(self, request: Request) -> Response:
        token_logout(request=request._request, user=request.user)  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordView(APIView):
    @extend_schema(
        operation_id="auth_password",
        summary="Change your password",
        description=(
            "Checks the current password and Django's validators "
            "(`details.new_password`), then revokes every API token and browser session "
            "of the account and closes its open sockets (code 4400): every device must "
            "log in again. Answers a new token for this client."
        ),
        request=PasswordIn,
        responses={
            200: TokenOut,
            **errors(400, 401, 403, 429, bad=["wrong_password"], busy=["busy"]),
        },
    )
    def post(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        data = PasswordIn(data=request.data, context={"user": user})
        data.is_valid(raise_exception=True)
        token = password_change(
            user=user,
            old_password=data.validated_data["old_password"],
            new_password=data.validated_data["new_password"],
        )
        return Response(TokenOut({"token": token, "user": user}).data)


class MeView(APIView):
    @extend_schema(
        operation_id="me",
        summary="The logged-in player",
        responses={200: UserOut, **errors(401)},
    )
    def get(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        return Response(UserOut(user).data)


class MyAvatarView(APIView):
    @extend_schema(
        operation_id="me_avatars",
        summary="My avatar and those I may pick",
        description="Illustrations of the site's own, each an SVG file.",
        responses={200: AvatarsOut, **errors(401)},
    )
    def get(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        faces = [{"key": f.key, "name": str(f.label), "url": avatar_url(f.key)} for f in FACES]
        body = {"avatar": user.avatar_key, "picked": bool(user.avatar), "avatars": faces}
        return Response(AvatarsOut(body).data)

    @extend_schema(
        operation_id="me_avatar",
        summary="Pick my avatar",
        description=(
            "One of the keys of `GET /api/v1/me/avatar` (`unknown_avatar` otherwise, with "
            "`details.avatars`). Tables show it from their next state on."
        ),
        request=AvatarIn,
        responses={200: UserOut, **errors(400, 401, 429, bad=["unknown_avatar"])},
    )
    def post(self, request: Request) -> Response:
        data = AvatarIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = avatar_set(user=request.user, avatar=data.validated_data["avatar"])  # type: ignore[arg-type]
        return Response(UserOut(user).data)
