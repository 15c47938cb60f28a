import logging
import os
from typing import Any

import redis
from celery import Celery
from celery.signals import beat_init, worker_init
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")

app = Celery("vipgame")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class RoutineAtDebug(logging.Filter):
    """Celery's INFO lines about the routine tasks (beat sending one, a worker
    receiving, finishing or discarding it) are logged at DEBUG instead. The
    sweeper runs every 2 s (the tournaments' beat every 5 s), and a table's timers, bots' moves and
    settlements come with the moves: at 20,000 players their three lines each
    were 1–1.6 GB of logs an hour (issue 33), and drowned everything else.
    Their failures and retries (WARNING, ERROR) stay; the hourly retention
    run stays at INFO."""

    TASKS = (
        "games.tasks.sweeper",
        "wallet.tasks.expire_holds",
        "games.tasks.close_idle_tables",
        "games.tasks.table_timer",
        "games.tasks.bot_move",
        "games.tasks.bot_ready",
        "games.tasks.settle_hand",
        "tournaments.tasks.sit_and_gos",
    )

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO:
            return True
        text = f"{record.msg} {record.args}"
        if not any(task in text for task in self.TASKS):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return self.logger.isEnabledFor(logging.DEBUG)


for _name in ("celery.beat", "celery.worker.strategy", "celery.app.trace", "celery.worker.request"):
    _logger = logging.getLogger(_name)
    _logger.addFilter(RoutineAtDebug(_logger))


def _connparams_of_a_live_connection(channel: Any, asynchronous: bool = False) -> Any:
    """kombu's Redis ``Channel._connparams``, but a closed connection is a
    connection error (which Celery and kombu handle), not AttributeError.

    When the broker goes away (the Redis primary killed: the redis-failover
    drill of tests/hostdrill.py, 2026-11-29) while a worker holds messages
    it has not acknowledged, Celery 5.7's consumer first ``collect()``s the
    connection (which detaches the transport from it) and then closes it.
    Whatever then reaches the old channel for a new Redis client, the close
    putting those messages back (``Restoring 7 unacknowledged message(s)``)
    or a task finishing on the pool and acknowledging its message, found no
    connection: AttributeError (``'NoneType' object has no attribute
    'hostname'``, ``... 'client'``), which Celery takes for an unrecoverable
    error: the worker exited (the same AttributeError as kombu's old issue
    celery/kombu#582, "Error on restarting Gossip", which Celery still
    logs here). As a connection error, the close is ignored
    and the acknowledgement logged (``Couldn't ack``), as they are when the
    connection fails under them; the messages stay in the broker's
    ``unacked`` hash, which kombu puts back after its visibility time-out
    (the sweeper finds the work they stood for in PostgreSQL long before)."""
    transport = channel.connection
    if transport is None or transport.client is None:
        raise redis.exceptions.ConnectionError("the channel's broker connection was closed")
    return _connparams(channel, asynchronous=asynchronous)


_connparams = kombu_redis.Channel._connparams  # type: ignore[attr-defined]
kombu_redis.Channel._connparams = _connparams_of_a_live_connection  # type: ignore[attr-defined]


@worker_init.connect
@beat_init.connect
def _refuse_to_start(**kwargs: Any) -> None:
    """DEBUG=0 on SQLite or the embedded Redis: the worker and beat do not start."""
    from django.core.exceptions import ImproperlyConfigured

    from vipgame.checks import refuse_to_start

    try:
        refuse_to_start()
    except ImproperlyConfigured as refused:
        # Celery logs and ignores exceptions raised by signal handlers: exit.
        raise SystemExit(f"ImproperlyConfigured: {refused}") from None


# Our log format on Celery's handlers, the log context per task (vipgame/ops).
import vipgame.ops.celery_hooks  # noqa: E402, F401
