"""A timer or bot task queued for a table that no longer exists (a restored
backup, a reset database, a test's leftover) is dropped with a warning, not
raised as a task error."""

import logging

import pytest

from games import tasks

pytestmark = pytest.mark.django_db


def test_tasks_for_a_missing_table_are_dropped_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="games.tasks"):
        assert tasks.table_timer.run(987654, 3) is False
        assert tasks.bot_move.run(987654, 1, 0) is False
        assert tasks.bot_ready.run(987654, 0) is None
    dropped = [r for r in caplog.records if "does not exist" in r.getMessage()]
    assert len(dropped) == 3
    assert all(r.levelno == logging.WARNING for r in dropped)
