"""API authentication by the browser's session, with its CSRF token (the
device sessions' access tokens of mobile apps: ``accounts.auth``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request


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
