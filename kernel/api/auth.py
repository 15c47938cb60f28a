"""API authentication: a DRF token (mobile apps) or the browser's session with
its CSRF token. Bots never authenticate."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` (``Bearer`` is accepted too)."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = authentication.get_authorization_header(request).split()
        if header and header[0].lower() == b"bearer":
            self.keyword = "Bearer"
        else:
            self.keyword = "Token"
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        if user.is_bot:
            raise exceptions.AuthenticationFailed()
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return "Token"


class SessionAuthentication(authentication.SessionAuthentication):
    """The browser's session; unsafe methods need the CSRF token (``X-CSRFToken``)."""

    def enforce_csrf(self, request: Request) -> None:
        try:
            super().enforce_csrf(request)
        except exceptions.PermissionDenied:
            raise exceptions.PermissionDenied(code="csrf_failed") from None


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "kernel.api.auth.SessionAuthentication"
    name = "cookieAuth"
    priority = -1

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        from django.conf import settings

        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}
