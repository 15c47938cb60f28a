"""Tell a player's open pages something after commit: their balance changed,
a moderator acted, a log-out closes their sockets (best effort)."""

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def tell_user(user_id: int, message: dict[str, Any]) -> bool:
    """Best effort, to every lobby and table socket of the user: False (and a
    warning logged) when the channel layer cannot be reached."""
    layer = get_channel_layer()
    if layer is None:
        return False
    try:
        async_to_sync(layer.group_send)(user_group(user_id), message)
    except (OSError, RedisError) as exc:
        logger.warning("message %s to user %s not sent: %s", message.get("type"), user_id, exc)
        return False
    return True


def balances_changed(owners: dict[int, tuple[int, int]]) -> None:
    """Best effort: the ledger is already committed; a page that misses this
    reads the balance on its next load."""
    for user_id, (balance, available) in owners.items():
        message = {"type": "wallet.balance", "balance": balance, "available": available}
        if not tell_user(user_id, message):
            return
