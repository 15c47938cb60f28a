"""Hold'em's setup at a tournament table: the level in play (``Table.carry``'s
``level``, set at each deal) gives the blinds and the ante (docs/tournaments.md)."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Seat, Table
from games.plugins import plugin_for
from games.rules.holdem.engine import ENGINE

HOLDEM = plugin_for("holdem")


def _setup(carry: dict[str, Any]) -> dict[str, Any]:
    table = Table(game="holdem", stake=20, carry=carry, settings={})
    seats = [Seat(position=p, carry={}, timeouts=0) for p in (1, 3, 4)]
    return HOLDEM.setup(table, seats, [0], [500, 30, 900])


def test_a_level_in_the_carry_sets_the_blinds_and_the_ante() -> None:
    # given a tournament table whose level in play is 10/20 with an ante of 2
    level = {"number": 4, "seconds": 600, "stake": 20, "small_blind": 10, "big_blind": 20}
    setup = _setup({"button": 3, "level": {**level, "ante": 2}})
    # then the hand is dealt with them
    assert setup["blinds"] == [10, 20]
    assert setup["ante"] == 2
    assert setup["button"] == 2
    # and the engine posts them: antes first, then the blinds
    deck = list(range(52))
    state, events = ENGINE.start(ENGINE.ruleset("vipgame", {}), deck, 3, setup)
    posted = [(e.type, e.data["player"], e.data["amount"]) for e in events if "amount" in e.data]
    assert posted == [
        ("ante_posted", 0, 2),
        ("ante_posted", 1, 2),
        ("ante_posted", 2, 2),
        ("blind_posted", 0, 10),
        ("blind_posted", 1, 20),
    ]
    assert state.stacks == [488, 8, 898]


@pytest.mark.parametrize(
    "carry",
    [
        {},
        {"button": 1},
        {"level": None},
        {"level": "10/20"},
        {"level": {"small_blind": 10, "big_blind": 20}},
        {"level": {"small_blind": 10, "big_blind": "20", "ante": 0}},
        {"level": {"small_blind": 10, "big_blind": True, "ante": 0}},
        {"level": {"stake": 20, "small_blind": 0, "big_blind": 0, "ante": 0}},
    ],
)
def test_without_a_blinds_level_the_setup_is_the_cash_tables(carry: dict[str, Any]) -> None:
    setup = _setup(carry)
    assert "blinds" not in setup
    assert "ante" not in setup
    assert setup["stake"] == 20
