"""What django-axes answers once an address and username are locked out:
the JSON error under ``/api/``, the page elsewhere (``AXES_LOCKOUT_CALLABLE``)."""

from __future__ import annotations

import math
from typing import Any

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .errors import LockedOut


def cool_off_minutes(request: HttpRequest | None) -> int:
    cool_off = get_cool_off(request)
    return math.ceil(cool_off.total_seconds() / 60) if cool_off else 0


def lockout_response(
    request: HttpRequest, original_response: Any = None, credentials: Any = None
) -> HttpResponse:
    if not isinstance(credentials, dict):
        credentials = original_response if isinstance(original_response, dict) else None
    if request.path.startswith("/api/"):
        from kernel.api.errors import json_error

        minutes = cool_off_minutes(request)
        response = json_error(request, LockedOut(minutes=minutes))
        response["Retry-After"] = str(minutes * 60)
        return response
    context = {
        "failure_limit": get_failure_limit(request, credentials),
        "username": get_client_username(request, credentials) or "",
    }
    return render(
        request,
        settings.AXES_LOCKOUT_TEMPLATE,
        context,
        status=getattr(settings, "AXES_HTTP_RESPONSE_CODE", 429),
    )
