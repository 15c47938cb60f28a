"""A game's settings: :class:`Knob` declarations (see :mod:`games.plugins.base`),
by the plugins and by the money models (the knobs their seats need)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Range:
    low: int
    high: int


@dataclass(frozen=True)
class Knob:
    """One setting of a game's tables (see the module's docstring)."""

    kind: Literal["number", "switch", "choice", "map"]
    #: A number's range (a map's, for each of its values).
    range: Range | None = None
    choices: tuple[str, ...] = ()
    #: A table knob's value when none is given (a rule knob's is the preset's).
    default: Any = None
    #: A field of the engine's ruleset (else the table's own).
    rule: bool = True
    #: The table's creator may set it (the API, the lobby form); else only the house.
    by_players: bool = True
    #: None is a value (no cap).
    nullable: bool = False
    #: What the lobby form calls it.
    label: Any = ""
    #: A map: what it maps (the message when it is not a non-empty object).
    message: Any = ""
    #: The API's description of it.
    help: str = ""
    #: Another number knob this one may not be below (a range's two ends).
    at_least: str = ""


def number(low: int, high: int, **kwargs: Any) -> Knob:
    """A whole number from ``low`` to ``high``."""
    return Knob("number", Range(low, high), **kwargs)


def switch(**kwargs: Any) -> Knob:
    """True or false."""
    return Knob("switch", **kwargs)


def choice(*choices: str, **kwargs: Any) -> Knob:
    """One of ``choices``."""
    return Knob("choice", choices=choices, **kwargs)


def number_map(low: int, high: int, message: Any, **kwargs: Any) -> Knob:
    """A non-empty map of names to whole numbers, each from ``low`` to ``high``."""
    return Knob("map", Range(low, high), message=message, **kwargs)


def table_number(low: int, high: int, default: int | None, **kwargs: Any) -> Knob:
    """A number of the table's own (not the engine's ruleset)."""
    return Knob("number", Range(low, high), default=default, rule=False, **kwargs)
