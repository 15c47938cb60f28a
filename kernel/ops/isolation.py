"""Periodic work over many items (tables, holds): one bad item is rolled back
and logged, and cannot stop the others. The database away for a moment (a
restart, a fail-over, a dropped connection) or one of our bounds running out
is not a bug: it is logged as a warning, and the next run does the work."""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Callable, Iterable
from typing import ParamSpec, TypeVar

from django.db import InterfaceError, OperationalError, transaction

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")

#: What the database raises while it is away or a bound of ours ran out.
DATABASE_AWAY = (OperationalError, InterfaceError)


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
        except DATABASE_AWAY as exc:
            logger.warning("%s %r put off, the database did not answer: %s", what, item, exc)
        except Exception:
            logger.exception("%s %r failed", what, item)
    return done


def put_off_while_the_database_is_away(
    default: R, *, logger: logging.Logger
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A periodic task (or an after-commit announcement) that returns
    ``default`` with a warning, instead of failing with a traceback, when the
    database drops its connection or does not answer within our bounds: its
    next run (seconds later) does the work."""

    def decorate(task: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(task)
        def run(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return task(*args, **kwargs)
            except DATABASE_AWAY as exc:
                logger.warning("%s put off, the database did not answer: %s", task.__name__, exc)
                return copy.copy(default)

        return run

    return decorate
