"""Celery: table timers, bot moves, settlement and the sweeper. All idempotent."""

import logging
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from celery import shared_task
from django.utils.translation import gettext_lazy as _

from games import scheduling, selectors
from games.errors import TableNotFound
from games.services import (
    claim_timers,
    hand_settle,
    table_bot_move,
    table_bot_ready,
    table_close,
    table_release_bots,
    table_timeout,
)
from kernel.ops import heartbeat, isolation, metrics
from kernel.retry import TASK_RETRIES

logger = logging.getLogger(__name__)
T = TypeVar("T")
IDLE_REASON = _("Closed: nothing happened at this table for a while.")


def _for_a_table(task: str, table_id: int, call: Callable[[], object]) -> bool:
    """A table's timer or bot task; one queued for a table that no longer exists
    (a restored backup, a database reset) is dropped with a warning."""
    try:
        return bool(call())
    except TableNotFound:
        logger.warning("%s: table %s does not exist; task dropped", task, table_id)
        return False


@shared_task(acks_late=True, **TASK_RETRIES)
def table_timer(table_id: int, clock_version: int) -> bool:
    return _for_a_table(
        "timer", table_id, lambda: table_timeout(table_id=table_id, clock_version=clock_version)
    )


@shared_task(acks_late=True, **TASK_RETRIES)
def bot_move(table_id: int, hand_id: int, position: int) -> bool:
    return _for_a_table(
        "bot move",
        table_id,
        lambda: table_bot_move(table_id=table_id, hand_id=hand_id, position=position),
    )


@shared_task(acks_late=True, **TASK_RETRIES)
def bot_ready(table_id: int, position: int) -> None:
    _for_a_table(
        "bot ready", table_id, lambda: table_bot_ready(table_id=table_id, position=position)
    )


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=1, max_retries=None)
def settle_hand(hand_id: int) -> bool:
    return hand_settle(hand_id=hand_id)


def each_on_its_own(what: str, items: Iterable[T], call: Callable[[T], object]) -> int:
    return isolation.each_on_its_own(f"sweeper: {what}", items, call, logger=logger)


# The sweeper runs every 2 s: one that takes longer than a few seconds is stuck
# (the next runs do its work anyway).
@shared_task(soft_time_limit=8, time_limit=10)
@isolation.put_off_while_the_database_is_away({"put_off": 1}, logger=logger)
def sweeper() -> dict[str, int]:
    """Every 2 s (beat): queue the timer tasks of clocks about to run out, fire
    overdue clocks, settle forgotten hands, nudge stalled bots and ready idle
    ones, send the bots of tables without people back to the pool
    (``BOT_RELEASE_SECONDS``), so a lost task or a dead worker delays things by seconds. Each table
    is handled on its own: one that fails is logged and cannot stop the others.
    Each run that ends records its time in Redis (``/readyz``) and its duration."""
    started = time.perf_counter()
    fired = each_on_its_own(
        "clock", selectors.sweep(), lambda tv: table_timeout(table_id=tv[0], clock_version=tv[1])
    )
    for table_id, clock_version, deadline in claim_timers():
        scheduling.scheduler.timer(table_id, clock_version, deadline)
    settled = each_on_its_own("hand", selectors.unsettled_hands(), lambda h: hand_settle(hand_id=h))
    moved = each_on_its_own(
        "bot move",
        selectors.table_bots_due(),
        lambda thp: table_bot_move(table_id=thp[0], hand_id=thp[1], position=thp[2]),
    )
    each_on_its_own(
        "bot ready",
        selectors.bots_unready(),
        lambda tp: table_bot_ready(table_id=tp[0], position=tp[1]),
    )
    released = each_on_its_own(
        "bots without people",
        selectors.tables_without_people(),
        lambda t: table_release_bots(table_id=t),
    )
    metrics.sweeper_ran(time.perf_counter() - started)
    heartbeat.record_sweeper_run()
    return {"fired": fired, "settled": settled, "bots": moved, "released": released}


@shared_task
@isolation.put_off_while_the_database_is_away(0, logger=logger)
def close_idle_tables() -> int:
    """Every minute (beat): close the tables where nothing happened for
    ``TABLE_IDLE_MINUTES`` (seats freed, holds released, bots' chips back to
    the house), each on its own."""
    return each_on_its_own(
        "idle table",
        selectors.idle_tables(),
        lambda t: table_close(table_id=t, by=None, reason=str(IDLE_REASON)) or True,
    )
