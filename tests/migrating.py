"""Run a data migration on rows saved at the schema before it: the database
goes back to an earlier migration of an app, the test saves rows with that
migration's models, then the database goes forward to the latest again
(also when the test fails). For ``transactional_db`` tests (PostgreSQL will
not alter a table with pending deferred checks in one transaction)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@contextmanager
def back_at(app: str, migration: str) -> Iterator[Callable[[str], Any]]:
    """The database at ``app``'s ``migration``; yields ``forward(name)``,
    which migrates ``app`` to ``name`` and returns that state's models."""
    _migrate([(app, migration)])
    try:
        yield lambda name: _migrate([(app, name)])
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def models_at(app: str, migration: str) -> Any:
    """The models of ``app`` as ``migration`` left them (its historical apps)."""
    return MigrationExecutor(connection).loader.project_state((app, migration)).apps
