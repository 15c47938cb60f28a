"""Work that happens later: timers, bot moves and settlement (Celery tasks).

Run only after commit (``games.aftercommit.run``). Tasks are sent by name, so
this module (and the services above it) never import ``games.tasks``. Tests
swap ``scheduler`` for a recorder to run the work deterministically.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Protocol

from celery import current_app
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# The task names (games/tasks.py; routed to their queues by CELERY_TASK_ROUTES).
TIMER = "games.tasks.table_timer"
BOT_MOVE = "games.tasks.bot_move"
BOT_READY = "games.tasks.bot_ready"
SETTLE = "games.tasks.settle_hand"


class Scheduler(Protocol):
    def timer(self, table_id: int, clock_version: int, at: datetime) -> None: ...

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None: ...

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None: ...

    def settle(self, hand_id: int) -> None: ...


def _send(name: str, args: tuple[Any, ...], **options: Any) -> None:
    """Queue a task; if the broker is unreachable, say so and go on: the
    sweeper (Celery beat) fires overdue clocks, settles and moves bots anyway,
    and what comes after this in the after-commit work (the other tasks, the
    pushes) still runs.

    A connection to the broker lost under kombu can fail as something other
    than a broker error (the multi-host drill saw ``AttributeError: 'NoneType'
    object has no attribute 'client'`` from its Redis transport once an app
    host had been cut off): that is tried once more (kombu connects anew)."""
    for attempt in (1, 2):
        try:
            current_app.send_task(name, args, **options)
            return
        except (OperationalError, RedisError, OSError) as exc:
            logger.warning("%s%s not queued (the sweeper will catch up): %s", name, args, exc)
            return
        except Exception as exc:
            if attempt == 2:
                logger.warning("%s%s not queued (the sweeper will catch up): %r", name, args, exc)
                return
            logger.info("%s%s: %r from the broker's client, sending again", name, args, exc)


class CeleryScheduler:
    def timer(self, table_id: int, clock_version: int, at: datetime) -> None:
        _send(TIMER, (table_id, clock_version), eta=at)

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None:
        _send(BOT_MOVE, (table_id, hand_id, position), countdown=delay_ms / 1000)

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None:
        _send(BOT_READY, (table_id, position), countdown=delay_ms / 1000)

    def settle(self, hand_id: int) -> None:
        _send(SETTLE, (hand_id,))


scheduler: Scheduler = CeleryScheduler()
