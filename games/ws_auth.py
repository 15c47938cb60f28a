"""WebSocket authentication and origin checks.

Browsers authenticate with the Django session and always send ``Origin``,
which must then be one of ``ALLOWED_HOSTS``. Mobile apps send a DRF token in
the ``Authorization`` header (or in a first ``auth`` message) and usually no
``Origin``: a missing Origin is accepted, since a cross-site page cannot open
a socket without one.
"""

from __future__ import annotations

from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.contrib.auth.models import AnonymousUser

from vipgame.accounts.services import credential_mark


@database_sync_to_async
def user_for_token(key: str) -> Any:
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active or token.user.is_bot:
        return AnonymousUser()
    return token.user


def header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin1"))
    return None


class TokenAuthMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        authorization = header(scope, b"authorization") or ""
        scheme, _, key = authorization.partition(" ")
        if scheme.lower() in ("token", "bearer") and key:
            user = await user_for_token(key.strip())
            scope = {**scope, "user": user}
            if user.is_authenticated:
                scope["auth_token"] = credential_mark(key.strip())
        return await self.app(scope, receive, send)


class BrowserOriginValidator(OriginValidator):
    def valid_origin(self, parsed_origin: Any) -> bool:
        if parsed_origin is None:
            return True
        return bool(self.validate_origin(parsed_origin))


def websocket_stack(app: Any) -> Any:
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = ["localhost", "127.0.0.1", "[::1]"]
    return BrowserOriginValidator(AuthMiddlewareStack(TokenAuthMiddleware(app)), hosts)
