"""Item 7 of issue 18: named queues with routes, time limits, periodic tasks
that expire before their next run, beat on its own."""

import re
import secrets
import time
from typing import Any

import pytest
import redis
from django.conf import settings

from bench.stack import wait_until

from . import processes
from .topology import exec_start, local_paths


def queue_of(task: str) -> str:
    from vipgame.celery import app

    return str(app.amqp.router.route({}, task)["queue"].name)


def test_tasks_go_to_named_queues():
    assert queue_of("games.tasks.table_timer") == settings.QUEUES["timers"]
    assert queue_of("games.tasks.settle_hand") == settings.QUEUES["settle"]
    assert queue_of("games.tasks.bot_move") == settings.QUEUES["bots"]
    assert queue_of("games.tasks.bot_ready") == settings.QUEUES["bots"]
    assert queue_of("games.tasks.sweeper") == settings.QUEUES["default"]
    assert queue_of("wallet.tasks.expire_holds") == settings.QUEUES["default"]
    # A worker started without -Q consumes every one of them.
    from vipgame.celery import app

    assert set(app.amqp.queues) == set(settings.QUEUES.values())


def test_tasks_have_time_limits():
    from vipgame.celery import app

    assert app.conf.task_soft_time_limit == 30
    assert app.conf.task_time_limit == 60
    from games.tasks import sweeper

    assert (sweeper.soft_time_limit, sweeper.time_limit) == (8, 10)


def test_every_periodic_task_expires_before_its_next_run():
    schedule: dict[str, dict[str, Any]] = settings.CELERY_BEAT_SCHEDULE
    for name, entry in schedule.items():
        assert 0 < entry["options"]["expires"] < entry["schedule"], name


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_beat_without_a_worker_piles_up_nothing_that_runs_later(tmp_path):
    """Beat alone queues a sweeper every 2 s; when a worker comes, it discards
    every one of them unrun (they expired) instead of running them all."""
    prefix = f"hygiene-{secrets.token_hex(3)}"
    env = processes.process_env(tmp_path, CELERY_QUEUE=prefix)
    queue = f"{prefix}-default"
    broker = redis.Redis.from_url(settings.REDIS_URL)
    # Beat as deploy/systemd/vipgame-beat.service runs it.
    beat = exec_start("vipgame-beat.service", "", local_paths(tmp_path, tmp_path))
    with processes.running(beat, env, tmp_path / "beat.log"):
        assert wait_until(lambda: broker.llen(queue) >= 4, 40), "beat queued no sweeper"
    queued = broker.llen(queue)
    time.sleep(2)  # the last one expires too
    worker = [str(processes.BIN / "celery"), "-A", "vipgame", "worker", "-l", "DEBUG",
              "--concurrency", "1", "--hostname", f"{prefix}@%h"]  # fmt: skip
    log = tmp_path / "worker.log"
    # (every periodic task beat queued: the sweeper's, the Sit & Gos'...)
    discarded = re.compile(r"Discarding revoked task: [\w.]+\[")
    with processes.running(worker, env, log):
        assert wait_until(
            lambda: len(discarded.findall(log.read_text(errors="replace"))) >= queued, 60
        ), log.read_text(errors="replace")[-3000:]
        time.sleep(1)
    text = log.read_text(errors="replace")
    broker.delete(*(f"{prefix}-{name}" for name in ("default", "timers", "settle", "bots")))
    assert len(discarded.findall(text)) == queued
    assert not re.search(r"tasks\.\w+\[[^\]]+\] succeeded", text)
    assert "games.tasks.sweeper[" in text
