"""Issue 33 item 5: the table tasks run again, with backoff, after a transient
error of the database, Redis or the broker, and only after one."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from games import tasks
from kernel.errors import Busy

#: Each table task, the service it calls, and its arguments.
TASKS = [
    (tasks.table_timer, "table_timeout", (7, 3)),
    (tasks.bot_move, "table_bot_move", (7, 11, 2)),
    (tasks.bot_ready, "table_bot_ready", (7, 2)),
]


class Flaky:
    """A service that fails ``times`` times with ``error``, then answers."""

    def __init__(self, error: Exception, times: int) -> None:
        self.error, self.times, self.calls = error, times, 0

    def __call__(self, **kwargs: Any) -> bool:
        self.calls += 1
        if self.calls <= self.times:
            raise self.error
        return True


@pytest.mark.parametrize(("task", "service", "args"), TASKS, ids=lambda v: getattr(v, "name", v))
@pytest.mark.parametrize(
    "error",
    [OperationalError("server closed the connection"), RedisConnectionError("reset"), Busy()],
    ids=["database", "redis", "busy"],
)
def test_a_table_task_runs_again_after_a_transient_error(monkeypatch, task, service, args, error):
    flaky = Flaky(error, times=2)
    monkeypatch.setattr(tasks, service, flaky)
    result = task.apply(args=args)
    assert result.successful(), result.traceback
    assert flaky.calls == 3


@pytest.mark.parametrize(("task", "service", "args"), TASKS, ids=lambda v: getattr(v, "name", v))
def test_a_bug_is_not_retried(monkeypatch, task, service, args):
    flaky = Flaky(ValueError("a bug"), times=1)
    monkeypatch.setattr(tasks, service, flaky)
    result = task.apply(args=args)
    assert result.failed()
    assert flaky.calls == 1
