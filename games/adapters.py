"""What differs between the three games at a table: which engine, how a hand
is set up, how its outcome turns into chips, and what the table remembers.

The rules themselves stay in ``games.rules``; this is the glue between an
engine's players (indices in seat order) and the table's seats and wallets.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from games.models import Game, Seat, Table
from games.rules.game import GameEngine, Outcome
from games.rules.settlement import cap_debts

SEAT_LIMITS: dict[str, tuple[int, int]] = {
    Game.MAUBINH: (2, 4),
    Game.TIENLEN: (2, 4),
    Game.HOLDEM: (2, 9),
}


@cache
def engine_for(game: str) -> GameEngine:
    module = importlib.import_module(f"games.rules.{game}.engine")
    engine: GameEngine = module.ENGINE
    return engine


@dataclass(frozen=True)
class Transfer:
    """Chips to move at settlement: from a player index to another."""

    payer: int
    payee: int
    chips: int


class Adapter:
    game: str
    uses_escrow = False
    keeps_ready = False
    pays_in_units = True

    @property
    def engine(self) -> GameEngine:
        return engine_for(self.game)

    def ruleset(self, table: Table) -> Any:
        return self.engine.ruleset(table.preset, table.options)

    def fair_bounds(self, table: Table, players: int) -> list[int]:
        """Extra uniform draws from the fair stream, after the deck: one player
        index (Tiến Lên's first leader, Hold'em's first button)."""
        return [players]

    def setup(
        self, table: Table, seats: Sequence[Seat], draws: Sequence[int], stacks: Sequence[int]
    ) -> dict[str, Any]:
        return {}

    def extra_clock_ms(self, state: Any, actor: int) -> int:
        return 0

    def transfers(
        self, table: Table, outcome: Outcome, balances: Sequence[int]
    ) -> tuple[list[Transfer], list[int]]:
        """The chip movements of a finished hand and each player's net in chips.

        Mậu Binh and Tiến Lên pay in units of the stake from the players'
        wallets; nobody pays more than they hold (RULES.md 2.6 rule 6). Hold'em
        pays chips between seat escrows, already within every stack.
        """
        n = len(outcome.net)
        unit = table.stake if self.pays_in_units else 1
        owed = [[0] * n for _ in range(n)]
        for payment in outcome.payments:
            owed[payment.payer][payment.payee] += payment.amount * unit
        capped = cap_debts(owed, list(balances))
        moves = [Transfer(i, j, capped[i][j]) for i in range(n) for j in range(n) if capped[i][j]]
        net = [sum(capped[j][i] for j in range(n)) - sum(capped[i]) for i in range(n)]
        return moves, net

    def after_hand(
        self, table: Table, seats: Sequence[Seat], outcome: Outcome, setup: dict[str, Any]
    ) -> None:
        """Update what the table and seats remember between hands (not saved here)."""


class MauBinh(Adapter):
    game = Game.MAUBINH


class TienLen(Adapter):
    game = Game.TIENLEN

    def setup(
        self, table: Table, seats: Sequence[Seat], draws: Sequence[int], stacks: Sequence[int]
    ) -> dict[str, Any]:
        positions = [s.position for s in seats]
        previous = table.last_winner_position
        return {
            "previous_winner": positions.index(previous) if previous in positions else None,
            "random_first": draws[0],
        }

    def after_hand(
        self, table: Table, seats: Sequence[Seat], outcome: Outcome, setup: dict[str, Any]
    ) -> None:
        winner = outcome.summary.get("winner")
        table.last_winner_position = seats[winner].position if isinstance(winner, int) else None


class Holdem(Adapter):
    game = Game.HOLDEM
    uses_escrow = True
    keeps_ready = True
    pays_in_units = False

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
        self, table: Table, seats: Sequence[Seat], outcome: Outcome, setup: dict[str, Any]
    ) -> None:
        table.button_position = seats[int(setup["button"])].position
        summary = outcome.summary
        for i, seat in enumerate(seats):
            seat.time_bank_ms = int(summary["time_banks_ms"][i])
            seat.timeouts = int(summary["timeouts"][i])
            if i in summary["sit_out"]:
                seat.sitting_out, seat.ready = True, False


ADAPTERS: dict[str, Adapter] = {a.game: a for a in (MauBinh(), TienLen(), Holdem())}


def adapter_for(game: str) -> Adapter:
    return ADAPTERS[game]
