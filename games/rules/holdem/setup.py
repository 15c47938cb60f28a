"""The setup of a hand, as the table service passes it (docs/rules.md 4).

``stake`` (chips per unit), ``max_raise`` (units or None), ``button``,
``stacks`` (chips of the players dealt in) and optionally ``time_banks_ms``
and ``timeouts`` carried in from earlier hands.
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
    unknown = set(setup) - known
    if unknown:
        raise RulesError("bad_setup", f"Unknown setup keys: {sorted(unknown)}")
    stake = _positive_int(setup.get("stake"), "stake")
    max_raise = setup.get("max_raise")
    if max_raise is not None:
        max_raise = _positive_int(max_raise, "max_raise")
        if max_raise < rules.big_blind_units:
            raise RulesError(
                "bad_setup",
                f"max_raise must be at least the big blind ({rules.big_blind_units} units)",
                field="max_raise",
            )
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
    )
