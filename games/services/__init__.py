"""The only code that changes a table (docs/architecture.md "How a move flows").

Each service is one transaction: it opens a unit of work (``work.TableWork``)
that locks the table row, calls the pure engine, bumps ``Table.version`` once,
and returns the after-commit work (publication, timers, bot moves,
settlement) as data for ``games.aftercommit.run``.

The modules build on each other in one direction, never back (import-linter
checks it): ``work`` <- ``hands`` <- ``seats`` <- ``settle`` <- ``tables``.
"""

from .hands import table_act, table_bot_move
from .seats import (
    LEAVE_AFTER_HAND,
    LEAVE_NOW,
    invite_redeem,
    invite_send,
    play_now_ready,
    seat_presence,
    socket_open,
    sockets_heartbeat,
    table_add_bot,
    table_auto_ready,
    table_bot_ready,
    table_buy_in,
    table_leave,
    table_ready,
    table_release_bots,
    table_seat_player,
    table_seat_players,
    table_seed,
    table_sit,
    table_stay,
)
from .settle import hand_settle
from .tables import (
    chat_post,
    chat_report,
    claim_timers,
    table_close,
    table_close_own,
    table_create,
    table_play_now,
    table_timeout,
)

__all__ = [
    "LEAVE_AFTER_HAND",
    "LEAVE_NOW",
    "chat_post",
    "chat_report",
    "claim_timers",
    "hand_settle",
    "invite_redeem",
    "invite_send",
    "play_now_ready",
    "seat_presence",
    "socket_open",
    "sockets_heartbeat",
    "table_act",
    "table_add_bot",
    "table_auto_ready",
    "table_bot_move",
    "table_bot_ready",
    "table_buy_in",
    "table_close",
    "table_close_own",
    "table_create",
    "table_leave",
    "table_play_now",
    "table_ready",
    "table_release_bots",
    "table_seat_player",
    "table_seat_players",
    "table_seed",
    "table_sit",
    "table_stay",
    "table_timeout",
]
