"""Celery's signals: our log format on its handlers, the log context per task,
the failures and retries counted by task, and no connection pool in workers.

Imported by ``vipgame.celery`` (before the worker configures logging).
"""

from __future__ import annotations

import logging
from typing import Any

from celery.signals import (
    after_setup_logger,
    after_setup_task_logger,
    task_failure,
    task_postrun,
    task_prerun,
    task_retry,
    worker_init,
    worker_process_init,
)

from kernel.ops import context
from kernel.ops.context import ContextFilter
from kernel.ops.logconfig import FORMATTERS, JsonFormatter, PlainFormatter


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


def _check_connections(sender: Any) -> None:
    """Before and after each task (not one run eagerly, inside its caller's
    transaction): close a connection that is past ``CONN_MAX_AGE`` or
    unusable after an error, as Django does around each request. Celery's own
    fix-up closes them only every ``CELERY_DB_REUSE_MAX`` tasks."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


@task_prerun.connect
def _task_started(task_id: str | None = None, sender: Any = None, **kwargs: Any) -> None:
    context.clear()
    context.bind(request_id=task_id)
    _check_connections(sender)


@task_postrun.connect
def _task_done(sender: Any = None, **kwargs: Any) -> None:
    context.clear()
    _check_connections(sender)


def _task_name(sender: Any) -> str:
    return str(getattr(sender, "name", None) or "unknown")


@task_failure.connect
def _task_failed(sender: Any = None, **kwargs: Any) -> None:
    """A task ended in an exception: not retried, or past its last retry
    (``vipgame_celery_task_failures_total``)."""
    from kernel.ops import metrics  # (not at import: before the settings made its directory)

    metrics.celery_task_failed(_task_name(sender))


@task_retry.connect
def _task_retried(sender: Any = None, **kwargs: Any) -> None:
    """A task failed and was scheduled again (``vipgame_celery_task_retries_total``)."""
    from kernel.ops import metrics

    metrics.celery_task_retried(_task_name(sender))


@worker_init.connect
def no_pool_in_workers(**kwargs: Any) -> None:
    """No connection pool in workers: Celery's Django fix-up closes it in
    prefork children whenever it closes the connections, and a pool would be
    built and torn down, threads and all, for each task. Each pool process
    keeps one connection instead, from task to task (``WORKER_CONN_MAX_AGE``
    seconds; Celery's fix-up closes it every ``CELERY_DB_REUSE_MAX`` tasks):
    a connection made for every task cost the worker about a tenth of its CPU,
    PostgreSQL a new backend each time, and the hot path its prepared
    statements."""
    from django.conf import settings

    drop_pool(settings.DATABASES, settings.WORKER_CONN_MAX_AGE)


def drop_pool(databases: dict[str, Any], conn_max_age: int) -> None:
    """The pool's place taken by one kept connection, checked (one ``SELECT
    1``) before the first query of each task: one the server dropped (a
    restart, an idle time-out) is replaced before the task uses it, instead of
    failing that task."""
    for database in databases.values():
        if (database.get("OPTIONS") or {}).pop("pool", None) is not None:
            database["CONN_MAX_AGE"] = conn_max_age
            database["CONN_HEALTH_CHECKS"] = True


@worker_process_init.connect
def _forget_inherited_pools(**kwargs: Any) -> None:
    """A forked child must not use its parent's connection pool (its sockets
    and threads belong to the parent): forget it without closing it. It
    sends its publications on an event loop of its own (``notify.keep_a_loop``:
    one Redis connection, not one per publication)."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    from kernel import notify

    pools: dict[str, Any] = getattr(DatabaseWrapper, "_connection_pools", {})
    pools.clear()
    notify.keep_a_loop()
