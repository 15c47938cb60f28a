"""The only code that changes a table (DESIGN.md "How a move flows").

Each function is one transaction that locks the table row, calls the pure
engine, bumps ``Table.version`` and, after commit only, publishes each seat's
view and schedules timers, bot moves and settlement.
"""

from .play import table_act, table_bot_move
from .settle import hand_settle
from .tables import (
    chat_post,
    seat_presence,
    table_add_bot,
    table_bot_ready,
    table_buy_in,
    table_close,
    table_create,
    table_leave,
    table_ready,
    table_seed,
    table_sit,
    table_timeout,
)

__all__ = [
    "chat_post",
    "hand_settle",
    "seat_presence",
    "table_act",
    "table_add_bot",
    "table_bot_move",
    "table_bot_ready",
    "table_buy_in",
    "table_close",
    "table_create",
    "table_leave",
    "table_ready",
    "table_seed",
    "table_sit",
    "table_timeout",
]
