"""``RateLimit-Policy`` and ``RateLimit`` headers (the IETF httpapi working
group's draft "RateLimit header fields for HTTP", draft-ietf-httpapi-
ratelimit-headers-09: structured fields, one item per limit).

Each limit that counted the request notes where it stands (``note``); the
middleware writes them on the answer, 429s included::

    RateLimit-Policy: "writes";q=120;w=60
    RateLimit: "writes";r=117;t=58

``q``: requests allowed per window, ``w``: the window in seconds, ``r``:
requests left, ``t``: seconds until one comes back (each limit is a sliding
window: the oldest request counted leaves it then). An answer no limit
counted (a GET, a log-out) has neither header. A 429 also has ``Retry-After``
(``kernel.api.errors``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse

ATTRIBUTE = "_ratelimits"


@dataclass(frozen=True)
class Standing:
    policy: str  # the limit's name, e.g. "writes"
    quota: int
    window: int  # seconds
    remaining: int
    reset: int  # seconds


def note(
    request: HttpRequest, policy: str, quota: int, window: float, remaining: int, reset: float
) -> None:
    """Where a limit stands after counting (or refusing) this request."""
    standing = Standing(
        policy, quota, max(1, round(window)), max(0, remaining), max(0, math.ceil(reset))
    )
    noted: dict[str, Standing] = getattr(request, ATTRIBUTE, None) or {}
    noted[policy] = standing
    setattr(request, ATTRIBUTE, noted)


def headers(request: HttpRequest) -> dict[str, str]:
    noted: dict[str, Standing] = getattr(request, ATTRIBUTE, None) or {}
    if not noted:
        return {}
    policies = ", ".join(f'"{s.policy}";q={s.quota};w={s.window}' for s in noted.values())
    standing = ", ".join(f'"{s.policy}";r={s.remaining};t={s.reset}' for s in noted.values())
    return {"RateLimit-Policy": policies, "RateLimit": standing}


class RateLimitHeadersMiddleware:
    """Writes the noted limits on the answer (under ``/api/`` only)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.path.startswith("/api/"):
            return response
        for name, value in headers(request).items():
            response[name] = value
        return response
