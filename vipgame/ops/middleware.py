"""Log context for HTTP requests: a request id (``X-Request-ID`` when the proxy
sends a sane one, else a new one; echoed in the response) and the user; and
the count of 5xx responses by view."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from kernel.ops import context, metrics

REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class RequestContextMiddleware:
    """After AuthenticationMiddleware (it reads the user's id, which a session
    request has already loaded; anonymous requests without a session cookie
    cost nothing)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        rid = given if REQUEST_ID.match(given) else uuid.uuid4().hex
        user = getattr(request, "user", None)
        uid = user.pk if user is not None and user.is_authenticated else None
        # Not unbound at the end: Django logs a failed request's status after the
        # middleware has returned. Each ASGI request runs in a context of its
        # own, and every request sets all four anew.
        context.bind(request_id=rid, user=uid, table=None, hand=None)
        response = self.get_response(request)
        response["X-Request-ID"] = rid
        return response


class ServerErrorCountMiddleware:
    """Second in MIDDLEWARE (after the probes): counts every 5xx response by
    view, those of an exception Django turned into a 500 included (each
    middleware's exceptions become responses before they reach the one
    outside it). The view is its URL name (``app:name``), never the path, so
    the label stays a short list."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code >= 500:
            match = getattr(request, "resolver_match", None)
            view = (match.view_name or "unnamed") if match is not None else "unresolved"
            metrics.http_server_error(view, response.status_code)
        return response
