"""The one client-address policy (docs/security.md).

The client's address is the socket peer (Daphne runs without
``--proxy-headers``), unless that peer is one of ``TRUSTED_PROXIES``
(addresses or CIDR networks): then ``X-Forwarded-For`` is read from the right,
skipping trusted proxies, and the first address that is not one of them is
the client. The leftmost entry is whatever the client wrote and is never
believed on its own. ``X-Forwarded-Proto`` (``SECURE_PROXY_SSL_HEADER``)
counts only from a trusted peer too (``ProxyHeadersMiddleware``).

Used by django-axes (``AXES_CLIENT_IP_CALLABLE``), the DRF throttles, the
sign-up and log-in limits, the socket caps and the moderation sightings.
Written here rather than with django-ipware: ipware matches trusted proxies by
string prefix among the forwarded entries, not by CIDR against the socket
peer, so a direct client could still pick its address.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from ipaddress import IPv4Address, IPv6Address, ip_address, ip_network
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse

Address = IPv4Address | IPv6Address


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...], setting: str) -> tuple[Any, ...]:
    try:
        return tuple(ip_network(entry.strip(), strict=False) for entry in entries if entry.strip())
    except ValueError as err:
        raise ImproperlyConfigured(f"{setting}: {err}") from None


def trusted_networks() -> tuple[Any, ...]:
    return _networks(tuple(settings.TRUSTED_PROXIES), "TRUSTED_PROXIES")


def allowed_by(setting: str, raw: str | None) -> bool:
    """Whether the address ``raw`` is in one of the networks that the setting
    named ``setting`` lists (e.g. ``METRICS_ALLOWED``)."""
    address = parse_address(raw)
    networks = _networks(tuple(getattr(settings, setting)), setting)
    return address is not None and any(address in net for net in networks)


def parse_address(raw: str | None) -> Address | None:
    """An address as a proxy or the server writes it (``1.2.3.4``, ``::1``,
    ``[::1]``, ``[::1]:443``, ``1.2.3.4:80``), or None."""
    text = (raw or "").strip().strip('"')
    if not text:
        return None
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.split(":", 1)[0]
    try:
        address = ip_address(text)
    except ValueError:
        return None
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_trusted(address: Address | None) -> bool:
    return address is not None and any(address in net for net in trusted_networks())


def resolve(peer: str | None, forwarded_for: Iterable[str]) -> str | None:
    """The client address from the socket peer and the ``X-Forwarded-For``
    values (each may hold a comma-separated list), as a string, or None."""
    address = parse_address(peer)
    if not is_trusted(address):
        return None if address is None else str(address)
    entries = [part for value in forwarded_for for part in value.split(",")]
    for raw in reversed(entries):
        hop = parse_address(raw)
        if hop is None:
            break  # unreadable: what is left of it was not written by a trusted proxy
        address = hop
        if not is_trusted(hop):
            break
    return None if address is None else str(address)


def client_ip(request: HttpRequest) -> str | None:
    """The client address of an HTTP request (see the module's docstring)."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    return resolve(request.META.get("REMOTE_ADDR"), [forwarded] if forwarded else [])


def _headers(scope: dict[str, Any], name: bytes) -> list[str]:
    return [value.decode("latin1") for key, value in scope.get("headers", ()) if key == name]


def scope_client_ip(scope: dict[str, Any]) -> str | None:
    """The same for an ASGI scope (WebSocket connections)."""
    client: Sequence[Any] | None = scope.get("client")
    peer = str(client[0]) if client else None
    return resolve(peer, _headers(scope, b"x-forwarded-for"))


class ProxyHeadersMiddleware:
    """First in ``MIDDLEWARE``: a request whose peer is not a trusted proxy
    loses its ``X-Forwarded-*`` headers, so ``SECURE_PROXY_SSL_HEADER``
    (``X-Forwarded-Proto``) and anything else reading them only ever see what
    the configured proxy set. ``request.client_ip`` is the policy's answer."""

    STRIPPED = ("HTTP_X_FORWARDED_PROTO", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PORT")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_trusted(parse_address(request.META.get("REMOTE_ADDR"))):
            for key in (*self.STRIPPED, "HTTP_X_FORWARDED_FOR"):
                request.META.pop(key, None)
        request.client_ip = client_ip(request)  # type: ignore[attr-defined]
        return self.get_response(request)
