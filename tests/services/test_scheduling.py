"""Queuing work when the broker is down: a warning, never a failed move."""

import logging
from datetime import UTC, datetime

from django.conf import settings
from kombu.exceptions import OperationalError

from games import scheduling, tasks
from games.scheduling import CeleryScheduler
from vipgame.celery import app

NAMES = (scheduling.TIMER, scheduling.BOT_MOVE, scheduling.BOT_READY, scheduling.SETTLE)


def test_work_is_sent_by_the_names_of_registered_tasks_routed_to_their_queues():
    assert [tasks.table_timer.name, tasks.bot_move.name, tasks.bot_ready.name] == list(NAMES[:3])
    assert tasks.settle_hand.name == scheduling.SETTLE
    queues = {name: app.amqp.router.route({}, name, (), {})["queue"].name for name in NAMES}
    assert queues == {
        scheduling.TIMER: settings.QUEUES["timers"],
        scheduling.BOT_MOVE: settings.QUEUES["bots"],
        scheduling.BOT_READY: settings.QUEUES["bots"],
        scheduling.SETTLE: settings.QUEUES["settle"],
    }


def test_an_unreachable_broker_is_logged_and_left_to_the_sweeper(monkeypatch, caplog):
    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to redis.sock. Connection refused.")

    monkeypatch.setattr(app, "send_task", refuse)
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


def test_a_client_fault_on_a_lost_connection_is_tried_again_then_left(monkeypatch, caplog):
    """kombu's Redis transport, its connection lost under it, once failed with
    an AttributeError (the multi-host drill): the task is sent again, and if
    that fails too, it is left to the sweeper; the after-commit work after it
    goes on."""
    calls = []

    def lost_once(name, args, **kwargs):
        calls.append(name)
        if len(calls) == 1:
            raise AttributeError("'NoneType' object has no attribute 'client'")

    monkeypatch.setattr(app, "send_task", lost_once)
    CeleryScheduler().bot_move(7, 12, 1, 500)
    assert calls == [scheduling.BOT_MOVE, scheduling.BOT_MOVE]

    def lost(name, args, **kwargs):
        raise AttributeError("'NoneType' object has no attribute 'client'")

    monkeypatch.setattr(app, "send_task", lost)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="games.scheduling"):
        CeleryScheduler().settle(12)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [
        "games.tasks.settle_hand(12,) not queued (the sweeper will catch up): "
        "AttributeError(\"'NoneType' object has no attribute 'client'\")"
    ]
