"""The sweeper's heartbeat: a Redis key its task sets when a run ends, which
``/readyz`` and ``/metrics`` read (``vipgame.ops.health``)."""

from __future__ import annotations

import logging
import time
from functools import lru_cache

import redis
from django.conf import settings

from kernel import redis_urls

logger = logging.getLogger(__name__)


@lru_cache(maxsize=4)
def _client(url: str, timeout: float) -> redis.Redis:
    return redis_urls.client(
        url,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        health_check_interval=30,
        **redis_urls.keepalive(url, settings.REDIS_TCP_KEEPALIVE),
    )


def client_for(url: str) -> redis.Redis:
    """The same of any Redis (``/readyz`` pings each role's)."""
    return _client(url, settings.READY_TIMEOUT_S)


def redis_client() -> redis.Redis:
    """A small client of our own (short time-outs) for probes and metrics, of
    the cache's Redis (where the heartbeat is)."""
    return _client(settings.REDIS_CACHE_URL, settings.READY_TIMEOUT_S)


def broker_client() -> redis.Redis:
    """The same of Celery's broker (its queues' lengths, for ``/metrics``)."""
    return _client(settings.REDIS_BROKER_URL, settings.READY_TIMEOUT_S)


def sweeper_key() -> str:
    return f"{settings.CACHES['default'].get('KEY_PREFIX', 'vipgame')}:ops:sweeper_last_run"


def record_sweeper_run(finished_at: float | None = None) -> None:
    """Called by the sweeper task when a run ends: its wall-clock time."""
    stamp = time.time() if finished_at is None else finished_at
    try:
        redis_client().set(sweeper_key(), repr(stamp), ex=3600)
    except (redis.RedisError, OSError) as exc:
        logger.warning("sweeper heartbeat not recorded: %s", exc)
