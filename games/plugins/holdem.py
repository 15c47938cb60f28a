"""Texas Hold'em at a table: buy-ins in seat escrows, chips not units, the
button and time banks carried between hands, PHH export."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from games.models import Hand, Seat, Table
from games.refs import SeatRef
from games.rules.game import Outcome
from games.rules.holdem.phh import export_phh

from .base import GamePlugin, Range
from .money import EscrowStacks


class Holdem(GamePlugin):
    game = "holdem"
    rules = "games.rules.holdem"
    browser_module = "js/games/holdem.js"
    label = "Poker"
    blurb = _("Texas Hold'em: two cards, five on the board, four betting rounds.")
    schema_name = "Holdem"
    seats = Range(2, 9)
    table_fields = ("max_raise", "buy_in_min", "buy_in_max")
    # The action clock is the table's turn clock (turn_seconds), the player
    # count its seat_count and the buy-in its buy_in_min/max: not options (the
    # ruleset's own min_players/max_players and buy_in_*_big_blinds keep their
    # preset values).
    option_ranges = {
        "small_blind_units": Range(1, 5),
        "big_blind_units": Range(1, 10),
        "time_bank_max_ms": Range(0, 300_000),
        "time_bank_topup_ms": Range(0, 60_000),
        "timeouts_to_sit_out": Range(1, 10),
    }
    money = EscrowStacks()
    keeps_ready = True
    pays_in_units = False

    def ruleset(self, table: Table) -> Any:
        # The engine charges the time bank after the table's own turn clock.
        options = {**table.options, "action_clock_ms": table.turn_seconds * 1000}
        return self.ruleset_of(table.preset, options)

    def max_raise_floor(self, ruleset: Any) -> int | None:
        return int(ruleset.big_blind_units)

    def setup(
        self, table: Table, seats: Sequence[Seat], draws: Sequence[int], stacks: Sequence[int]
    ) -> dict[str, Any]:
        positions = [s.position for s in seats]
        if table.button_position is None:
            button = draws[0]
        else:
            later = [i for i, p in enumerate(positions) if p > table.button_position]
            button = later[0] if later else 0
        return {
            "stake": table.stake,
            "max_raise": table.max_raise,
            "button": button,
            "stacks": list(stacks),
            "time_banks_ms": [s.time_bank_ms for s in seats],
            "timeouts": [s.timeouts for s in seats],
        }

    def extra_clock_ms(self, state: Any, actor: int) -> int:
        banks = self.engine.view(state, None).get("time_banks_ms") or []
        return int(banks[actor]) if actor < len(banks) else 0

    def after_hand(
        self, table: Table, seats: Sequence[SeatRef], outcome: Outcome, setup: dict[str, Any]
    ) -> dict[int, dict[str, Any]]:
        table.button_position = seats[int(setup["button"])].position
        summary = outcome.summary
        changes: dict[int, dict[str, Any]] = {}
        for i, seat in enumerate(seats):
            change: dict[str, Any] = {
                "time_bank_ms": int(summary["time_banks_ms"][i]),
                "timeouts": int(summary["timeouts"][i]),
            }
            if i in summary["sit_out"]:
                change.update(sitting_out=True, ready=False)
            changes[seat.id] = change
        return changes

    def hand_export(
        self, hand: Hand, state: Any, player: int | None, *, reveal_all: bool
    ) -> str | None:
        return export_phh(
            state,
            player,
            reveal_all=reveal_all,
            hand=hand.pk,
            names=[p["name"] for p in hand.players],
        )

    def example_setup(self, players: int) -> dict[str, Any]:
        return {"stake": 10, "max_raise": None, "button": 0, "stacks": [2000] * players}
