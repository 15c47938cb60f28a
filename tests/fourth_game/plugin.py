"""The high card plugin: the shared defaults (wallet holds, payments in units
of the stake), no browser screens, no exchange format."""

from __future__ import annotations

from games.plugins.base import GamePlugin
from games.plugins.knobs import Range


class HighCard(GamePlugin):
    game = "highcard"
    rules = "tests.fourth_game"
    label = "High card"
    schema_name = "HighCard"
    seats = Range(2, 2)
    clock_seconds = {"turn": "turn_seconds"}
