"""Periodic work over many items (tables, holds): one bad item is rolled back
and logged, and cannot stop the others. And a service transaction that lost to
another (a deadlock) is run again (``retried``)."""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable, Iterable
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.db import OperationalError, transaction
from psycopg import errors

from vipgame.errors import Busy
from vipgame.ops import metrics

logger = logging.getLogger(__name__)

T = TypeVar("T")


def each_on_its_own(
    what: str, items: Iterable[T], call: Callable[[T], object], *, logger: logging.Logger
) -> int:
    """Run ``call`` for every item in its own transaction (a savepoint inside
    one): one that raises is rolled back and logged with the item, and the
    others go on. Returns how many returned something true."""
    done = 0
    for item in items:
        try:
            with transaction.atomic():
                done += bool(call(item))
        except Exception:
            logger.exception("%s %r failed", what, item)
    return done


P = ParamSpec("P")
R = TypeVar("R")

# What PostgreSQL raises at a transaction that lost to another one, and that a
# run from the start can win: a deadlock's victim, a serialization failure,
# and a lock not granted in time (``lock_timeout``).
RETRIABLE = (errors.DeadlockDetected, errors.SerializationFailure, errors.LockNotAvailable)


def lost_to_another(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError) and isinstance(exc.__cause__, RETRIABLE)


def retried(func: Callable[P, R]) -> Callable[P, R]:
    """``transaction.atomic`` for a service, whose transaction is run again
    from the start (a bounded number of times, after a short jittered pause)
    when it loses to another (``lost_to_another``); after the last attempt it
    raises :class:`vipgame.errors.Busy`, never the database's error. Rolled
    back, an attempt leaves nothing behind: not its rows, not its
    ``on_commit`` work (Django drops it with the transaction). Called inside
    another transaction (a service calling a service), it is a savepoint and
    the outermost one retries: a deadlock aborts the whole transaction."""
    atomic = transaction.atomic(func)

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if transaction.get_connection().in_atomic_block:
            return atomic(*args, **kwargs)
        attempts = max(1, settings.DB_RETRY_ATTEMPTS)
        for attempt in range(1, attempts + 1):
            try:
                return atomic(*args, **kwargs)
            except OperationalError as exc:
                if not lost_to_another(exc):
                    raise
                metrics.transaction_retried(func.__qualname__)
                if attempt == attempts:
                    logger.warning(
                        "%s: lost to another transaction %d times", func.__name__, attempt
                    )
                    raise Busy() from exc
                pause = settings.DB_RETRY_BACKOFF_MS * attempt * random.uniform(0.5, 1.0)
                time.sleep(pause / 1000)
        raise AssertionError("unreachable")

    return run
