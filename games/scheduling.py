"""Work that happens later: timers, bot moves and settlement (Celery tasks).

Services call these only from ``transaction.on_commit`` callbacks. Tests swap
``scheduler`` for a recorder to run the work deterministically.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Scheduler(Protocol):
    def timer(self, table_id: int, clock_version: int, at: datetime) -> None: ...

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None: ...

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None: ...

    def settle(self, hand_id: int) -> None: ...


class CeleryScheduler:
    def timer(self, table_id: int, clock_version: int, at: datetime) -> None:
        from games.tasks import table_timer

        table_timer.apply_async((table_id, clock_version), eta=at)

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None:
        from games.tasks import bot_move

        bot_move.apply_async((table_id, hand_id, position), countdown=delay_ms / 1000)

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None:
        from games.tasks import bot_ready

        bot_ready.apply_async((table_id, position), countdown=delay_ms / 1000)

    def settle(self, hand_id: int) -> None:
        from games.tasks import settle_hand

        settle_hand.delay(hand_id)


scheduler: Scheduler = CeleryScheduler()
