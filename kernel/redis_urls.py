"""Redis addresses by role, and the Sentinel form of each.

Redis has three roles here (docs/operations.md "Redis: roles, Sentinel,
fail-over"): the channel layer (``REDIS_CHANNELS_URL``), Celery's broker
(``REDIS_BROKER_URL``) and the cache with the rate limits, socket caps, push
index and heartbeats (``REDIS_CACHE_URL``). Each defaults to ``REDIS_URL``:
one Redis still works.

Any of them may name a Sentinel-watched primary instead of a server::

    redis+sentinel://[[user]:password@]host:port[,host:port...]/<master>[/<db>]
        [?sentinel_password=...]

(the password is the primary's; ``sentinel_password`` the sentinels', if they
ask for one). Discovery and fail-over are redis-py's
(:mod:`redis.sentinel`): a connection asks the sentinels where the primary is
when it connects, and a reply from a former primary that became a replica
(``READONLY``) drops the connection, so the next one goes to the new primary.
This module only turns the URL into what each library takes:

* the cache and our own clients: :class:`SentinelPool` (Django's
  ``RedisCache`` ``pool_class``) and :func:`client`;
* the channel layer: :func:`channel_host` (channels_redis's own Sentinel
  form, ``sentinels`` + ``master_name``);
* Celery: :func:`celery_broker` (kombu's ``sentinel://`` transport and its
  ``master_name`` option).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from redis.sentinel import Sentinel, SentinelConnectionPool

SCHEME = "redis+sentinel"


@dataclass(frozen=True)
class SentinelAddress:
    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int = 0
    username: str | None = None
    password: str | None = None
    sentinel_password: str | None = None


def is_sentinel(url: str) -> bool:
    return url.startswith(f"{SCHEME}://")


def parse(url: str) -> SentinelAddress:
    """The parts of a ``redis+sentinel://`` URL (ValueError if it is not one)."""
    if not is_sentinel(url):
        raise ValueError(f"not a {SCHEME}:// URL")
    parts = urlsplit(url)
    userinfo, _, hosts = parts.netloc.rpartition("@")
    username, _, password = userinfo.partition(":") if userinfo else ("", "", "")
    sentinels = []
    for host in hosts.split(","):
        name, _, port = host.strip().rpartition(":")
        if not name or not port.isdigit():
            raise ValueError(f"{SCHEME}: each sentinel is host:port, not {host!r}")
        sentinels.append((name.strip("[]"), int(port)))
    path = [unquote(p) for p in parts.path.split("/") if p]
    if not path or len(path) > 2 or (len(path) == 2 and not path[1].isdigit()):
        raise ValueError(f"{SCHEME}: the path is /<master name>[/<db>], not {parts.path!r}")
    query = parse_qs(parts.query)
    return SentinelAddress(
        sentinels=tuple(sentinels),
        master=path[0],
        db=int(path[1]) if len(path) == 2 else 0,
        username=unquote(username) or None,
        password=unquote(password) or None,
        sentinel_password=query.get("sentinel_password", [None])[0],
    )


def keepalive(url: str, options: dict[str, Any]) -> dict[str, Any]:
    """The TCP keepalive ``options`` for a connection to ``url`` (none on a
    unix socket)."""
    return {} if url.startswith("unix://") else options


def sentinel_options(address: SentinelAddress, timeout: float) -> dict[str, Any]:
    """The options of the connections to the sentinels themselves: a sentinel
    that is down or cut off is skipped after ``timeout``, not waited on."""
    options: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    if address.sentinel_password:
        options["password"] = address.sentinel_password
    return options


def _primary_options(address: SentinelAddress) -> dict[str, Any]:
    options: dict[str, Any] = {"db": address.db}
    if address.username:
        options["username"] = address.username
    if address.password:
        options["password"] = address.password
    return options


def _sentinel(address: SentinelAddress, timeout: float) -> Sentinel:
    return Sentinel(list(address.sentinels), sentinel_kwargs=sentinel_options(address, timeout))


def _timeout(options: dict[str, Any]) -> float:
    return float(options.get("socket_connect_timeout") or options.get("socket_timeout") or 5.0)


class SentinelPool(SentinelConnectionPool):
    """redis-py's Sentinel pool, built from a ``redis+sentinel://`` URL (the
    ``pool_class`` of Django's RedisCache, which calls ``from_url``)."""

    @classmethod
    def from_url(cls, url: str, **options: Any) -> SentinelPool:
        address = parse(url)
        options.pop("db", None)
        return cls(
            address.master,
            _sentinel(address, _timeout(options)),
            **{**options, **_primary_options(address)},
        )


def pool_class(url: str) -> str:
    """The dotted path of the connection pool class for ``url``."""
    return "kernel.redis_urls.SentinelPool" if is_sentinel(url) else "redis.ConnectionPool"


def client(url: str, **options: Any) -> redis.Redis:
    """A redis-py client of ``url`` (a server or a Sentinel-watched primary)."""
    if not is_sentinel(url):
        return redis.Redis.from_url(url, **options)
    return redis.Redis(connection_pool=SentinelPool.from_url(url, **options))


def channel_host(url: str, **options: Any) -> dict[str, Any]:
    """One entry of channels_redis's ``hosts``: ``address`` for a server, its
    Sentinel form (``sentinels``, ``master_name``, ``sentinel_kwargs``)
    otherwise; ``options`` go to every connection to the primary."""
    if not is_sentinel(url):
        return {"address": url, **options}
    address = parse(url)
    return {
        "sentinels": [list(s) for s in address.sentinels],
        "master_name": address.master,
        "sentinel_kwargs": sentinel_options(address, _timeout(options)),
        **options,
        **_primary_options(address),
    }


def celery_broker(url: str, timeout: float) -> tuple[str, dict[str, Any]]:
    """Celery's ``broker_url`` and the transport options it needs on top of
    the others: for a Sentinel URL, kombu's ``sentinel://`` transport (one
    ``sentinel://`` per sentinel, separated by ``;``; kombu tries each) with
    ``master_name`` and the sentinels' own time-outs."""
    if url.startswith("unix://"):
        return "redis+socket://" + url.removeprefix("unix://"), {}
    if not is_sentinel(url):
        return url, {}
    address = parse(url)
    auth = ""
    if address.password:
        auth = f"{address.username or ''}:{address.password}@"
    broker = ";".join(
        f"sentinel://{auth}{host}:{port}/{address.db}" for host, port in address.sentinels
    )
    return broker, {
        "master_name": address.master,
        "sentinel_kwargs": sentinel_options(address, timeout),
    }
