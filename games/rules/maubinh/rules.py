"""Mậu Binh rulesets (docs/rules.md 2): the presets are data, a table may override any field.

A ``Ruleset`` is a frozen dataclass. ``make_ruleset(preset, options)`` starts
from a preset and replaces the named fields given in ``options`` (JSON values:
ints, bools, strings, and for ``instant_units`` a mapping of type to units).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import RulesError

INSTANT_TYPES: tuple[str, ...] = (
    "three_straights",
    "three_flushes",
    "six_pairs",
    "five_pairs_trips",
    "twelve_one_colour",
    "thirteen_one_colour",
    "three_straight_flushes",
    "dragon",
    "flush_dragon",
)

STRAIGHT_FLUSH_ORDERS = ("poker", "royal_wheel_high")
MAX_OPTION_VALUE = 1_000_000


@dataclass(frozen=True)
class Ruleset:
    """Every number and switch of a Mậu Binh table (docs/rules.md 2.2 to 2.6).

    ``instant_units`` lists the instant wins this ruleset declares, weak to
    strong, with their units; ``instant_folds`` maps a type the ruleset does
    not list to the type it counts as (an unlisted, unfolded type is no
    instant win). Sập: a pair swept (one side wins all three chi) pays its
    total x ``sweep_pair_multiplier``; a player swept by every counted opponent
    pays each x ``sweep_all_loser_multiplier`` more; a player who sweeps every
    counted opponent, with at least ``sweep_village_min_players`` in the hand,
    receives x ``sweep_village_multiplier`` more; a chi-1 four aces that sweeps
    every counted opponent receives ``four_aces_village_units`` from each in
    place of the pair total (0 = off).

    Interpretations kept as options (docs/rules.md 2.6): ``lung_is_swept`` (a lủng
    player loses all three chi as a sweep, rule 2; seed 000), and for a player
    who left before the reveal (rule 5), ``left_blocks_every_opponent`` (the
    leaver still counts among "every opponent", so nobody sweeps every
    opponent) and ``leaver_keeps_instant`` (an instant win still decides the
    leaver's pairs instead of the forfeit).

    The contract changes of 2026-11-23, each a switch (a stored state without
    the field loads with it off, the rule it was played under):

    * ``instant_win_stops_comparison`` (2.6 rule 1): when anyone holds an
      instant win, nobody compares chi; the others settle only with the
      instant-win holders.
    * ``lung_pays_sap`` (2.6 rule 4): a lủng player pays every opponent that is
      neither lủng nor an instant-win holder its pair total x
      ``sweep_all_loser_multiplier``, whoever else swept it.
    * ``four_aces_village_floor`` (2.6 rule 4): the four-aces sweep pays the
      larger of ``four_aces_village_units`` and the pair total with every
      multiplier (off: exactly ``four_aces_village_units``).
    * ``leaver_blocks_swept_by_all`` (2.6 rule 5): a player who left before the
      reveal did not sweep anyone, so nobody is "swept by every opponent".
    * ``leaver_counts_as_swept`` (2.6 rule 5): for "sweeps every opponent"
      (four aces, sập làng) a leaver before the reveal counts as an opponent
      swept, also in ``sweep_village_min_players`` (off: it is left out).
    * ``split_instant_tiebreak`` (2.9): two three-flush or two three-straight
      instant wins are compared chi by chi on each holder's strongest
      qualifying split.
    """

    preset: str
    four_aces_top: bool
    straight_flush_order: str
    bonus_full_house_chi2: int
    bonus_trips_chi3: int
    bonus_quads_chi1: int
    bonus_quads_chi2: int
    bonus_straight_flush_chi1: int
    bonus_straight_flush_chi2: int
    bonus_wheel_straight_flush_chi1: int
    bonus_wheel_straight_flush_chi2: int
    bonus_royal_straight_flush_chi1: int
    bonus_royal_straight_flush_chi2: int
    bonus_four_aces_chi1: int
    instant_units: tuple[tuple[str, int], ...]
    instant_folds: tuple[tuple[str, str], ...]
    six_pairs_tiebreak: bool
    sweep_pair_multiplier: int
    sweep_all_loser_multiplier: int
    sweep_village_multiplier: int
    sweep_village_min_players: int
    four_aces_village_units: int
    left_blocks_every_opponent: bool = False
    lung_is_swept: bool = True
    leaver_keeps_instant: bool = False
    instant_win_stops_comparison: bool = False
    lung_pays_sap: bool = False
    four_aces_village_floor: bool = False
    leaver_blocks_swept_by_all: bool = False
    leaver_counts_as_swept: bool = False
    split_instant_tiebreak: bool = False

    def instant_rank(self, name: str) -> int:
        """Position of a declared instant win in the strength order (weak = 0)."""
        return [n for n, _ in self.instant_units].index(name)

    def instant_payout(self, name: str) -> int:
        return dict(self.instant_units)[name]

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["instant_units"] = [list(item) for item in self.instant_units]
        data["instant_folds"] = [list(item) for item in self.instant_folds]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        values = dict(data)
        values["instant_units"] = tuple((str(n), int(u)) for n, u in values["instant_units"])
        values["instant_folds"] = tuple((str(a), str(b)) for a, b in values["instant_folds"])
        return cls(**values)


VIPGAME = Ruleset(
    preset="vipgame",
    four_aces_top=False,
    straight_flush_order="poker",
    bonus_full_house_chi2=2,
    bonus_trips_chi3=3,
    bonus_quads_chi1=4,
    bonus_quads_chi2=8,
    bonus_straight_flush_chi1=5,
    bonus_straight_flush_chi2=10,
    bonus_wheel_straight_flush_chi1=5,
    bonus_wheel_straight_flush_chi2=10,
    bonus_royal_straight_flush_chi1=5,
    bonus_royal_straight_flush_chi2=10,
    bonus_four_aces_chi1=4,
    instant_units=(
        ("three_straights", 3),
        ("three_flushes", 3),
        ("six_pairs", 3),
        ("five_pairs_trips", 6),
        ("dragon", 12),
        ("flush_dragon", 24),
    ),
    instant_folds=(("three_straight_flushes", "three_flushes"),),
    six_pairs_tiebreak=False,
    sweep_pair_multiplier=3,
    sweep_all_loser_multiplier=1,
    sweep_village_multiplier=1,
    sweep_village_min_players=3,
    four_aces_village_units=0,
    four_aces_village_floor=True,
    leaver_blocks_swept_by_all=True,
    leaver_counts_as_swept=True,
)

MAUBINH_COM = Ruleset(
    preset="maubinh_com",
    four_aces_top=True,
    straight_flush_order="royal_wheel_high",
    bonus_full_house_chi2=2,
    bonus_trips_chi3=3,
    bonus_quads_chi1=4,
    bonus_quads_chi2=8,
    bonus_straight_flush_chi1=5,
    bonus_straight_flush_chi2=10,
    bonus_wheel_straight_flush_chi1=10,
    bonus_wheel_straight_flush_chi2=20,
    bonus_royal_straight_flush_chi1=12,
    bonus_royal_straight_flush_chi2=24,
    bonus_four_aces_chi1=20,
    instant_units=(
        ("three_straights", 6),
        ("three_flushes", 6),
        ("six_pairs", 6),
        ("twelve_one_colour", 13),
        ("five_pairs_trips", 6),
        ("thirteen_one_colour", 26),
        ("dragon", 39),
        ("flush_dragon", 99),
    ),
    instant_folds=(("three_straight_flushes", "three_flushes"),),
    six_pairs_tiebreak=False,
    sweep_pair_multiplier=1,
    sweep_all_loser_multiplier=3,
    sweep_village_multiplier=1,
    sweep_village_min_players=3,
    four_aces_village_units=80,
    instant_win_stops_comparison=True,
    lung_pays_sap=True,
    four_aces_village_floor=True,
    leaver_blocks_swept_by_all=True,
    leaver_counts_as_swept=True,
)

CLASSIC = Ruleset(
    preset="classic",
    four_aces_top=False,
    straight_flush_order="poker",
    bonus_full_house_chi2=2,
    bonus_trips_chi3=3,
    bonus_quads_chi1=4,
    bonus_quads_chi2=8,
    bonus_straight_flush_chi1=5,
    bonus_straight_flush_chi2=10,
    bonus_wheel_straight_flush_chi1=5,
    bonus_wheel_straight_flush_chi2=10,
    bonus_royal_straight_flush_chi1=5,
    bonus_royal_straight_flush_chi2=10,
    bonus_four_aces_chi1=4,
    instant_units=(
        ("three_straights", 3),
        ("three_flushes", 3),
        ("six_pairs", 4),
        ("twelve_one_colour", 6),
        ("thirteen_one_colour", 8),
        ("three_straight_flushes", 10),
        ("dragon", 12),
    ),
    instant_folds=(("five_pairs_trips", "six_pairs"), ("flush_dragon", "dragon")),
    six_pairs_tiebreak=True,
    sweep_pair_multiplier=2,
    sweep_all_loser_multiplier=1,
    sweep_village_multiplier=2,
    sweep_village_min_players=3,
    four_aces_village_units=0,
    four_aces_village_floor=True,
    leaver_blocks_swept_by_all=True,
    leaver_counts_as_swept=True,
    split_instant_tiebreak=True,
)

PRESETS: dict[str, Ruleset] = {r.preset: r for r in (VIPGAME, MAUBINH_COM, CLASSIC)}
DEFAULT_PRESET = "vipgame"


def _option_value(rules: Ruleset, name: str, value: object) -> object:
    current = getattr(rules, name)
    if name == "instant_units":
        return _merge_instant_units(rules, value)
    if name == "straight_flush_order":
        if value not in STRAIGHT_FLUSH_ORDERS:
            raise RulesError("bad_option", f"{name} must be one of {STRAIGHT_FLUSH_ORDERS}")
        return value
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise RulesError("bad_option", f"{name} must be true or false", option=name)
        return value
    if isinstance(current, int):
        if not _whole(value):
            raise RulesError(
                "bad_option",
                f"{name} must be a whole number from 0 to {MAX_OPTION_VALUE}",
                option=name,
            )
        return value
    raise RulesError("unknown_option", f"Option {name} cannot be overridden", option=name)


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_OPTION_VALUE


def _merge_instant_units(rules: Ruleset, value: object) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, Mapping):
        raise RulesError("bad_option", "instant_units must map instant types to units")
    units = dict(rules.instant_units)
    for name, amount in value.items():
        if name not in units:
            raise RulesError(
                "bad_option", f"{name!r} is not an instant win of {rules.preset}", option=name
            )
        if not _whole(amount):
            raise RulesError(
                "bad_option", f"instant units must be whole numbers from 0 to {MAX_OPTION_VALUE}"
            )
        units[name] = amount
    return tuple((name, units[name]) for name, _ in rules.instant_units)


def make_ruleset(preset: object = DEFAULT_PRESET, options: object = None) -> Ruleset:
    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(
            "unknown_preset",
            f"Unknown preset: {preset!r}; known: {', '.join(PRESETS)}",
            preset=str(preset),
        )
    rules = PRESETS[preset]
    if options is None:
        return rules
    if not isinstance(options, Mapping):
        raise RulesError("bad_option", "options must be an object")
    fields = {f.name for f in dataclasses.fields(Ruleset)} - {"preset", "instant_folds"}
    changes: dict[str, Any] = {}
    for name, value in options.items():
        if name not in fields:
            raise RulesError("unknown_option", f"Unknown option: {name!r}", option=str(name))
        changes[name] = _option_value(rules, name, value)
    return dataclasses.replace(rules, **changes)
