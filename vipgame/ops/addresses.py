"""The client address the metrics endpoint is checked against.

One small function on purpose: the trusted-proxy policy of the trust issue
(a shared client-address helper) replaces its body when it lands.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

from django.http import HttpRequest


def peer_address(request: HttpRequest) -> str:
    """The address of the peer that sent this request (Daphne's REMOTE_ADDR)."""
    return str(request.META.get("REMOTE_ADDR") or "")


@lru_cache(maxsize=8)
def _networks(cidrs: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(c.strip(), strict=False) for c in cidrs if c.strip())


def address_allowed(address: str, cidrs: Iterable[str]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in _networks(tuple(cidrs)))
