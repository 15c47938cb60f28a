"""Queuing work when the broker is down: a warning, never a failed move."""

import logging
from datetime import UTC, datetime

from kombu.exceptions import OperationalError

from games import tasks
from games.scheduling import CeleryScheduler


def test_an_unreachable_broker_is_logged_and_left_to_the_sweeper(monkeypatch, caplog):
    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to redis.sock. Connection refused.")

    for task in (tasks.table_timer, tasks.bot_move, tasks.bot_ready, tasks.settle_hand):
        monkeypatch.setattr(task, "apply_async", refuse)
    scheduler = CeleryScheduler()

    with caplog.at_level(logging.WARNING, logger="games.scheduling"):
        scheduler.timer(7, 3, datetime(2026, 11, 23, tzinfo=UTC))
        scheduler.bot_move(7, 12, 1, 500)
        scheduler.bot_ready(7, 1, 500)
        scheduler.settle(12)

    assert [r.getMessage() for r in caplog.records] == [
        f"{name}{args} not queued (the sweeper will catch up): "
        "Error 111 connecting to redis.sock. Connection refused."
        for name, args in (
            ("games.tasks.table_timer", (7, 3)),
            ("games.tasks.bot_move", (7, 12, 1)),
            ("games.tasks.bot_ready", (7, 1)),
            ("games.tasks.settle_hand", (12,)),
        )
    ]
