"""Installable: the web app manifest, the service worker and its offline page
(docs/browser.md "Installable and push").

The service worker is served from the site's root (``/sw.js``) so that its
scope is every page. It caches the static shell (the site's stylesheets, the
icons and the offline page) when installed, answers a page that cannot be
fetched with the offline page, and shows the push notices
(``push.services.payload``) unless a page of the site has the focus."""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

#: What the service worker caches when it is installed (static paths).
SHELL = (
    "css/site.css",
    "css/table.css",
    "css/identity.css",
    "css/fit.css",
    "img/favicon.svg",
    "img/icon-192.png",
    "img/icon-512.png",
)


def _shell_urls() -> list[str]:
    return [static(path) for path in SHELL] + [reverse("offline")]


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    urls = _shell_urls()
    # A new version (a new cache, the old one dropped) whenever a shell file's
    # name changes: with hashed names (production), whenever one changes.
    version = hashlib.sha256(json.dumps(urls).encode()).hexdigest()[:12]
    hashed = not settings.DEBUG
    response = render(
        request,
        "sw.js",
        {
            "version": version,
            "shell": json.dumps(urls),
            "offline": json.dumps(reverse("offline")),
            "icon": json.dumps(static("img/icon-192.png")),
            "static_prefix": json.dumps(settings.STATIC_URL),
            "cache_first": json.dumps(hashed),
        },
        content_type="text/javascript; charset=utf-8",
    )
    # Browsers check for a new worker on every navigation; never a stale one.
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def manifest(request: HttpRequest) -> JsonResponse:
    body = {
        "id": "/",
        "name": _("VIPGAME card room"),
        "short_name": "VIPGAME",
        "description": _("Mậu Binh, Tiến Lên Miền Nam and Texas Hold'em, for play money."),
        "lang": translation.get_language() or settings.LANGUAGE_CODE,
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#0b5d3b",
        "theme_color": "#0b5d3b",
        "icons": [
            {
                "src": static(f"img/icon-{size}.png"),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": purpose,
            }
            for size in (192, 512)
            for purpose in ("any", "maskable")
        ],
    }
    response = JsonResponse(body, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = "application/manifest+json"
    return response


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    """What the service worker shows when a page cannot be fetched."""
    return render(request, "offline.html")
