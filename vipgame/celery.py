import logging
import os
from typing import Any

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


def _restore_unacked_unless_detached(qos: Any, client: Any = None) -> Any:
    """kombu's Redis ``QoS.restore_unacked``, but a no-op once the channel's
    transport has been detached from its connection.

    When the broker goes away (the Redis primary killed: the redis-failover
    drill of tests/hostdrill.py, 2026-11-29) while a worker holds messages
    it has not acknowledged, Celery 5.7's consumer first ``collect()``s the
    connection (which detaches the transport: ``client = None``) and then
    closes it; the channel, left open by the first pass, tries to put those
    messages back through the detached transport and raises AttributeError
    (``'NoneType' object has no attribute 'hostname'``), which Celery takes
    for an unrecoverable error: the worker exits. Skipped, the messages stay
    in the broker's ``unacked`` hash, from which kombu's ``restore_visible``
    puts them back after the visibility time-out (and the sweeper finds the
    work they stood for in PostgreSQL before that)."""
    if client is None and qos.channel.connection.client is None:
        return None
    return _restore_unacked(qos, client)


_restore_unacked = kombu_redis.QoS.restore_unacked
kombu_redis.QoS.restore_unacked = _restore_unacked_unless_detached  # type: ignore[method-assign,assignment]


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
