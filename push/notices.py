"""What a table's after-commit work calls: who should be told what. One Redis
round trip keeps the notices whose player wants push (``index``), and a
delivery task is queued for each of those alone; nothing here reads the
database or waits for a push service."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from celery import current_app
from django.conf import settings
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

from . import index

logger = logging.getLogger(__name__)

DELIVER = "push.tasks.deliver"
# The notices: a player's turn, a hand about to start at their table, an invitation.
TURN, HAND, INVITE = "turn", "hand", "invite"


@dataclass(frozen=True)
class Notice:
    kind: str  # turn, hand or invite
    user_id: int
    table_id: int
    game: str
    extra: dict[str, Any] = field(default_factory=dict)


def send(notices: Sequence[Notice]) -> int:
    """Queue the delivery of the notices someone wants; returns how many."""
    if not notices or settings.PUSH_SENDER == "off":
        return 0
    try:
        wanted = index.wanted([(n.kind, n.user_id) for n in notices])
    except (RedisError, OSError) as exc:
        logger.warning("push index unreachable, %d notices dropped: %s", len(notices), exc)
        return 0
    queued = 0
    for notice, yes in zip(notices, wanted, strict=True):
        if not yes:
            continue
        try:
            enqueue(notice)
            queued += 1
        except (OperationalError, RedisError, OSError) as exc:
            logger.warning("push %s not queued: %s", notice, exc)
    return queued


def celery_enqueue(notice: Notice) -> None:
    current_app.send_task(
        DELIVER,
        (notice.kind, notice.user_id, notice.table_id, notice.game, notice.extra),
        # A turn that waited this long in the queue has passed: not sent.
        expires=settings.PUSH_TURN_TTL_S,
    )


#: How a wanted notice is queued (tests swap it for one that delivers at once).
enqueue: Callable[[Notice], None] = celery_enqueue
