"""The games the cross-game contract suite iterates: the registry's, never a
list written by hand (``tests/test_registry.py`` fails if one comes back).

``GAMES`` are the plugins of the running settings (``settings.VIPGAME_GAMES``:
the three real games, and the test-only fourth under
``tests/settings_fourth.py``), in the lobby's order. What a contract test
needs of a game beyond its plugin (how many cards a player is dealt, how many
people and bots a test seats) is in :func:`facts`: this module's table for the
shipped games, a game's own ``TEST_FACTS`` (the ``facts`` module of its
rules package) for any other.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass

from games.plugins import PLUGINS

from .seeds import ORDINARY

#: Every game, in the lobby's order.
GAMES: list[str] = list(PLUGINS)


@dataclass(frozen=True)
class Facts:
    """What the contract tests need to know of a game."""

    #: Cards dealt to each player from the top of the fair deck, in turn.
    hand_size: int
    #: Cards dealt to the table after the players' (a board).
    table_cards: int = 0
    #: (people, bots) of the many-hands tests (secrets, deltas).
    seating: tuple[int, int] = (2, 0)
    #: (people, bots) of the socket test (tests/consumers/test_games.py).
    socket_seating: tuple[int, int] = (2, 0)
    #: Another seating for the deltas test (None: ``seating``).
    delta_seating: tuple[int, int] | None = None
    #: How many times smaller than a full state a move's delta is, on average
    #: at least (a game with a tiny state gains less).
    delta_shrink: int = 3
    #: A deck (``dealer.stack(*ordinary)``) whose deal leaves the hand in play,
    #: for the tests that need a hand to play and cannot replay it (a stacked
    #: deck does not replay): empty where no deal ends a hand at once.
    ordinary: tuple[str, ...] = ()


#: The shipped games' facts (one table, keyed by game).
_FACTS = {
    "maubinh": Facts(hand_size=13, seating=(2, 2), socket_seating=(3, 1), ordinary=ORDINARY),
    "tienlen": Facts(
        hand_size=13,
        seating=(2, 2),
        socket_seating=(2, 0),
        delta_seating=(3, 1),
        ordinary=ORDINARY,  # no tới trắng
    ),
    "holdem": Facts(hand_size=2, table_cards=5, seating=(3, 1), socket_seating=(4, 0)),
}


def facts(game: str) -> Facts:
    known = _FACTS.get(game)
    if known is not None:
        return known
    plugin = PLUGINS[game]
    if importlib.util.find_spec(f"{plugin.rules}.facts") is None:
        raise AssertionError(f"{game}: give {plugin.rules}.facts a TEST_FACTS (Facts)")
    own = importlib.import_module(f"{plugin.rules}.facts").TEST_FACTS
    assert isinstance(own, Facts), f"{plugin.rules}.facts.TEST_FACTS is not a Facts"
    return own


def seat_count(game: str, wanted: int = 4) -> int:
    """``wanted`` seats, or as many as the game seats if fewer."""
    return min(wanted, PLUGINS[game].seats.high)


def buy_in(game: str, chips: int) -> int | None:
    """What a player brings to sit: ``chips`` where chips sit on the seat (a
    buy-in), None where the wallet backs the seat."""
    return chips if PLUGINS[game].money.chips_on_seat else None


def wallet_games() -> list[str]:
    """The games whose seats are backed by a hold on the wallet."""
    return [g for g in GAMES if not PLUGINS[g].money.chips_on_seat]


def escrow_games() -> list[str]:
    """The games whose seats hold bought-in chips."""
    return [g for g in GAMES if PLUGINS[g].money.chips_on_seat]


def browser_games() -> list[str]:
    """The games with browser screens (a ``browser_module``): the browser tests'."""
    return [g for g in GAMES if PLUGINS[g].browser_module]
