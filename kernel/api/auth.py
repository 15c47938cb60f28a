"""API authentication: a device session's access token (mobile apps; django-rest-knox,
hashed at rest) or the browser's session with its CSRF token. Bots never
authenticate."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.crypto import hash_token
from knox.models import get_token_model
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from kernel.net import client_ip

KEYWORDS = (b"token", b"bearer")


class TokenAuthentication(KnoxTokenAuthentication):
    """``Authorization: Token <access token>`` or ``Bearer <access token>``.

    The token is looked up by its digest (knox's hash: what the database
    keeps), in one query with its user and device session; an expired token,
    an inactive account or a bot is refused. ``request.auth`` is the access
    token's row (``.session_id``: the device session). The session's
    ``last_seen`` and address follow at most once a minute (one UPDATE)."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() not in KEYWORDS:
            return None
        if len(header) == 1:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header. No credentials provided.")
            )
        if len(header) > 2:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header. Token string should not contain spaces.")
            )
        try:
            key = header[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed(
                _("Invalid token header. Token string should not contain invalid characters.")
            ) from None
        return self.known(key, request)

    def known(self, key: str, request: Request) -> tuple[Any, Any]:
        now = timezone.now()
        token = (
            get_token_model()
            .objects.select_related("user", "session")
            .filter(digest=hash_token(key))
            .first()
        )
        if token is None or (token.expiry is not None and token.expiry <= now):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = token.user
        if not user.is_active or getattr(user, "is_bot", False):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        session = token.session
        if now - session.last_seen >= SEEN_EVERY:
            address = client_ip(request._request)
            session.last_seen = now
            fields = ["last_seen"]
            if address:
                session.address = address
                fields.append("address")
            session.save(update_fields=fields)
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return "Token"


SEEN_EVERY = timedelta(seconds=60)


class SessionAuthentication(authentication.SessionAuthentication):
    """The browser's session; unsafe methods need the CSRF token (``X-CSRFToken``)."""

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied:
            raise exceptions.PermissionDenied(code="csrf_failed") from None


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "kernel.api.auth.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> Any:
        # A device session's access token (POST /api/v1/auth/login); "Token
        # <token>" is accepted too.
        return build_bearer_security_scheme_object(
            header_name="Authorization",
            token_prefix="Bearer",  # noqa: S106
        )


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "kernel.api.auth.SessionAuthentication"
    name = "cookieAuth"
    priority = -1

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        from django.conf import settings

        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}
