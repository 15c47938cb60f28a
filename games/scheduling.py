"""Work that happens later: timers, bot moves and settlement (Celery tasks).

Services call these only from ``transaction.on_commit`` callbacks. Tests swap
``scheduler`` for a recorder to run the work deterministically.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Protocol

from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class Scheduler(Protocol):
    def timer(self, table_id: int, clock_version: int, at: datetime) -> None: ...

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None: ...

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None: ...

    def settle(self, hand_id: int) -> None: ...


def _send(task: Any, args: tuple[Any, ...], **options: Any) -> None:
    """Queue a task; if the broker is unreachable, say so and go on: the
    sweeper (Celery beat) fires overdue clocks, settles and moves bots anyway."""
    try:
        task.apply_async(args, **options)
    except (OperationalError, RedisError, OSError) as exc:
        logger.warning("%s%s not queued (the sweeper will catch up): %s", task.name, args, exc)


class CeleryScheduler:
    def timer(self, table_id: int, clock_version: int, at: datetime) -> None:
        from games.tasks import table_timer

        _send(table_timer, (table_id, clock_version), eta=at)

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None:
        from games.tasks import bot_move

        _send(bot_move, (table_id, hand_id, position), countdown=delay_ms / 1000)

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None:
        from games.tasks import bot_ready

        _send(bot_ready, (table_id, position), countdown=delay_ms / 1000)

    def settle(self, hand_id: int) -> None:
        from games.tasks import settle_hand

        _send(settle_hand, (hand_id,))


scheduler: Scheduler = CeleryScheduler()
