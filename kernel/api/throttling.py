"""Per-user throttles on writes (per address when anonymous).

Rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` (settings, from the
environment) and are read on every request, so a test can change them; a
rate of ``None`` turns that throttle off. Addresses come from the one
client-address policy (``kernel.net``), never from DRF's ``NUM_PROXIES``.
Log-in and sign-up are limited per address in ``accounts.limits``
(the same limits for the web forms and the API). Each limit's standing goes
out in ``RateLimit`` headers (``kernel.api.ratelimit``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle

from kernel.net import client_ip

from .ratelimit import note

if TYPE_CHECKING:  # rest_framework.views imports this module through its settings
    from rest_framework.request import Request
    from rest_framework.views import APIView


class _LiveRate:
    def get_ident(self, request: Request) -> str:
        return client_ip(request._request) or "unknown"

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(str(getattr(self, "scope", "")))
        return rate if isinstance(rate, str) else None


class WriteThrottle(_LiveRate, UserRateThrottle):
    """Every POST, per user (per address when anonymous)."""

    scope = "writes"

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        allowed: bool = super().allow_request(request, view)
        quota, window = self.parse_rate(self.rate)
        if quota is not None and window is not None and hasattr(self, "history"):
            # where the limit stands, for the RateLimit headers
            oldest = self.history[-1] if self.history else self.now
            reset = window - (self.now - oldest)
            note(request._request, str(self.scope), quota, window, quota - len(self.history), reset)
        return allowed
