"""The client address the metrics endpoint is checked against: the one
client-address policy of the site (vipgame.net, README "Security")."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from functools import lru_cache

from django.http import HttpRequest

from vipgame.net import client_ip


def peer_address(request: HttpRequest) -> str:
    """The client of this request: the socket peer, or behind a trusted proxy
    the address it forwarded (vipgame.net.client_ip)."""
    return client_ip(request) or ""


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
