"""Accounts API: log in for a device session's tokens, refresh them, log out (this
device, another one, everywhere), the device list, who am I, avatars, the e-mail
address and password reset (signing up composes accounts and wallet:
``vipgame.signup``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import SESSION_KEY, update_session_auth_hash
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.api.idempotency import idempotent
from kernel.api.schema import errors
from kernel.api.strict import StrictIn
from kernel.net import client_ip

from .avatars import FACES, avatar_url
from .errors import DeviceSessionUnknown
from .models import BrowserSession, DeviceSession, User
from .names import display_name_check, username_check
from .recovery import (
    email_set,
    email_verify,
    password_reset_confirm,
    password_reset_request,
    verification_resend,
)
from .services import (
    avatar_set,
    logout_everywhere,
    password_change,
    token_login,
    token_logout,
)
from .sessions import (
    Issued,
    browser_sessions_end,
    session_refresh,
    sessions_end,
    sessions_listed,
)


class UserOut(serializers.ModelSerializer[User]):
    avatar = serializers.CharField(
        source="avatar_key",
        help_text="The avatar picked (`POST /api/v1/me/avatar`), else the one the id gives.",
    )
    avatar_url = serializers.SerializerMethodField()
    email = serializers.CharField(
        help_text="The verified address, where reset mails go; empty: none (docs/api.md)."
    )
    email_pending = serializers.CharField(
        help_text=(
            "An address waiting for the link mailed to it to be opened; empty: none. "
            "It becomes `email` then."
        )
    )

    class Meta:
        model = User
        fields = (
            "id",
            "username",
            "display_name",
            "avatar",
            "avatar_url",
            "email",
            "email_pending",
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


class DeviceIn(StrictIn):
    """What a log-in may say of the device, shown in its list of sessions."""

    device_name = serializers.CharField(
        max_length=60,
        required=False,
        allow_blank=True,
        help_text="Shown in the list of sessions, e.g. “Lan's iPhone”.",
    )
    platform = serializers.ChoiceField(
        choices=DeviceSession.Platform.values,
        required=False,
        help_text="The device's platform (`other` when not sent).",
    )


def device_fields(data: dict[str, Any]) -> dict[str, str]:
    """The device's fields of a validated log-in or sign-up, taken out of it."""
    return {
        "name": data.pop("device_name", ""),
        "platform": data.pop("platform", DeviceSession.Platform.OTHER),
    }


class LoginIn(DeviceIn):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class RefreshIn(StrictIn):
    refresh = serializers.CharField(max_length=256, help_text="The refresh token last received.")


class SessionOut(serializers.Serializer[DeviceSession]):
    id = serializers.IntegerField(
        help_text=(
            "Its id among the sessions of its `kind`: end a device at "
            "`DELETE /api/v1/me/sessions/{id}`, a browser at "
            "`DELETE /api/v1/me/browser-sessions/{id}`."
        )
    )
    kind = serializers.ChoiceField(
        choices=["device", "browser"],
        help_text=(
            "`device`: an app's log-in (its tokens); `browser`: a browser logged in "
            "to the site (its session cookie)."
        ),
    )
    name = serializers.CharField(
        help_text=(
            "A device: what the app sent at log-in (may be empty). A browser: its "
            "browser and system, read from its user agent (“Firefox 128 on Linux”)."
        )
    )
    platform = serializers.ChoiceField(
        choices=DeviceSession.Platform.values, help_text="A browser's is `web`."
    )
    user_agent = serializers.CharField()
    address = serializers.CharField(
        allow_null=True, help_text="The client address last seen (docs/security.md)."
    )
    created = serializers.DateTimeField(help_text="The log-in.")
    last_seen = serializers.DateTimeField(
        help_text=(
            "The last request with its tokens, refresh, or (a browser) its cookie (to the minute)."
        )
    )
    current = serializers.SerializerMethodField(help_text="Whether it is the caller's.")

    def get_current(self, session: DeviceSession | BrowserSession) -> bool:
        if isinstance(session, BrowserSession):
            return bool(session.pk == self.context.get("current_browser"))
        return bool(session.pk == self.context.get("current"))


class TokenOut(serializers.Serializer[dict[str, Any]]):
    token = serializers.CharField(
        help_text=(
            "The access token: send `Authorization: Bearer <token>` (or `Token <token>`) "
            "over HTTP and on the WebSocket. Good until `token_expires`."
        )
    )
    token_expires = serializers.DateTimeField()
    refresh = serializers.CharField(
        help_text=(
            "Trade it once at `POST /api/v1/auth/refresh` for a new pair; keep it "
            "secret (the device's keychain). Good until `refresh_expires`."
        )
    )
    refresh_expires = serializers.DateTimeField()
    session = SessionOut(help_text="This device's session (its `id` in `GET /api/v1/me/sessions`).")
    user = UserOut()


def tokens_body(issued: Issued, user: User) -> dict[str, Any]:
    """The answer of a log-in, a sign-up or a refresh."""
    body = {
        "token": issued.access,
        "token_expires": issued.access_expiry,
        "refresh": issued.refresh,
        "refresh_expires": issued.refresh_expiry,
        "session": issued.session,
        "user": user,
    }
    return dict(TokenOut(body, context={"current": issued.session.pk}).data)


def request_device(request: Request) -> int | None:
    """The device session whose access token authenticated the request."""
    return getattr(request.auth, "session_id", None)


def request_browser(request: Request) -> int | None:
    """The browser session whose cookie authenticated the request."""
    if request.auth is not None or request.session.get(SESSION_KEY) is None:
        return None
    key = request.session.session_key
    return BrowserSession.objects.filter(session_id=key).values_list("pk", flat=True).first()


class SignupIn(DeviceIn):
    username = serializers.CharField(max_length=150, validators=[UnicodeUsernameValidator()])
    display_name = serializers.CharField(max_length=40)
    password = serializers.CharField(max_length=128, trim_whitespace=False)
    email = serializers.EmailField(
        max_length=254,
        required=False,
        allow_blank=True,
        help_text=(
            "Optional: for password resets. A link to confirm it is mailed; until it is "
            "opened the address is `email_pending`."
        ),
    )

    def validate_username(self, value: str) -> str:
        return username_check(username=value)

    def validate_display_name(self, value: str) -> str:
        return display_name_check(name=value)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        candidate = User(
            username=attrs["username"],
            display_name=attrs["display_name"],
            email=attrs.get("email", ""),
        )
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
        summary="Log in: a session for this device",
        description=(
            "Checks the password through django-axes: 5 failures for a username from one "
            "address lock it out for 15 minutes (`locked_out`, 429). Bots never log in. "
            "Every log-in starts a device session of its own (listed in "
            "`GET /api/v1/me/sessions`): a short-lived access token and a single-use "
            "refresh token (docs/api.md). " + LIMITS
        ),
        request=LoginIn,
        responses={
            200: TokenOut,
            **errors(400, 429, bad=["invalid_credentials"], throttle=["locked_out"], busy=["busy"]),
        },
        auth=[],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = LoginIn(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        user, issued = token_login(
            request=request._request,
            username=fields.pop("username"),
            password=fields.pop("password"),
            **device_fields(fields),
        )
        return Response(tokens_body(issued, user))


class RefreshView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_refresh",
        summary="Trade the refresh token for a new pair",
        description=(
            "Answers a new access token and a new refresh token for the same device "
            "session; the access token and refresh token of before stop working. A "
            "refresh token is good once: shown again, the session it belongs to ends "
            "(`refresh_reused`: the token was copied; its sockets close with code 4400) "
            "and the app must log in again. `invalid_refresh`: unknown, expired, or the "
            "account may no longer log in. Throttled per address like every POST."
        ),
        request=RefreshIn,
        responses={
            200: TokenOut,
            **errors(400, 429, bad=["invalid_refresh", "refresh_reused"]),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = RefreshIn(data=request.data)
        data.is_valid(raise_exception=True)
        issued = session_refresh(
            refresh=data.validated_data["refresh"], address=client_ip(request._request)
        )
        return Response(tokens_body(issued, issued.session.user))


class LogoutView(APIView):
    throttle_classes: list[Any] = []  # never refused: a log-out always goes through

    @extend_schema(
        operation_id="auth_logout",
        summary="Log out this device",
        description=(
            "Ends the caller's device session (its access and refresh tokens stop "
            "working; the sockets opened with them close with code 4400) and the "
            "browser session if the request carries one. The account's other devices "
            "and browsers stay logged in. Not throttled."
        ),
        request=None,
        responses={204: None, **errors(401, 403)},
    )
    def post(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        token_logout(request=request._request, user=user, device=request_device(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAllView(APIView):
    throttle_classes: list[Any] = []

    @extend_schema(
        operation_id="auth_logout_all",
        summary="Log out everywhere",
        description=(
            "Ends every device session and browser session of the account, the "
            "caller's too; every socket of the account closes (code 4400). Not throttled."
        ),
        request=None,
        responses={204: None, **errors(401, 403)},
    )
    def post(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        logout_everywhere(request=request._request, user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SessionsView(APIView):
    @extend_schema(
        operation_id="me_sessions",
        summary="My devices: the sessions logged in",
        description=(
            "Every live session of the account, the most recently seen first: the "
            "apps' device sessions (`kind` `device`) and the browsers logged in to the "
            "site (`kind` `browser`); `current` marks the caller's."
        ),
        responses={200: SessionOut(many=True), **errors(401)},
    )
    def get(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        context = {"current": request_device(request), "current_browser": request_browser(request)}
        rows = SessionOut(sessions_listed(user), many=True, context=context)  # type: ignore[arg-type]
        return Response(rows.data)


class SessionView(APIView):
    throttle_classes: list[Any] = []

    @extend_schema(
        operation_id="me_session_end",
        summary="Log out one of my devices",
        description=(
            "Ends that device session: its tokens stop working and its sockets close "
            "(code 4400); the others go on. Ending the caller's own is a log-out. "
            "`session_not_found` when the account has no such session. Not throttled."
        ),
        request=None,
        responses={204: None, **errors(401, 403, missing=["session_not_found"])},
    )
    def delete(self, request: Request, session_id: int) -> Response:
        user: User = request.user  # type: ignore[assignment]
        if not sessions_end(user_id=user.pk, ids=[session_id]):
            raise DeviceSessionUnknown()
        return Response(status=status.HTTP_204_NO_CONTENT)


class BrowserSessionView(APIView):
    throttle_classes: list[Any] = []

    @extend_schema(
        operation_id="me_browser_session_end",
        summary="Log out one of my browsers",
        description=(
            "Ends that browser's session on the site (`kind` `browser` in "
            "`GET /api/v1/me/sessions`): it is logged out and its sockets close "
            "(code 4400); the others go on. `session_not_found` when the account "
            "has no such browser session. Not throttled."
        ),
        request=None,
        responses={204: None, **errors(401, 403, missing=["session_not_found"])},
    )
    def delete(self, request: Request, session_id: int) -> Response:
        user: User = request.user  # type: ignore[assignment]
        if not browser_sessions_end(user_id=user.pk, ids=[session_id]):
            raise DeviceSessionUnknown()
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordView(APIView):
    throttle_classes: list[Any] = []  # never the write limit (its own: wrong passwords)

    @extend_schema(
        operation_id="auth_password",
        summary="Change your password",
        description=(
            "Checks the current password and Django's validators "
            "(`details.new_password`), then ends every other session of the account "
            "(devices and browsers) and closes their sockets (code 4400): every other "
            "device must log in again. The caller's device session goes on, its tokens "
            "and sockets unchanged (a browser's session gets a new key). Not throttled "
            "by the write limit; `PASSWORD_CHANGE_FAILURE_RATE` wrong current passwords "
            "per account, then `throttled` (429, `Retry-After`), even with the right one."
        ),
        request=PasswordIn,
        responses={
            204: None,
            **errors(400, 401, 403, 429, bad=["wrong_password"], busy=["busy"]),
        },
    )
    def post(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        data = PasswordIn(data=request.data, context={"user": user})
        data.is_valid(raise_exception=True)
        password_change(
            user=user,
            old_password=data.validated_data["old_password"],
            new_password=data.validated_data["new_password"],
            device=request_device(request),
        )
        if request.session.get(SESSION_KEY) is not None:
            update_session_auth_hash(request._request, user)
        return Response(status=status.HTTP_204_NO_CONTENT)


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


# -- e-mail address and password reset (accounts.recovery) ----------------------------


class EmailIn(StrictIn):
    email = serializers.EmailField(
        max_length=254,
        allow_blank=True,
        help_text="The new address (empty: remove the account's address and any pending one).",
    )
    password = serializers.CharField(
        max_length=128, trim_whitespace=False, help_text="Your current password."
    )


class VerifyIn(StrictIn):
    token = serializers.CharField(
        max_length=512,
        help_text="The last part of the link mailed: `/accounts/email/verify/<token>/`.",
    )


class ResetIn(StrictIn):
    email = serializers.EmailField(
        max_length=254, required=False, help_text="A verified address. Send this or `username`."
    )
    username = serializers.CharField(
        max_length=150, required=False, help_text="The log-in name. Send this or `email`."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        from django.utils.translation import gettext as _

        if ("email" in attrs) == ("username" in attrs):
            message = _("Send your e-mail address or your log-in name (one of them).")
            raise serializers.ValidationError({"email": [message], "username": [message]})
        return attrs


class ResetConfirmIn(StrictIn):
    uid = serializers.CharField(
        max_length=64, help_text="From the link: `/accounts/reset/<uid>/<token>/`."
    )
    token = serializers.CharField(max_length=128, help_text="From the link, after `uid`.")
    new_password = serializers.CharField(max_length=128, trim_whitespace=False)


VERIFY_RATE = (
    "The link is mailed off the request (a Celery task); `EMAIL_VERIFY_RATE` such mails "
    "per account (`throttled`, `details.wait`)."
)


class MyEmailView(APIView):
    @extend_schema(
        operation_id="me_email",
        summary="Set, change or remove my e-mail address",
        description=(
            "Checks the current password (`wrong_password`). A new address is "
            "`email_pending` until the link mailed to it is opened (in the page, or "
            "`POST /api/v1/auth/email/verify`); the verified `email` stays meanwhile. "
            "The verified address again cancels a pending change; empty removes both "
            "(no more resets). An address another account has verified is accepted the "
            "same way (nothing tells whose it is); the mail to it says it is in use. " + VERIFY_RATE
        ),
        request=EmailIn,
        responses={
            200: UserOut,
            **errors(400, 401, 403, 429, bad=["wrong_password"], busy=["busy"]),
        },
    )
    def post(self, request: Request) -> Response:
        data = EmailIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = email_set(
            user=request.user,  # type: ignore[arg-type]
            email=data.validated_data["email"],
            password=data.validated_data["password"],
        )
        return Response(UserOut(user).data)


class MyEmailResendView(APIView):
    @extend_schema(
        operation_id="me_email_resend",
        summary="Mail the verification link again",
        description="To `email_pending` (`no_email_pending` without one). " + VERIFY_RATE,
        request=None,
        responses={204: None, **errors(400, 401, 403, 429, bad=["no_email_pending"])},
    )
    def post(self, request: Request) -> Response:
        verification_resend(user=request.user)  # type: ignore[arg-type]
        return Response(status=status.HTTP_204_NO_CONTENT)


class EmailVerifyView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_email_verify",
        summary="Verify an address with the mailed link's token",
        description=(
            "For an app that opens the link itself (the page `/accounts/email/verify/"
            "<token>/` does the same). The account's pending address becomes its "
            "`email`. A link works once, for `EMAIL_VERIFY_HOURS` (48), and only while "
            "the address it was sent to is still the pending one: "
            "`invalid_verification_link` otherwise. `email_taken` (409): another account "
            "verified the address first."
        ),
        request=VerifyIn,
        responses={
            204: None,
            **errors(400, 409, 429, bad=["invalid_verification_link"], conflict=["email_taken"]),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = VerifyIn(data=request.data)
        data.is_valid(raise_exception=True)
        email_verify(data.validated_data["token"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordResetView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []  # its own limits, below

    @extend_schema(
        operation_id="auth_password_reset",
        summary="Forgot the password: mail a reset link",
        description=(
            "Send `email` (a verified address, any case) or `username`. The answer is "
            "always 204, the same whether or not an account has it, is verified, or is "
            "a bot: if one does, a link is mailed to its verified address (off the "
            "request: a Celery task), in the request's language. The link opens the "
            "page `/accounts/reset/<uid>/<token>/`; an app may take `uid` and `token` "
            "from it (or from the code in the mail) for "
            "`POST /api/v1/auth/password-reset/confirm`. It works once, for "
            "`PASSWORD_RESET_MINUTES` (60). Limits: `PASSWORD_RESET_RATE` requests per "
            "client address and `PASSWORD_RESET_ACCOUNT_RATE` per address or username "
            "asked for, whether or not an account has it (`throttled`, `details.wait`); "
            "past that many mails to one account in the window, none is sent (the answer "
            "does not tell)."
        ),
        request=ResetIn,
        responses={204: None, **errors(400, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = ResetIn(data=request.data)
        data.is_valid(raise_exception=True)
        password_reset_request(
            email=data.validated_data.get("email", ""),
            username=data.validated_data.get("username", ""),
            address=client_ip(request._request),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordResetConfirmView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="auth_password_reset_confirm",
        summary="Set a new password with a reset link",
        description=(
            "`uid` and `token` from the mailed link; the new password must pass "
            "Django's validators (`details.new_password`). Every device session and "
            "browser session of the account ends and its sockets close (code 4400): log "
            "in again. `invalid_reset_link`: unknown, expired, or used already (a new "
            "password retires every link sent before)."
        ),
        request=ResetConfirmIn,
        responses={204: None, **errors(400, 429, bad=["invalid_reset_link"])},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = ResetConfirmIn(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            password_reset_confirm(
                uid=data.validated_data["uid"],
                token=data.validated_data["token"],
                new_password=data.validated_data["new_password"],
            )
        except DjangoValidationError as err:
            raise serializers.ValidationError({"new_password": list(err.messages)}) from None
        return Response(status=status.HTTP_204_NO_CONTENT)
