"""Celery: table timers, bot moves, settlement and the sweeper. All idempotent."""

import time

from celery import shared_task

from games import scheduling
from games.services import hand_settle, table_bot_move, table_bot_ready, table_timeout
from games.services.play import table_bots_due
from games.services.settle import unsettled_hands
from games.services.tables import bots_unready, sweep, timers_to_queue
from vipgame.ops import health, metrics


@shared_task(acks_late=True)
def table_timer(table_id: int, clock_version: int) -> bool:
    return table_timeout(table_id=table_id, clock_version=clock_version)


@shared_task(acks_late=True)
def bot_move(table_id: int, hand_id: int, position: int) -> bool:
    return table_bot_move(table_id=table_id, hand_id=hand_id, position=position)


@shared_task(acks_late=True)
def bot_ready(table_id: int, position: int) -> None:
    table_bot_ready(table_id=table_id, position=position)


@shared_task(acks_late=True, autoretry_for=(Exception,), retry_backoff=1, max_retries=None)
def settle_hand(hand_id: int) -> bool:
    return hand_settle(hand_id=hand_id)


@shared_task
def sweeper() -> dict[str, int]:
    """Every 2 s (beat): queue the timer tasks of clocks about to run out, fire
    overdue clocks, settle forgotten hands, nudge stalled bots and ready idle
    ones, so a lost task or a dead worker delays things by seconds. Each run
    that ends records its time in Redis (``/readyz``) and its duration."""
    started = time.perf_counter()
    fired = sum(table_timeout(table_id=t, clock_version=v) for t, v in sweep())
    for table_id, clock_version, deadline in timers_to_queue():
        scheduling.scheduler.timer(table_id, clock_version, deadline)
    settled = sum(hand_settle(hand_id=h) for h in unsettled_hands())
    moved = sum(table_bot_move(table_id=t, hand_id=h, position=p) for t, h, p in table_bots_due())
    for table_id, position in bots_unready():
        table_bot_ready(table_id=table_id, position=position)
    metrics.sweeper_ran(time.perf_counter() - started)
    health.record_sweeper_run()
    return {"fired": fired, "settled": settled, "bots": moved}
