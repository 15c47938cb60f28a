"""What every game plugin offers the Django side, with the shared defaults.

A plugin is the one home of what differs between games outside the rules
engine: seat limits, the table's settings (its :class:`Knob` declarations),
escrow or wallet hold, setup and after-hand work and what a table and its
seats carry between hands, settlement transfers, the length of the engine's
clocks, the lobby tab. Services, views, forms, serializers, selectors and
templates ask the table's plugin instead of testing a game's name.

A game's settings: one set of knobs
-----------------------------------

Everything a table of one game may differ in from another game's is a knob
of its plugin's :attr:`GamePlugin.knobs`: ``{name: Knob}``. A knob is a whole
number in a :class:`Range` (:func:`number`), a switch (:func:`switch`), a
choice (:func:`choice`) or a map of names to whole numbers (:func:`number_map`),
with its default, and says whose it is:

* ``rule=True`` (the default): a field of the engine's ruleset. Its default
  is the preset's; a table stores it in ``Table.settings`` only if it was
  given, and ``engine.ruleset(preset, rule settings)`` applies it. On the
  wire it is one of the table's ``options``.
* ``rule=False``: the table's own number (a raise cap, a buy-in range, the
  chips held to sit, the length of a phase clock). Every table of the game
  stores it in ``Table.settings`` (its default filled in when the table is
  opened); the plugin and its money model read it with :meth:`GamePlugin.setting`.
  On the wire it is a field of its own of the table-create body, offered by
  the lobby form when ``by_players`` (else only the house sets it: services,
  ``TABLE_DEFAULTS``); one players set is a number (the form and the API
  make a number field of it).

The one check (``games.limits.check_table``) refuses a value outside its
knob's range with the code ``invalid`` and a message naming the range, and
an unknown name with ``bad_table_settings``; the API's serializer, its
OpenAPI schema, the lobby form's fields and the admin all read the knobs.

Adding a Hold'em option touches one place of code: a line in
the poker plugin's ``knobs``, e.g. ``"ante_units": number(0, 5)``; the check, the
``options`` of the API and its schema (or, for a table knob players set, a
field of the body and of the lobby form), the admin and the stored settings
follow from it, with no migration (a table without the knob reads its
default). Its row in ``docs/tables.md`` documents it (a test compares the
ranges). A rule knob the engine does not have yet is a ruleset field of the
engine first (its ``rules.py``): that is the rule itself, in
the rules package, not a table setting. A table knob acts where the plugin
reads it (``setting``), e.g. in its ``setup``.

A money model's knobs (``WalletHolds``: the stakes held to sit;
``EscrowStacks``: the buy-in range) are declared once, on the model in
``games/plugins/money.py``, and every game of that model has them
(``GamePlugin.knobs`` takes them in after the game's own; a game declaring
one of them again is refused at import).

Shared knobs every game has (the stake, the seat count, the ready, turn and
summary clocks, the bots' think time, filling with bots, privacy) stay
columns of ``Table``; the ``turn`` clock's length is one of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django.conf import settings
from django.db.models import Field

from games.models import Hand, Seat, Table
from games.refs import SeatRef
from games.rules import registry
from games.rules.cards import DECK
from games.rules.game import GameEngine, Outcome
from games.rules.settlement import cap_debts

from .knobs import Knob, Range
from .money import MoneyModel, WalletHolds

#: The fewest ready players a hand is dealt to (games.services.hands.maybe_deal).
FEWEST_PLAYERS = 2


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
    #: The game's settings: its rule options and its table's own numbers,
    #: one home each (see the module's docstring).
    knobs: ClassVar[Mapping[str, Knob]] = {}
    #: The length of each clock the engine declares (``engine.clocks``): the
    #: name of the knob, or of the shared ``Table`` column, holding its seconds.
    clock_seconds: ClassVar[Mapping[str, str]]
    #: What backs a seat and how a hand is paid (games.plugins.money): a hold
    #: on the wallet, or a buy-in to a seat escrow.
    money: ClassVar[MoneyModel] = WalletHolds()
    #: Sit & Go (issue 31): the table sizes a tournament of this game may have
    #: (empty: the game has no tournaments), and what its levels raise
    #: (``tournaments.levels``: ``"blinds"``, small and big blind and ante, or
    #: ``"stake"``, the chips per scoring unit).
    tournament_seats: ClassVar[tuple[int, ...]] = ()
    tournament_levels: ClassVar[str] = "stake"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # The money model's knobs are the game's too (one home: the model's).
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("knobs", {})
        taken = sorted(set(own) & set(cls.money.knobs))
        if taken:
            raise TypeError(f"{cls.__name__}: {taken} are its money model's knobs")
        cls.knobs = {**cls.knobs, **cls.money.knobs}

    #: A ready player stays ready between hands.
    keeps_ready: ClassVar[bool] = False
    #: Results are in units of the stake (else in chips).
    pays_in_units: ClassVar[bool] = True
    #: The API schema: the prefix of this game's components (``<name>View``,
    #: ``<name>Summary``, ``<name>Action``: TypedDicts in the rules package's
    #: ``types`` module); its example hand has the setup of ``example_setup``.
    schema_name: ClassVar[str]

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

    def rule_knobs(self) -> dict[str, Knob]:
        """The knobs that are fields of the engine's ruleset (the ``options``)."""
        return {name: knob for name, knob in self.knobs.items() if knob.rule}

    def table_knobs(self) -> dict[str, Knob]:
        """The knobs that are the table's own numbers."""
        return {name: knob for name, knob in self.knobs.items() if not knob.rule}

    def player_fields(self) -> tuple[str, ...]:
        """The table knobs its creator may set (fields of the API body and the form)."""
        return tuple(name for name, knob in self.table_knobs().items() if knob.by_players)

    def complete(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """The settings a table stores: these, with every table knob's default
        filled in (a rule knob not given stays the preset's)."""
        filled = {name: knob.default for name, knob in self.table_knobs().items()}
        return {**filled, **settings}

    def setting(self, table: Table, name: str) -> Any:
        """A table knob's value at ``table`` (its default if the table has none)."""
        return table.settings.get(name, self.knobs[name].default)

    def rule_options(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """What of the settings the engine's ruleset takes."""
        rules = self.rule_knobs()
        return {name: value for name, value in settings.items() if name in rules}

    def ruleset_of(self, preset: str, settings: Mapping[str, Any]) -> Any:
        """The rules of a preset with a table's settings (its rule knobs)."""
        return self.engine.ruleset(preset, self.rule_options(settings))

    def ruleset(self, table: Table) -> Any:
        """The rules a hand at this table is dealt with."""
        return self.ruleset_of(table.preset, table.settings)

    def clock_ms(self, table: Table, kind: str) -> int:
        """The length of an engine's clock at ``table`` (a knob or a shared column)."""
        name = self.clock_seconds[kind]
        seconds = self.setting(table, name) if name in self.knobs else getattr(table, name)
        return int(seconds) * 1000

    def check_deal(self, ruleset: Any, players: int) -> None:
        """Raise the engine's ``RulesError`` if it would not deal a hand with
        ``ruleset`` to ``players`` players (the engine itself is asked: a hand
        is started with the example setup). A table opens only if this passes
        for every number of players it can seat (``games.limits.check_table``)."""
        self.engine.start(ruleset, DECK, players, self.example_setup(players))

    def knob_floors(self, ruleset: Any) -> dict[str, int]:
        """Number knobs whose least value depends on the rules: ``{name: least}``
        (a raise cap of at least the big blind)."""
        return {}

    #: The rules page's own part (a template: the game's sections of prose,
    #: docs/rules.md in its own words, reading every number from ``rules``);
    #: None: the page shows the ruleset's numbers only.
    rules_template: ClassVar[str | None] = None
    #: The sections of ``rules_template``: (anchor, title, where the rules
    #: contract says it, e.g. "docs/rules.md 2.6"), for its contents and the API.
    rules_sections: ClassVar[tuple[tuple[str, Any, str], ...]] = ()

    def rules_context(self, ruleset: Any, table: Table | None) -> dict[str, Any]:
        """What ``rules_template`` reads besides ``rules`` (the ruleset) and
        ``table``: names and lists made from the ruleset's numbers."""
        return {}

    def rules_seconds(self, table: Table | None, name: str) -> int:
        """A clock's seconds (a knob or a ``Table`` column) as the rules page
        states it: the table's, or without one a new table's
        (``settings.TABLE_DEFAULTS``, else the default)."""
        if table is not None:
            return int(self.setting(table, name) if name in self.knobs else getattr(table, name))
        if name in settings.TABLE_DEFAULTS:
            return int(settings.TABLE_DEFAULTS[name])
        if name in self.knobs:
            return int(self.knobs[name].default)
        column = Table._meta.get_field(name)
        assert isinstance(column, Field)
        return int(column.get_default())

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

    def bot_think(self, view: Mapping[str, Any], player: int) -> float:
        """How long ``player``'s decision takes, in ordinary decisions (1.0:
        the table's bot think time), read from the spectators' ``view`` only
        (games.thinking)."""
        return 1.0

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
        """What the seats do after the hand: ``{seat id: {field: value}}``, a
        seat's own memory as its ``carry`` (``seats``: the hand's players'
        seats, in player order). Only the plugin reads it."""
        return {}

    def table_carry(
        self, table: Table, seats: Sequence[SeatRef], outcome: Outcome, setup: dict[str, Any]
    ) -> dict[str, Any]:
        """What the table remembers into the next hand (its new ``carry``: the
        service declares it to the unit of work); only the plugin reads it."""
        return dict(table.carry)

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
            "fields": list(self.player_fields()),
            # (the lobby's tournaments tab: the Sit & Go table sizes, none: no Sit & Gos)
            "sit_and_go_seats": list(self.tournament_seats),
        }
