"""What a log line is about: request id, user, table and hand, where known.

Context variables set by the HTTP middleware (``RequestContextMiddleware``), the
WebSocket consumers, the table services (``TableTx``) and Celery's task
signals; :class:`ContextFilter` copies them onto every log record. asgiref's
``sync_to_async`` copies the context into its threads, so what a consumer set is
seen by the service it calls.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar, Token
from typing import Any

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
user_id: ContextVar[int | None] = ContextVar("user_id", default=None)
table_id: ContextVar[int | None] = ContextVar("table_id", default=None)
hand_id: ContextVar[int | None] = ContextVar("hand_id", default=None)

FIELDS: dict[str, ContextVar[Any]] = {
    "request_id": request_id,
    "user": user_id,
    "table": table_id,
    "hand": hand_id,
}


def bind(**values: Any) -> dict[str, Token[Any]]:
    """Set some of ``request_id``, ``user``, ``table``, ``hand``; returns the
    tokens for :func:`unbind`."""
    return {name: FIELDS[name].set(value) for name, value in values.items()}


def unbind(tokens: dict[str, Token[Any]]) -> None:
    for name, token in tokens.items():
        with contextlib.suppress(ValueError):  # set in another context
            FIELDS[name].reset(token)


def clear() -> None:
    for var in FIELDS.values():
        var.set(None)


@contextlib.contextmanager
def bound(**values: Any) -> Iterator[None]:
    tokens = bind(**values)
    try:
        yield
    finally:
        unbind(tokens)


def current() -> dict[str, Any]:
    return {name: value for name, var in FIELDS.items() if (value := var.get()) is not None}


class ContextFilter(logging.Filter):
    """Puts the context on the record: each field as an attribute (None when
    unknown) and ``context``, a short ``[request_id=… user=…]`` for plain lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        known = current()
        for name in FIELDS:
            if not hasattr(record, name):
                setattr(record, name, known.get(name))
        record.context = (
            " [" + " ".join(f"{k}={v}" for k, v in known.items()) + "]" if known else ""
        )
        return True
