from typing import Any

from celery import shared_task

from . import index
from .models import Preferences, Subscription
from .services import NOTICES, push_deliver


@shared_task(acks_late=True)
def deliver(notice: str, user_id: int, table_id: int, game: str, extra: dict[str, Any]) -> int:
    return push_deliver(notice=notice, user_id=user_id, table_id=table_id, game=game, extra=extra)


@shared_task(acks_late=True)
def rebuild_index() -> int:
    """The index anew from the database (Redis may have lost it)."""
    subscribed = set(
        Subscription.objects.filter(user__is_active=True).values_list("user_id", flat=True)
    )
    off = {
        kind: set(Preferences.objects.filter(**{kind: False}).values_list("user_id", flat=True))
        for kind in NOTICES
    }
    for kind in NOTICES:
        index.replace(kind, subscribed - off[kind])
    return len(subscribed)
