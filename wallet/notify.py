"""Tell a player's open pages that their balance changed (after commit only)."""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def balances_changed(owners: dict[int, tuple[int, int]]) -> None:
    """Best effort: the ledger is already committed; a page that misses this
    reads the balance on its next load."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        for user_id, (balance, available) in owners.items():
            async_to_sync(layer.group_send)(
                user_group(user_id),
                {"type": "wallet.balance", "balance": balance, "available": available},
            )
    except (OSError, RedisError) as exc:
        logger.warning("balance notification not sent: %s", exc)
