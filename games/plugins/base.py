"""What every game plugin offers the Django side, with the shared defaults.

A plugin is the one home of what differs between games outside the rules
engine: seat limits, option ranges, escrow or wallet hold, setup and
after-hand work, settlement transfers, form and serializer fields, the lobby
tab. Services, views, forms, serializers, selectors and templates ask the
table's plugin instead of testing a game's name.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django.db import models

from games.models import Hand, Seat, Table
from games.refs import SeatRef
from games.rules import registry
from games.rules.cards import DECK
from games.rules.game import GameEngine, Outcome
from games.rules.settlement import cap_debts

from .money import MoneyModel, WalletHolds

#: The fewest ready players a hand is dealt to (games.services.hands.maybe_deal).
FEWEST_PLAYERS = 2


@dataclass(frozen=True)
class Range:
    low: int
    high: int


@dataclass(frozen=True)
class Transfer:
    """Chips to move at settlement: from a player index to another."""

    payer: int
    payee: int
    chips: int


def engine_for(game: str) -> GameEngine:
    """The rules engine of a registered game (:mod:`games.rules.registry`,
    filled from the plugins in ``settings.VIPGAME_GAMES``)."""
    return registry.engine(game)


def table_default(name: str) -> Any:
    """The default of a table number (its model field's, the one copy)."""
    field = Table._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field.default


class GamePlugin:
    #: The game's name: its engine's ``name`` (the ``game`` of tables and hands).
    game: ClassVar[str]
    #: The rules package (dotted path): ``engine`` (``ENGINE``), ``types``,
    #: optional ``cli`` (:mod:`games.rules.registry`).
    rules: ClassVar[str]
    #: The lobby tab and history filter label.
    label: ClassVar[str]
    #: The game's full name (the ``game`` field's choice label); the label if None.
    title: ClassVar[str | None] = None
    #: The browser module (a static path) that draws the game's table and
    #: replay; None: the game has no browser screens (its table and replay
    #: pages say so instead of loading a module).
    browser_module: ClassVar[str | None] = None
    #: One line that says what the game is (the home page's tile).
    blurb: ClassVar[Any] = ""
    seats: ClassVar[Range]
    #: The rule presets the lobby form offers: (code, label).
    presets: ClassVar[tuple[tuple[str, Any], ...]] = (("vipgame", "VIPGAME"),)
    #: Table numbers only this game uses: the form and the API take them for it.
    table_fields: ClassVar[tuple[str, ...]] = ()
    #: Rule options a table may override: whole numbers in a range, switches,
    #: choices, and maps of names to whole numbers (each value in a range).
    option_ranges: ClassVar[Mapping[str, Range]] = {}
    option_switches: ClassVar[tuple[str, ...]] = ()
    option_choices: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    option_maps: ClassVar[Mapping[str, tuple[Range, Any]]] = {}
    #: What backs a seat and how a hand is paid (games.plugins.money): a hold
    #: on the wallet, or a buy-in to a seat escrow.
    money: ClassVar[MoneyModel] = WalletHolds()
    #: A ready player stays ready between hands.
    keeps_ready: ClassVar[bool] = False
    #: Results are in units of the stake (else in chips).
    pays_in_units: ClassVar[bool] = True
    #: The API schema: the prefix of this game's components (``<name>View``,
    #: ``<name>Summary``, ``<name>Action``: TypedDicts in the rules package's
    #: ``types`` module), and the clock and setup of its example hand.
    schema_name: ClassVar[str]
    example_clock: ClassVar[str] = "turn"

    def rules_types(self) -> Any:
        """The rules package's ``types`` module (view, action and summary types)."""
        return importlib.import_module(f"{self.rules}.types")

    def example_setup(self, players: int) -> dict[str, Any]:
        """The ``setup`` of the API schema's example hand (what ``setup`` would
        give at a fresh table with a stake of 10)."""
        return {}

    @property
    def engine(self) -> GameEngine:
        return engine_for(self.game)

    def ruleset_of(self, preset: str, options: Mapping[str, Any]) -> Any:
        """The rules of a preset with a table's options (before the table's own numbers)."""
        return self.engine.ruleset(preset, options)

    def ruleset(self, table: Table) -> Any:
        """The rules a hand at this table is dealt with."""
        return self.ruleset_of(table.preset, table.options)

    def check_deal(self, ruleset: Any, players: int) -> None:
        """Raise the engine's ``RulesError`` if it would not deal a hand with
        ``ruleset`` to ``players`` players (the engine itself is asked: a hand
        is started with the example setup). A table opens only if this passes
        for every number of players it can seat (``games.limits.check_table``)."""
        self.engine.start(ruleset, DECK, players, self.example_setup(players))

    def max_raise_floor(self, ruleset: Any) -> int | None:
        """The least raise cap (in stakes) a table may set; None: no raise cap."""
        return None

    def client_rules(self, table: Table) -> dict[str, Any]:
        """What the table page's script needs of the ruleset."""
        return {"preset": table.preset}

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

        Games paying in units of the stake pay from the players' wallets;
        nobody pays more than they hold (docs/rules.md 2.6 rule 6). Escrow games
        pay chips between seat escrows, already within every stack
        (``money.settle`` gives the balances and moves the chips).
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

    def leave_cost(
        self, table: Table, state: Any, player: int, balance: int | None
    ) -> dict[str, Any] | None:
        """What leaving the hand now costs ``player`` in chips (the engine's
        ``leave_cost``; None: nothing more than staying), at most ``balance``
        (what the player can pay; None: no cap, an escrow stack already holds it)."""
        cost = self.engine.leave_cost(state, player)
        if cost is None:
            return None
        chips = cost.amount * (table.stake if self.pays_in_units else 1)
        if balance is not None:
            chips = min(chips, balance)
        return {"chips": chips, "reason": cost.reason, "exact": cost.exact, "detail": cost.detail}

    def after_hand(
        self, table: Table, seats: Sequence[SeatRef], outcome: Outcome, setup: dict[str, Any]
    ) -> dict[int, dict[str, Any]]:
        """Update what the table remembers between hands (on ``table``, not
        saved here) and return what the seats do: ``{seat id: {field: value}}``
        (``seats``: the hand's players' seats, in player order)."""
        return {}

    def hand_export(
        self, hand: Hand, state: Any, player: int | None, *, reveal_all: bool
    ) -> str | None:
        """A finished hand in the game's own exchange format; None: not offered."""
        return None

    def preset_label(self, preset: str) -> str:
        """A preset's name as players read it (its code if it is not offered)."""
        return str(dict(self.presets).get(preset, preset))

    def facts(self) -> dict[str, Any]:
        """What the lobby page's script needs to know of the game."""
        return {
            "label": self.label,
            "seats": [self.seats.low, self.seats.high],
            "presets": [code for code, _label in self.presets],
            "fields": list(self.table_fields),
        }
