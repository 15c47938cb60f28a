"""Celery's signals: our log format on its handlers, the log context per task,
and no connection pool in workers.

Imported by ``vipgame.celery`` (before the worker configures logging).
"""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
)

from . import context
from .context import ContextFilter
from .logconfig import FORMATTERS, JsonFormatter, PlainFormatter


def _apply_format(logger: logging.Logger, **kwargs: Any) -> None:
    from django.conf import settings

    kind = getattr(settings, "LOG_FORMAT", "plain")
    for handler in logger.handlers:
        handler.setFormatter(
            JsonFormatter() if FORMATTERS.get(kind) == "JsonFormatter" else PlainFormatter()
        )
        if not any(isinstance(f, ContextFilter) for f in handler.filters):
            handler.addFilter(ContextFilter())


@after_setup_logger.connect
def _root_logger(logger: logging.Logger, **kwargs: Any) -> None:
    _apply_format(logger)


@after_setup_task_logger.connect
def _task_logger(logger: logging.Logger, **kwargs: Any) -> None:
    _apply_format(logger)


@task_prerun.connect
def _task_started(task_id: str | None = None, **kwargs: Any) -> None:
    context.clear()
    context.bind(request_id=task_id)


@task_postrun.connect
def _task_done(**kwargs: Any) -> None:
    context.clear()


@worker_init.connect
def no_pool_in_workers(**kwargs: Any) -> None:
    """Celery's Django fix-up closes the database connections (and, in prefork
    children, the pool) before and after every task: a pool would be built
    and torn down, threads and all, for each task. Workers connect per task,
    as they did before the pool; one connection per child process."""
    from django.conf import settings

    drop_pool(settings.DATABASES)


def drop_pool(databases: dict[str, Any]) -> None:
    for database in databases.values():
        if (database.get("OPTIONS") or {}).pop("pool", None) is not None:
            database["CONN_MAX_AGE"] = 0


@worker_process_init.connect
def _forget_inherited_pools(**kwargs: Any) -> None:
    """A forked child must not use its parent's connection pool (its sockets
    and threads belong to the parent): forget it without closing it."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    pools: dict[str, Any] = getattr(DatabaseWrapper, "_connection_pools", {})
    pools.clear()
