"""The setup of a hand, as the table service passes it (docs/rules.md 4).

``stake`` (chips per unit), ``max_raise`` (units or None), ``button``,
``stacks`` (chips of the players dealt in) and optionally ``time_banks_ms``
and ``timeouts`` carried in from earlier hands, ``blinds`` (``[small, big]``
in chips; default from the stake and the ruleset's blind units) and ``ante``
(chips each player dealt in posts before the blinds; default 0), which a
tournament table sets from its level.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import RulesError
from .rules import HoldemRules


@dataclass(frozen=True)
class Setup:
    stake: int
    max_raise: int | None
    button: int
    stacks: tuple[int, ...]
    time_banks_ms: tuple[int, ...] | None
    timeouts: tuple[int, ...]
    blinds: tuple[int, int] | None = None
    ante: int = 0


def _int_list(value: object, players: int, name: str, minimum: int) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or len(value) != players
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value)
    ):
        raise RulesError(
            "bad_setup", f"{name} must list {players} integers of at least {minimum}", field=name
        )
    return tuple(value)


def _positive_int(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise RulesError("bad_setup", f"{name} must be a positive integer", field=name)
    return value


def parse_setup(rules: HoldemRules, players: int, setup: Mapping[str, Any]) -> Setup:
    if not rules.min_players <= players <= rules.max_players:
        raise RulesError(
            "bad_player_count",
            f"Hold'em needs {rules.min_players} to {rules.max_players} players, got {players}",
        )
    known = {"stake", "max_raise", "button", "stacks", "time_banks_ms", "timeouts"}
    known |= {"blinds", "ante"}
    unknown = set(setup) - known
    if unknown:
        raise RulesError("bad_setup", f"Unknown setup keys: {sorted(unknown)}")
    stake = _positive_int(setup.get("stake"), "stake")
    blinds = _blinds(setup.get("blinds"))
    big = rules.big_blind_units * stake if blinds is None else blinds[1]
    max_raise = setup.get("max_raise")
    if max_raise is not None:
        max_raise = _positive_int(max_raise, "max_raise")
        if max_raise * stake < big:
            size = f"{rules.big_blind_units} units" if blinds is None else f"{big} chips"
            raise RulesError(
                "bad_setup", f"max_raise must be at least the big blind ({size})", field="max_raise"
            )
    ante = setup.get("ante", 0)
    if not isinstance(ante, int) or isinstance(ante, bool) or ante < 0:
        raise RulesError("bad_setup", "ante must be a non-negative integer", field="ante")
    button = setup.get("button")
    if not isinstance(button, int) or isinstance(button, bool) or not 0 <= button < players:
        raise RulesError("bad_setup", f"button must be a player index below {players}")
    banks = setup.get("time_banks_ms")
    timeouts = setup.get("timeouts")
    return Setup(
        stake=stake,
        max_raise=max_raise,
        button=button,
        stacks=_int_list(setup.get("stacks"), players, "stacks", 1),
        time_banks_ms=None if banks is None else _int_list(banks, players, "time_banks_ms", 0),
        timeouts=(0,) * players
        if timeouts is None
        else _int_list(timeouts, players, "timeouts", 0),
        blinds=blinds,
        ante=ante,
    )


def _blinds(value: object) -> tuple[int, int] | None:
    """``[small, big]`` in chips, both positive, the small one not above the big one."""
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
        or value[0] > value[1]
    ):
        raise RulesError(
            "bad_setup",
            "blinds must be [small, big]: positive integers, the small one not above the big one",
            field="blinds",
        )
    return int(value[0]), int(value[1])
