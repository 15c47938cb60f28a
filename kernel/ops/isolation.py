"""Periodic work over many items (tables, holds): one bad item is rolled back
and logged, and cannot stop the others."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TypeVar

from django.db import transaction

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
