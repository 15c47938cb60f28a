"""How long a bot thinks before it moves (docs/architecture.md, "Bots").

A bot's pause is the table's think time (``bot_delay_ms`` to
``bot_delay_max_ms``, drawn) times the weight of the decision, which the
game's plugin reads from the spectators' view only (``GamePlugin.bot_think``:
leading in Tiến Lên, facing a big bet in Poker, arranging thirteen cards in
Mậu Binh), so a bot's pause tells nothing its cards would. It never takes more
than ``THINK_SHARE`` of the clock it answers: the bot moves, its clock does not
run out.

The draw comes from the hand's seed, the table's version and the seat, so the
sweeper, reading the same row, finds the same pause and can tell a bot still
thinking from one whose task was lost (``games.selectors.table_bots_due``).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from games.models import Hand, Table
from games.plugins import GamePlugin

#: The most of its clock a bot's think time takes.
THINK_SHARE = 0.6


def think_ms(plugin: GamePlugin, table: Table, hand: Hand, state: Any, player: int) -> int:
    """The milliseconds the bot playing as ``player`` thinks over its decision
    in ``state``, at ``table`` as it is after the change that made it its turn."""
    weight = plugin.bot_think(plugin.engine.view(state, None), player)
    low = table.bot_delay_ms
    high = max(table.bot_delay_max_ms, low)
    digest = hashlib.sha256(f"think:{hand.server_seed}:{table.version}:{player}".encode()).digest()
    ms = random.Random(digest).uniform(low, high) * weight  # think time, not a secret
    if table.deadline is not None and table.clock_started_at is not None:
        clock_ms = (table.deadline - table.clock_started_at).total_seconds() * 1000
        ms = min(ms, THINK_SHARE * clock_ms)
    return max(0, int(ms))
