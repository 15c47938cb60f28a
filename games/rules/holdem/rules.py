"""Hold'em rulesets (docs/rules.md 4): the presets are data, the engine reads them.

The table's own numbers (stake, raise cap, button, stacks) come with each
hand's setup; a ruleset holds what a preset fixes for every table. The
buy-in range is for the table service (the engine deals with the stacks it
is given).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..errors import RulesError


@dataclass(frozen=True)
class HoldemRules:
    name: str = "vipgame"
    min_players: int = 2
    max_players: int = 9
    small_blind_units: int = 1
    big_blind_units: int = 2
    action_clock_ms: int = 20_000
    time_bank_max_ms: int = 30_000
    time_bank_topup_ms: int = 5_000
    timeouts_to_sit_out: int = 2
    buy_in_min_big_blinds: int = 20
    buy_in_max_big_blinds: int = 100
    # A big blind posted short (all in) still sets the amount to call at the
    # full big blind and the minimum raise to two of them (docs/rules.md 4, changed
    # on 2026-11-23); off: the short amount posted is the bet to call.
    short_blind_full_call: bool = True

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


PRESETS: dict[str, HoldemRules] = {"vipgame": HoldemRules()}

_SWITCH_FIELDS = frozenset({"short_blind_full_call"})
_COUNT_FIELDS = frozenset(f.name for f in fields(HoldemRules)) - {"name"} - _SWITCH_FIELDS
# A state stored before a switch existed was played without it.
_STORED_DEFAULTS = {"short_blind_full_call": False}


def ruleset(preset: str, options: Mapping[str, Any]) -> HoldemRules:
    """The preset with ``options`` overriding its named fields."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(
            "unknown_preset", f"Unknown Hold'em preset: {preset!r}", preset=str(preset)
        )
    if not isinstance(options, Mapping):
        raise RulesError("bad_option", "options must be an object")
    for key, value in options.items():
        if key in _SWITCH_FIELDS:
            if not isinstance(value, bool):
                raise RulesError("bad_option", f"Option {key} must be true or false", option=key)
            continue
        if key not in _COUNT_FIELDS:
            raise RulesError("unknown_option", f"Unknown Hold'em option: {key!r}", option=key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RulesError(
                "bad_option", f"Option {key} must be a non-negative integer", option=key
            )
    rules = replace(PRESETS[preset], **dict(options))
    _check(rules)
    return rules


def _check(rules: HoldemRules) -> None:
    if not 2 <= rules.min_players <= rules.max_players <= 9:
        raise RulesError("bad_option", "Hold'em seats 2 to 9 players", option="max_players")
    if not 1 <= rules.small_blind_units <= rules.big_blind_units:
        raise RulesError(
            "bad_option", "Blinds must be positive with the small one not above the big one"
        )
    if not 1 <= rules.buy_in_min_big_blinds <= rules.buy_in_max_big_blinds:
        raise RulesError("bad_option", "The buy-in range must be positive and in order")


def rules_from_dict(data: Mapping[str, Any]) -> HoldemRules:
    """The inverse of :meth:`HoldemRules.as_dict` (for stored states)."""
    known = {f.name for f in fields(HoldemRules)}
    unknown = set(data) - known
    if unknown:
        raise RulesError("bad_state", f"Unknown ruleset fields: {sorted(unknown)}")
    return HoldemRules(**{**_STORED_DEFAULTS, **dict(data)})
