"""Device cookie and (user, address, device) sightings for the integrity report."""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from redis.exceptions import RedisError

from accounts.models import User
from kernel.net import client_ip

from .services import sighting_record

DEVICE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def _session_user(request: HttpRequest) -> str | None:
    session = getattr(request, "session", None)
    return None if session is None else session.get(SESSION_KEY)


class DeviceMiddleware:
    """Give every browser a long-lived random ``device`` cookie, and record
    signed-in users' sightings: at log-in always, otherwise at most once per
    ``SIGHTING_REFRESH_S`` per (user, address, device) (a cache key says it was
    recorded recently)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        cookie = request.COOKIES.get(settings.DEVICE_COOKIE_NAME, "")
        device = cookie if DEVICE_PATTERN.match(cookie) else ""
        signed_in_before = _session_user(request)
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if isinstance(user, User) and user.is_authenticated:
            signed_in = _session_user(request)
            self._seen(request, user, device, logged_in=signed_in not in (None, signed_in_before))
        if not device:
            response.set_cookie(
                settings.DEVICE_COOKIE_NAME,
                secrets.token_urlsafe(16),
                max_age=settings.DEVICE_COOKIE_AGE,
                httponly=True,
                samesite="Lax",
                secure=not settings.DEBUG,
            )
        return response

    def _seen(self, request: HttpRequest, user: User, device: str, *, logged_in: bool) -> None:
        ip = client_ip(request)
        if ip is None:
            return
        key = f"sighting:{user.pk}:{ip}:{device}"
        try:
            recent = not logged_in and bool(cache.get(key))
        except (OSError, RedisError):
            recent = False
        if recent:
            return
        sighting_record(user=user, ip=ip, device=device)
        with contextlib.suppress(OSError, RedisError):
            cache.set(key, 1, settings.SIGHTING_REFRESH_S)
