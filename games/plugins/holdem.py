"""Texas Hold'em at a table: buy-ins in seat escrows, chips not units, the
button and time banks carried between hands, PHH export."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from games.models import Hand, Seat, Table
from games.refs import SeatRef
from games.rules.game import Outcome
from games.rules.holdem.bot import think
from games.rules.holdem.phh import export_phh

from .base import GamePlugin
from .knobs import Range, number, table_number
from .money import EscrowStacks

#: A seat's time bank before its first hand (then carried between hands).
FRESH_TIME_BANK_MS = 30_000


def level_blinds(level: object) -> tuple[int, int, int] | None:
    """A tournament level's small blind, big blind and ante (a tournament table
    keeps the level in play in its carry, ``level``); None when there is none
    (a cash table) or it is not a blinds level."""
    if not isinstance(level, Mapping):
        return None
    values = [level.get(key) for key in ("small_blind", "big_blind", "ante")]
    whole = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    if len(whole) != 3 or whole[1] < 1:
        return None
    return whole[0], whole[1], whole[2]


class Holdem(GamePlugin):
    game = "holdem"
    rules = "games.rules.holdem"
    browser_module = "js/games/holdem.js"
    label = "Poker"
    blurb = _("Texas Hold'em: two cards, five on the board, four betting rounds.")
    schema_name = "Holdem"
    seats = Range(2, 9)
    tournament_seats = (6, 2)
    tournament_levels = "blinds"
    # The action clock is the table's turn clock (turn_seconds), the player
    # count its seat_count and the buy-in its buy_in_min/max: not rule knobs
    # (the ruleset's own min_players/max_players and buy_in_*_big_blinds keep
    # their preset values).
    knobs = {
        "max_raise": table_number(
            1, 1_000_000, None, nullable=True,
            label=_("Raise cap (stakes, empty = no limit)"),
            help="Poker: raise cap in stakes, at least the big blind.",
        ),
        "small_blind_units": number(1, 5),
        "big_blind_units": number(1, 10),
        "time_bank_max_ms": number(0, 300_000),
        "time_bank_topup_ms": number(0, 60_000),
        "timeouts_to_sit_out": number(1, 10),
    }  # fmt: skip
    clock_seconds = {"turn": "turn_seconds"}
    money = EscrowStacks()
    keeps_ready = True
    pays_in_units = False

    def ruleset(self, table: Table) -> Any:
        # The engine charges the time bank after the table's own turn clock.
        options = {
            **self.rule_options(table.settings),
            "action_clock_ms": self.clock_ms(table, "turn"),
        }
        return self.engine.ruleset(table.preset, options)

    rules_template = "rules/holdem.html"
    rules_sections = (
        ("deck", _("Deck and hands"), "docs/rules.md 4"),
        ("blinds", _("Button and blinds"), "docs/rules.md 4"),
        ("betting", _("Betting and raises"), "docs/rules.md 4"),
        ("pots", _("Pots, side pots and odd chips"), "docs/rules.md 4"),
        ("buyin", _("Buy-in"), "docs/rules.md 4"),
        ("clock", _("Clock and time bank"), "docs/rules.md 4"),
    )

    def rules_context(self, ruleset: Any, table: Table | None) -> dict[str, Any]:
        def table_or_preset(name: str) -> Any:
            return self.setting(table, name) if table is not None else self.knobs[name].default

        return {
            "max_raise": table_or_preset("max_raise"),
            # A table's own buy-in range, else the preset's.
            "buy_in_min": ruleset.buy_in_min_big_blinds
            if table is None
            else table_or_preset("buy_in_min"),
            "buy_in_max": ruleset.buy_in_max_big_blinds
            if table is None
            else table_or_preset("buy_in_max"),
            "turn_seconds": self.rules_seconds(table, "turn_seconds"),
            "time_bank": ruleset.time_bank_max_ms // 1000,
            "time_bank_topup": ruleset.time_bank_topup_ms // 1000,
        }

    def knob_floors(self, ruleset: Any) -> dict[str, int]:
        return {"max_raise": int(ruleset.big_blind_units)}

    def setup(
        self, table: Table, seats: Sequence[Seat], draws: Sequence[int], stacks: Sequence[int]
    ) -> dict[str, Any]:
        positions = [s.position for s in seats]
        last = table.carry.get("button")
        if last is None:
            button = draws[0]
        else:
            later = [i for i, p in enumerate(positions) if p > last]
            button = later[0] if later else 0
        setup: dict[str, Any] = {
            "stake": table.stake,
            "max_raise": self.setting(table, "max_raise"),
            "button": button,
            "stacks": list(stacks),
            "time_banks_ms": [s.carry.get("time_bank_ms", FRESH_TIME_BANK_MS) for s in seats],
            "timeouts": [s.timeouts for s in seats],
        }
        level = level_blinds(table.carry.get("level"))
        if level is not None:
            setup["blinds"], setup["ante"] = [level[0], level[1]], level[2]
        return setup

    def extra_clock_ms(self, state: Any, actor: int) -> int:
        banks = self.engine.view(state, None).get("time_banks_ms") or []
        return int(banks[actor]) if actor < len(banks) else 0

    def table_carry(
        self, table: Table, seats: Sequence[SeatRef], outcome: Outcome, setup: dict[str, Any]
    ) -> dict[str, Any]:
        return {**table.carry, "button": seats[int(setup["button"])].position}

    def after_hand(
        self, table: Table, seats: Sequence[SeatRef], outcome: Outcome, setup: dict[str, Any]
    ) -> dict[int, dict[str, Any]]:
        summary = outcome.summary
        changes: dict[int, dict[str, Any]] = {}
        for i, seat in enumerate(seats):
            change: dict[str, Any] = {
                "carry": {"time_bank_ms": int(summary["time_banks_ms"][i])},
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

    def bot_think(self, view: Mapping[str, Any], player: int) -> float:
        return think(view, player)
