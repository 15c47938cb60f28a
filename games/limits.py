"""What a table may be opened with: the one check of its numbers and rule options.

Every path that opens a table (the API, the lobby form, the services, the
demo data, and any ORM save of a new row, admin included) goes through
:func:`check_table`. Each number has a documented range (``docs/tables.md``)
that fits its model field; each rule option of a preset has its own range.
A value outside its range is refused with the code ``invalid`` and a message
that names the allowed range; an unknown game, preset or option name keeps
the code ``bad_table_settings``. Nothing is created in either case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.errors import BadTableSettings
from games.models import TABLE_NUMBERS, Game, Table
from games.rules.errors import RulesError
from vipgame.errors import ServiceError


@dataclass(frozen=True)
class Range:
    low: int
    high: int


# Table fields (columns of games.Table) a table may be opened with.
SEAT_RANGES: dict[str, Range] = {
    Game.MAUBINH: Range(2, 4),
    Game.TIENLEN: Range(2, 4),
    Game.HOLDEM: Range(2, 9),
}
FIELD_RANGES: dict[str, Range] = {
    "stake": Range(1, 1_000_000),
    "max_raise": Range(1, 1_000_000),  # Poker, stakes; at least the big blind
    "buy_in_min": Range(1, 1_000),  # Poker, big blinds
    "buy_in_max": Range(1, 1_000),
    "min_balance_units": Range(1, 1_000),  # Mậu Binh, Tiến Lên: stakes held to sit
    # Clocks and bot think times are the operator's (TABLE_DEFAULTS): the API
    # does not take them.
    "ready_seconds": Range(1, 3_600),
    "arrange_seconds": Range(5, 3_600),
    "reveal_seconds": Range(1, 30),
    "turn_seconds": Range(2, 3_600),
    "summary_seconds": Range(1, 60),
    "bot_delay_ms": Range(0, 10_000),
    "bot_delay_max_ms": Range(0, 10_000),
}

# Rule options a table may override, per game: whole numbers in a range,
# switches (true/false) and choices. Mậu Binh's ``instant_units`` maps each
# instant win of the preset to units in INSTANT_UNITS.
_MB_BONUS = Range(1, 30)
OPTION_RANGES: dict[str, dict[str, Range]] = {
    Game.MAUBINH: {
        "bonus_full_house_chi2": _MB_BONUS,
        "bonus_trips_chi3": _MB_BONUS,
        "bonus_quads_chi1": _MB_BONUS,
        "bonus_quads_chi2": _MB_BONUS,
        "bonus_straight_flush_chi1": _MB_BONUS,
        "bonus_straight_flush_chi2": _MB_BONUS,
        "bonus_wheel_straight_flush_chi1": _MB_BONUS,
        "bonus_wheel_straight_flush_chi2": _MB_BONUS,
        "bonus_royal_straight_flush_chi1": _MB_BONUS,
        "bonus_royal_straight_flush_chi2": _MB_BONUS,
        "bonus_four_aces_chi1": _MB_BONUS,
        "sweep_pair_multiplier": Range(1, 4),
        "sweep_all_loser_multiplier": Range(1, 4),
        "sweep_village_multiplier": Range(1, 4),
        "sweep_village_min_players": Range(2, 4),
        "four_aces_village_units": Range(0, 100),
    },
    Game.TIENLEN: {
        "cong_penalty": Range(0, 52),
        "toi_trang_flat": Range(0, 52),
        "ket_3_bich": Range(0, 52),
        "chan_ket_3_bich": Range(0, 52),
    },
    Game.HOLDEM: {
        "min_players": Range(2, 9),
        "max_players": Range(2, 9),
        "small_blind_units": Range(1, 5),
        "big_blind_units": Range(1, 10),
        "action_clock_ms": Range(2_000, 300_000),
        "time_bank_max_ms": Range(0, 300_000),
        "time_bank_topup_ms": Range(0, 60_000),
        "timeouts_to_sit_out": Range(1, 10),
        "buy_in_min_big_blinds": Range(1, 1_000),
        "buy_in_max_big_blinds": Range(1, 1_000),
    },
}
INSTANT_UNITS = Range(1, 100)
OPTION_SWITCHES: dict[str, tuple[str, ...]] = {
    Game.MAUBINH: (
        "four_aces_top",
        "six_pairs_tiebreak",
        "left_blocks_every_opponent",
        "lung_is_swept",
        "leaver_keeps_instant",
    ),
    Game.TIENLEN: (),
    Game.HOLDEM: (),
}
OPTION_CHOICES: dict[str, dict[str, tuple[str, ...]]] = {
    Game.MAUBINH: {"straight_flush_order": ("poker", "royal_wheel_high")},
    Game.TIENLEN: {
        "first_lead": ("random", "three_spades"),
        "toi_trang_payout": ("flat", "tiered"),
    },
    Game.HOLDEM: {},
}


class InvalidTableSettings(BadTableSettings):  # type: ignore[misc,valid-type]
    """Numbers or options out of their range: ``invalid``, with each field's
    problem (and its allowed range) in ``details``."""

    code = "invalid"
    status = 400
    template = _("Some table settings are not allowed: %(problems)s")

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = problems
        super().__init__(problems="; ".join(problems.values()))

    @property
    def details(self) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for name, text in self.problems.items():
            if name.startswith("options."):
                fields.setdefault("options", {})[name.removeprefix("options.")] = [text]
            else:
                fields[name] = [text]
        return fields

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": self.details}


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def range_message(name: str, allowed: Range) -> str:
    return gettext("%(name)s must be a whole number from %(low)s to %(high)s.") % {
        "name": name,
        "low": allowed.low,
        "high": allowed.high,
    }


def _check_number(problems: dict[str, str], key: str, name: str, value: object, r: Range) -> None:
    if not _whole(value) or not r.low <= value <= r.high:  # type: ignore[operator]
        problems[key] = range_message(name, r)


def _check_options(game: str, options: Mapping[str, Any], problems: dict[str, str]) -> None:
    ranges, switches, choices = OPTION_RANGES[game], OPTION_SWITCHES[game], OPTION_CHOICES[game]
    for name, value in options.items():
        key = f"options.{name}"
        if name in ranges:
            _check_number(problems, key, name, value, ranges[name])
        elif name in switches:
            if not isinstance(value, bool):
                problems[key] = gettext("%(name)s must be true or false.") % {"name": name}
        elif name in choices:
            if value not in choices[name]:
                problems[key] = gettext("%(name)s must be one of: %(choices)s.") % {
                    "name": name,
                    "choices": ", ".join(choices[name]),
                }
        elif game == Game.MAUBINH and name == "instant_units":
            if not isinstance(value, Mapping) or not value:
                problems[key] = gettext("instant_units maps instant wins to units.")
                continue
            for instant, units in value.items():
                _check_number(
                    problems, f"{key}.{instant}", f"instant_units.{instant}", units, INSTANT_UNITS
                )
        else:
            raise BadTableSettings(
                problem=gettext("Unknown rule option: %(name)s.") % {"name": str(name)[:40]}
            )


def check_table(
    *,
    game: object,
    preset: object = "vipgame",
    options: object = None,
    stake: object,
    seat_count: object,
    max_raise: object = None,
    buy_in_min: object = 20,
    buy_in_max: object = 100,
    **numbers: object,
) -> Any:
    """Refuse settings a table may not be opened with; return the ruleset.

    ``numbers`` are the other fields of FIELD_RANGES (clocks, bot think
    times, ``min_balance_units``). Raises :class:`BadTableSettings` (unknown
    names) or :class:`InvalidTableSettings` (values out of range)."""
    from games.adapters import adapter_for

    if not isinstance(game, str) or game not in Game.values:
        raise BadTableSettings(problem=_("Unknown game."))
    for name in numbers:
        if name not in FIELD_RANGES:
            raise BadTableSettings(
                problem=gettext("Unknown table setting: %(name)s.") % {"name": name}
            )
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise InvalidTableSettings({"options": gettext("The rule options must be an object.")})
    problems: dict[str, str] = {}
    seats = SEAT_RANGES[game]
    if not _whole(seat_count) or not seats.low <= seat_count <= seats.high:  # type: ignore[operator]
        problems["seat_count"] = gettext("This game is played by %(low)s to %(high)s players.") % {
            "low": seats.low,
            "high": seats.high,
        }
    _check_number(problems, "stake", "stake", stake, FIELD_RANGES["stake"])
    for name, value in numbers.items():
        _check_number(problems, name, name, value, FIELD_RANGES[name])
    low, high = numbers.get("bot_delay_ms"), numbers.get("bot_delay_max_ms")
    if _whole(low) and _whole(high) and low > high:  # type: ignore[operator]
        problems["bot_delay_max_ms"] = gettext("bot_delay_max_ms must be at least bot_delay_ms.")
    if game == Game.HOLDEM:
        _check_number(problems, "buy_in_min", "buy_in_min", buy_in_min, FIELD_RANGES["buy_in_min"])
        _check_number(problems, "buy_in_max", "buy_in_max", buy_in_max, FIELD_RANGES["buy_in_max"])
        if _whole(buy_in_min) and _whole(buy_in_max) and buy_in_min > buy_in_max:  # type: ignore[operator]
            problems["buy_in_max"] = gettext("buy_in_max must be at least buy_in_min.")
    _check_options(game, options, problems)
    if problems:
        raise InvalidTableSettings(problems)
    try:
        ruleset = adapter_for(game).engine.ruleset(preset, options)  # type: ignore[arg-type]
    except RulesError as err:
        if err.code == "unknown_preset":
            raise BadTableSettings(problem=gettext("Unknown rules preset.")) from None
        raise InvalidTableSettings(
            {
                "options": gettext("These rule options do not fit together: %(rule)s")
                % {"rule": err.message}
            }
        ) from None
    if game == Game.HOLDEM and max_raise is not None:
        bb = int(ruleset.big_blind_units)
        _check_number(
            problems, "max_raise", "max_raise", max_raise, Range(bb, FIELD_RANGES["max_raise"].high)
        )
        if problems:
            raise InvalidTableSettings(problems)
    return ruleset


def non_default_rules(game: str, preset: str, options: Mapping[str, Any]) -> list[list[Any]]:
    """The table's rule options that differ from its preset: ``[name, value]``
    pairs shown in the lobby and on the table before anyone sits."""
    from games.adapters import adapter_for

    if not options:
        return []
    try:
        engine = adapter_for(game).engine
        base, rules = engine.ruleset(preset, {}), engine.ruleset(preset, options)
    except (RulesError, KeyError):
        return [[name, value] for name, value in sorted(options.items())]
    changed = []
    for name in sorted(options):
        value = getattr(rules, name, options[name])
        if name == "instant_units":
            value = dict(value)
            default = dict(getattr(base, name))
            diff = {k: v for k, v in value.items() if default.get(k) != v}
            if diff:
                changed.append([name, diff])
        elif getattr(base, name, None) != value:
            changed.append([name, value])
    return changed


def service_error_fields(err: ServiceError) -> dict[str, Any]:
    """The field errors of a refusal, for a form (``__all__`` if none)."""
    if isinstance(err, InvalidTableSettings):
        return err.details
    return {"__all__": [err.message]}


def check_new_table(sender: type[Table], instance: Table, **kwargs: Any) -> None:
    """Whoever creates a table row (a service, the admin, a shell), its numbers
    and rule options pass the one check (``pre_save`` of Table, games.apps)."""
    if not instance._state.adding:
        return
    check_table(
        game=instance.game,
        preset=instance.preset,
        options=instance.options,
        stake=instance.stake,
        seat_count=instance.seat_count,
        max_raise=instance.max_raise,
        buy_in_min=instance.buy_in_min,
        buy_in_max=instance.buy_in_max,
        **{name: getattr(instance, name) for name in TABLE_NUMBERS},
    )
