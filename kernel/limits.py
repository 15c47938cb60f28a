"""Atomic rate limits on Redis, shared by every process.

A limit is a sliding window: at most N hits in the last W seconds per key
(``"10/hour"``, ``"20/min"``, ``"5/10s"``). ``take()`` checks and records a
hit in one Lua script, so concurrent requests cannot all slip in under the
limit (DRF's own throttles read, then write: parallel requests pass
together). Keys carry the cache prefix (``CACHE_PREFIX``).

Also here: the registry of open sockets per user and per address, for their
caps (a sorted set per key, scored by each socket's last heartbeat, so the
sockets of a process that died without saying so age out).
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# Tests set this per test so that one test's hits never limit another.
NAMESPACE = ""

UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600}
UNITS |= {"hour": 3600, "d": 86400, "day": 86400}
RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([a-z]+)\s*$")

_TAKE = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = tostring(oldest[2] + window - now)
  return {0, wait, 0, wait}
end
if ARGV[5] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('EXPIRE', KEYS[1], math.ceil(window) + 1)
  count = count + 1
end
local reset = '0'
if count > 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  reset = tostring(oldest[2] + window - now)
end
return {1, '0', limit - count, reset}
"""

_JOIN = """
local now = tonumber(ARGV[1])
local stale = tonumber(ARGV[2])
local member = ARGV[3]
local refused = 0
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - stale)
  local limit = tonumber(ARGV[3 + i])
  if limit > 0 and redis.call('ZSCORE', key, member) == false
     and redis.call('ZCARD', key) >= limit then
    refused = i
    break
  end
end
if refused == 0 then
  for i, key in ipairs(KEYS) do
    redis.call('ZADD', key, now, member)
    redis.call('EXPIRE', key, math.ceil(stale) + 1)
  end
end
return refused
"""


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: float


@lru_cache(maxsize=64)
def parse_rate(text: str | None) -> Rate | None:
    """``"10/hour"`` → Rate(10, 3600); None, ``""`` or ``"none"``: no limit."""
    if text is None or not text.strip() or text.strip().lower() == "none":
        return None
    match = RATE.match(text.lower())
    if match is None or match.group(3) not in UNITS:
        raise ImproperlyConfigured(f"Bad rate {text!r}: use e.g. 10/hour, 20/min, 5/10s")
    count, multiple, unit = int(match.group(1)), match.group(2), match.group(3)
    return Rate(count, (int(multiple) if multiple else 1) * UNITS[unit])


def _client() -> Any:
    """One client a process, for every thread (redis-py's clients and pools are
    thread-safe; a forked child's pool reconnects by itself). Django's `cache`
    is bound to the asyncio context: through ``asyncio.to_thread`` each call
    built a new one, with a new pool and a new connection (bench/RESULTS.md,
    "bench.tables": half of a bench.tables run's Redis connections, 2026-11-24)."""
    return _client_for(settings.REDIS_CACHE_URL)


@lru_cache(maxsize=4)
def _client_for(location: str) -> Any:
    from kernel import redis_urls

    return redis_urls.client(
        location,
        socket_timeout=settings.REDIS_SOCKET_TIMEOUT_S,
        socket_connect_timeout=settings.REDIS_SOCKET_TIMEOUT_S,
        **settings.REDIS_KEEPALIVE,
    )


def _key(scope: str, ident: str) -> str:
    from django.core.cache import cache

    return cache.make_key(f"limit:{NAMESPACE}:{scope}:{ident}")


@dataclass(frozen=True)
class Quota:
    """Where a window stands after a ``take_quota``: the seconds to wait (0.0:
    allowed), the hits left and the seconds until the oldest hit leaves the
    window (a hit comes back then)."""

    wait: float
    remaining: int
    reset: float


def take_quota(scope: str, ident: str, rate: Rate, *, record: bool = True) -> Quota:
    """``take``, telling the hits left and when one comes back."""
    member = f"{time.time():.6f}:{secrets.token_hex(4)}"
    allowed, wait, remaining, reset = _client().eval(
        _TAKE, 1, _key(scope, ident), time.time(), rate.seconds, rate.count, member,
        "1" if record else "0",
    )  # fmt: skip
    waiting = 0.0 if int(allowed) else max(0.001, float(wait))
    return Quota(waiting, int(remaining), max(0.0, float(reset)))


def take(scope: str, ident: str, rate: Rate | None, *, record: bool = True) -> float:
    """Record a hit of ``ident`` in ``scope`` if the rate allows it: 0.0 when
    allowed, else the seconds to wait (nothing recorded). ``record=False``
    only checks."""
    if rate is None:
        return 0.0
    return take_quota(scope, ident, rate, record=record).wait


def clear(scope: str, ident: str) -> None:
    _client().delete(_key(scope, ident))


# -- open sockets ---------------------------------------------------------------

SOCKET_STALE_S = 60.0  # a socket not heard of for this long no longer counts


def socket_join(member: str, caps: list[tuple[str, str, int]]) -> int:
    """Register an open socket under each (scope, ident, cap) unless one of them
    is already at its cap (0: no cap). Returns 0 when registered, else the
    1-based index of the cap that refused. Calling it again for a registered
    socket renews it (heartbeat)."""
    return int(_client().eval(*_join(member, caps, time.time())))


def _join(member: str, caps: list[tuple[str, str, int]], now: float) -> list[Any]:
    """The ``_JOIN`` script's call for one socket: script, key count, keys, args."""
    keys = [_key(scope, ident) for scope, ident, _cap in caps]
    return [_JOIN, len(keys), *keys, now, SOCKET_STALE_S, member, *(c for *_, c in caps)]


def sockets_renew(asked: list[tuple[str, list[tuple[str, str, int]]]]) -> list[int]:
    """``socket_join`` again for many registered sockets, in one round trip
    (a pipeline): a process's renewals together (games.heartbeats)."""
    if not asked:
        return []
    now = time.time()
    pipe = _client().pipeline(transaction=False)
    for member, caps in asked:
        pipe.eval(*_join(member, caps, now))
    return [int(refused) for refused in pipe.execute()]


def socket_leave(member: str, keys: list[tuple[str, str]]) -> None:
    client = _client()
    for scope, ident in keys:
        client.zrem(_key(scope, ident), member)


def socket_count(scope: str, ident: str) -> int:
    key = _key(scope, ident)
    client = _client()
    client.zremrangebyscore(key, "-inf", time.time() - SOCKET_STALE_S)
    return int(client.zcard(key))


def settings_rate(name: str) -> Rate | None:
    return parse_rate(getattr(settings, name, None))
