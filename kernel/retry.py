"""A service's transaction run again when it loses to another one (a
deadlock's victim, a serialization failure, a ``lock_timeout``): every service
is decorated with :func:`retried` instead of ``transaction.atomic``
(docs/architecture.md "Lock order")."""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from kombu.exceptions import OperationalError as BrokerError
from prometheus_client import Counter
from psycopg import errors
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from kernel.errors import Busy

logger = logging.getLogger(__name__)

# (Here, not in kernel.ops.metrics: the services of every app use this module,
# and vipgame.ops reads some of their models.)
TRANSACTIONS_RETRIED = Counter(
    "vipgame_transactions_retried",
    "Service transactions lost to another one (a deadlock, a serialization failure) "
    "and run again, or answered busy after the last attempt, by service.",
    ["service"],
)


def note_retry(service: str) -> None:
    TRANSACTIONS_RETRIED.labels(service).inc()


P = ParamSpec("P")
R = TypeVar("R")

# What PostgreSQL raises at a transaction that lost to another one, and that a
# run from the start can win: a deadlock's victim, a serialization failure,
# and a lock not granted in time (``lock_timeout``).
RETRIABLE = (errors.DeadlockDetected, errors.SerializationFailure, errors.LockNotAvailable)


# What PostgreSQL raises at a statement that ran out of time (``statement_timeout``;
# a lock wait past ``lock_timeout`` outside a retried service): nothing was
# done, and a later attempt may succeed, but running it again at once would
# only wait as long again.
TIMED_OUT = (errors.QueryCanceled, errors.LockNotAvailable)


def lost_to_another(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError) and isinstance(exc.__cause__, RETRIABLE)


def timed_out(exc: BaseException) -> bool:
    """A database error that is a bound of ours running out (a lock not granted
    in ``DB_LOCK_TIMEOUT_MS``, a statement past ``DB_STATEMENT_TIMEOUT_MS``):
    answered ``busy`` (try again), not ``server_error``."""
    cause = exc.__cause__ if isinstance(exc, OperationalError) else exc
    return isinstance(cause, TIMED_OUT)


def retried(func: Callable[P, R]) -> Callable[P, R]:
    """``transaction.atomic`` for a service, whose transaction is run again
    from the start (a bounded number of times, after a short jittered pause)
    when it loses to another (``lost_to_another``); after the last attempt it
    raises :class:`kernel.errors.Busy`, never the database's error. Rolled
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
                    if timed_out(exc):  # a statement past statement_timeout
                        note_retry(func.__qualname__)
                        logger.warning("%s: timed out in the database: %s", func.__name__, exc)
                        raise Busy() from exc
                    raise
                note_retry(func.__qualname__)
                if attempt == attempts:
                    logger.warning(
                        "%s: lost to another transaction %d times", func.__name__, attempt
                    )
                    raise Busy() from exc
                pause = settings.DB_RETRY_BACKOFF_MS * attempt * random.uniform(0.5, 1.0)
                time.sleep(pause / 1000)
        raise AssertionError("unreachable")

    return run


#: What a Celery task meets while the database, Redis or the broker is away
#: for a moment (a restart, a failover, a pooler's reconnect), or while its
#: rows stay contended (``Busy``): worth running the task again a little later.
TRANSIENT: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    RedisConnectionError,
    RedisTimeoutError,
    BrokerError,
    Busy,
)

#: The options of an idempotent task that is run again after a transient
#: error: after about 1, 2, 4, 8, 16 and 30 seconds (each jittered down to
#: spread a crowd of them), then given up to the sweeper, which finds the same
#: work from the database within seconds (docs/operations.md "Retries").
TASK_RETRIES: dict[str, Any] = {
    "autoretry_for": TRANSIENT,
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "retry_jitter": True,
    "max_retries": 6,
}
