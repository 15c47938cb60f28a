"""JSON answers under ``/api/`` for what no API view handles."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

from kernel.api.errors import MESSAGES, json_error
from kernel.errors import NotFound, ServiceError


@csrf_exempt
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """Any ``/api/`` address that does not exist (whatever ``DEBUG`` says)."""
    return json_error(request, NotFound())


class ServerError(ServiceError):
    code = "server_error"
    template = MESSAGES["server_error"]
    status = 500


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: JSON under ``/api/``, the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return json_error(request, ServerError())
    return defaults.server_error(request)
