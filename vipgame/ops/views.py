"""``/healthz``, ``/readyz`` and ``/metrics``.

Served by :class:`ProbeMiddleware` ahead of the rest of the middleware: no
session, no device cookie, no HTTPS redirect and no ``ALLOWED_HOSTS`` check, so
a load balancer or Prometheus can ask each Daphne process directly
(``http://127.0.0.1:<port>/readyz``) whatever the site's host name.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from kernel.net import allowed_by, client_ip
from kernel.ops import metrics

from . import health, scrape


def _json(body: dict[str, object], status: int = 200) -> HttpResponse:
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    return response


def healthz(request: HttpRequest) -> HttpResponse:
    """The process is alive and answers: no I/O."""
    return _json({"status": "ok"})


def readyz(request: HttpRequest) -> HttpResponse:
    """Ready to serve: 200 when every check passes, else 503; each check in the body."""
    ready, checks = health.readiness()
    return _json(
        {"status": "ok" if ready else "unavailable", "checks": checks}, 200 if ready else 503
    )


def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus text, to the addresses of ``METRICS_ALLOWED`` only.

    A request that came through a proxy (it carries ``X-Forwarded-For``) is
    refused unless ``METRICS_ALLOW_PROXIED``: behind ``daphne --proxy-headers``
    the peer address is taken from that header, which a client can write.
    """
    proxied = "HTTP_X_FORWARDED_FOR" in request.META and not settings.METRICS_ALLOW_PROXIED
    if proxied or not allowed_by("METRICS_ALLOWED", client_ip(request)):
        return HttpResponse(
            json.dumps({"code": "forbidden", "message": "Metrics are not served to this address."}),
            status=403,
            content_type="application/json",
        )
    return HttpResponse(scrape.render(), content_type=metrics.CONTENT_TYPE)


PROBES: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/healthz": healthz,
    "/readyz": readyz,
    "/metrics": metrics_view,
}


class ProbeMiddleware:
    """First in MIDDLEWARE: answers the probes (GET or HEAD) before anything else.

    At exactly the paths of ``PROBES`` and no other spelling of them (``/readyz/``,
    ``/readyz//``, ``/readyz%2F``, ``/readyz/.`` fall through to the URLconf: 404).
    nginx keeps ``/readyz`` and ``/metrics`` from the internet by a prefix rule on
    its normalised path, which covers every spelling (docs/security.md, "Health
    endpoints"); the application adds no spelling of its own that nginx would
    not see as the same path.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        view = PROBES.get(request.path_info)
        if view is None:
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            response = HttpResponse(status=405)
            response["Allow"] = "GET, HEAD"
            return response
        return view(request)
