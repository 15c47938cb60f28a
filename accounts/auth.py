"""API authentication by a device session's access token (mobile apps;
django-rest-knox's token, hashed at rest): ``Authorization: Token <token>``
or ``Bearer <token>``. Bots never authenticate. The browser's session is
``kernel.api.auth.SessionAuthentication``."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from kernel.net import client_ip

from .sessions import session_seen, token_of

KEYWORDS = (b"token", b"bearer")


class TokenAuthentication(authentication.BaseAuthentication):
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
        token = token_of(key, now)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = token.user
        if not user.is_active or getattr(user, "is_bot", False):
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        session_seen(session=token.session, address=client_ip(request._request), now=now)
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return "Bearer"  # the scheme of the schema (``Token`` is accepted too)


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.auth.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> Any:
        # THE scheme of the API (generators default to it); "Token <token>" is
        # accepted too, said in the description only.
        scheme = build_bearer_security_scheme_object(
            header_name="Authorization",
            token_prefix="Bearer",  # noqa: S106
        )
        return {
            **scheme,
            "description": (
                "A device session's access token (`POST /api/v1/auth/login`): send "
                "`Authorization: Bearer <token>`. `Authorization: Token <token>` is "
                "accepted too."
            ),
        }
