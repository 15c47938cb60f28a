"""Tiến Lên Miền Nam at a table: wallet holds, the last winner leads next."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from games.models import Seat, Table
from games.refs import SeatRef
from games.rules.game import Outcome

from .base import GamePlugin
from .knobs import Range, choice, number


class TienLen(GamePlugin):
    game = "tienlen"
    rules = "games.rules.tienlen"
    browser_module = "js/games/tienlen.js"
    label = "Tiến Lên"
    title = "Tiến Lên Miền Nam"
    blurb = _("Be the first to play all your cards; chop the 2s!")
    schema_name = "TienLen"
    seats = Range(2, 4)
    clock_seconds = {"turn": "turn_seconds"}
    knobs = {
        "cong_penalty": number(0, 52),
        "toi_trang_flat": number(0, 52),
        "ket_3_bich": number(0, 52),
        "chan_ket_3_bich": number(0, 52),
        "first_lead": choice("random", "three_spades"),
        "toi_trang_payout": choice("flat", "tiered"),
    }

    def setup(
        self, table: Table, seats: Sequence[Seat], draws: Sequence[int], stacks: Sequence[int]
    ) -> dict[str, Any]:
        positions = [s.position for s in seats]
        previous = table.carry.get("last_winner")
        return {
            "previous_winner": positions.index(previous) if previous in positions else None,
            "random_first": draws[0],
        }

    def table_carry(
        self, table: Table, seats: Sequence[SeatRef], outcome: Outcome, setup: dict[str, Any]
    ) -> dict[str, Any]:
        winner = outcome.summary.get("winner")
        last = seats[winner].position if isinstance(winner, int) else None
        return {**table.carry, "last_winner": last}

    def example_setup(self, players: int) -> dict[str, Any]:
        return {"previous_winner": None, "random_first": 0}
