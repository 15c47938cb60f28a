"""Tiến Lên rulesets (docs/rules.md 3): presets are data, the engine reads them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import RulesError
from .types import INSTANT_KINDS

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
STRAIGHT = "straight"
THREE_PAIR_RUN = "three_pair_run"
QUAD = "quad"
FOUR_PAIR_RUN = "four_pair_run"
BOMBS = (THREE_PAIR_RUN, QUAD, FOUR_PAIR_RUN)

TWO = "two"
PAIR_OF_TWOS = "pair_of_twos"

# Tới trắng types, strongest first (docs/rules.md 3.5): types.InstantKind's.
INSTANT_TYPES = INSTANT_KINDS


@dataclass(frozen=True)
class Penalties:
    """Units owed for a card or combination, chopped or left in hand (thối)."""

    card: int = 1
    black_two: int = 3
    red_two: int = 6
    three_pair_run: int = 6
    quad: int = 8
    four_pair_run: int = 12

    def bomb(self, kind: str) -> int:
        return {
            THREE_PAIR_RUN: self.three_pair_run,
            QUAD: self.quad,
            FOUR_PAIR_RUN: self.four_pair_run,
        }[kind]


def _default_chops() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What each bomb chops (docs/rules.md 3.3); a bomb also chops a lower one of its kind."""
    return (
        (THREE_PAIR_RUN, (TWO, THREE_PAIR_RUN)),
        (QUAD, (TWO, PAIR_OF_TWOS, THREE_PAIR_RUN, QUAD)),
        (FOUR_PAIR_RUN, (TWO, PAIR_OF_TWOS, THREE_PAIR_RUN, QUAD, FOUR_PAIR_RUN)),
    )


def _default_tiers() -> tuple[tuple[str, int], ...]:
    return tuple(zip(INSTANT_TYPES, (9, 8, 7, 6, 5, 4, 3, 2), strict=True))


@dataclass(frozen=True)
class TienLenRules:
    name: str = "vipgame"
    min_players: int = 2
    max_players: int = 4
    hand_size: int = 13
    first_lead: str = "random"
    cong_penalty: int = 26
    toi_trang_payout: str = "flat"
    toi_trang_flat: int = 26
    toi_trang_tiers: tuple[tuple[str, int], ...] = field(default_factory=_default_tiers)
    ket_3_bich: int = 26
    chan_ket_3_bich: int = 26
    # Under chặn kết 3 bích a loser who made no play in the final round pays
    # and receives nothing (docs/rules.md 3.5, 3.7; changed on 2026-11-23); off:
    # such a loser pays its card count and thối as usual.
    chan_ket_final_round_only: bool = True
    chop_penalties: Penalties = field(default_factory=Penalties)
    thoi_penalties: Penalties = field(default_factory=Penalties)
    chops: tuple[tuple[str, tuple[str, ...]], ...] = field(default_factory=_default_chops)

    def chop_targets(self, bomb: str) -> tuple[str, ...]:
        return dict(self.chops).get(bomb, ())

    def instant_payout(self, instant_type: str) -> int:
        if self.toi_trang_payout == "tiered":
            return dict(self.toi_trang_tiers)[instant_type]
        return self.toi_trang_flat


PRESETS: dict[str, TienLenRules] = {"vipgame": TienLenRules()}

CHOICES: dict[str, tuple[str, ...]] = {
    "first_lead": ("random", "three_spades"),
    "toi_trang_payout": ("flat", "tiered"),
}
UNITS = ("cong_penalty", "toi_trang_flat", "ket_3_bich", "chan_ket_3_bich")
SWITCHES = ("chan_ket_final_round_only",)
OPTIONS = (*CHOICES, *UNITS, *SWITCHES)


def ruleset(preset: str, options: Mapping[str, Any]) -> TienLenRules:
    """The preset with ``options`` overriding its named fields."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(
            "unknown_preset", f"Unknown Tiến Lên preset: {preset!r}", preset=str(preset)
        )
    if not isinstance(options, Mapping):
        raise RulesError("bad_option", "options must be an object")
    for key, value in options.items():
        if key not in OPTIONS:
            raise RulesError("unknown_option", f"Unknown Tiến Lên option: {key!r}", option=key)
        if key in CHOICES and value not in CHOICES[key]:
            allowed = ", ".join(CHOICES[key])
            raise RulesError("bad_option", f"Option {key} must be one of {allowed}", option=key)
        if key in UNITS and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise RulesError(
                "bad_option", f"Option {key} must be a non-negative integer", option=key
            )
        if key in SWITCHES and not isinstance(value, bool):
            raise RulesError("bad_option", f"Option {key} must be true or false", option=key)
    return replace(PRESETS[preset], **dict(options))


def rules_to_dict(rules: TienLenRules) -> dict[str, Any]:
    """The preset name and the options that differ from it (for stored states)."""
    base = PRESETS[rules.name]
    options = {k: getattr(rules, k) for k in OPTIONS if getattr(rules, k) != getattr(base, k)}
    return {"preset": rules.name, "options": options}


def rules_from_dict(data: Mapping[str, Any]) -> TienLenRules:
    return ruleset(data["preset"], data["options"])
