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
from typing import Any

from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.errors import BadTableSettings
from games.models import TABLE_NUMBERS, Table
from games.plugins import FEWEST_PLAYERS, PLUGINS, GamePlugin, Range, table_default
from games.rules.errors import RulesError
from kernel.errors import ServiceError

# Table fields (columns of games.Table) a table may be opened with. A game's
# seats and its rule options are its plugin's (games.plugins).
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

#: Seats of any game (each game's own range is its plugin's ``seats``).
SEATS = Range(
    min(p.seats.low for p in PLUGINS.values()), max(p.seats.high for p in PLUGINS.values())
)


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


def range_errors(name: str, allowed: Range | None = None) -> dict[str, Any]:
    """``error_messages`` for a number field of a form or serializer: whatever
    is wrong with it (not a whole number, too small, too big), the one message
    naming the allowed range, in the user's language."""
    message = lazy(range_message, str)(name, allowed or FIELD_RANGES[name])
    return dict.fromkeys(("invalid", "min_value", "max_value", "max_string_length"), message)


def _check_number(problems: dict[str, str], key: str, name: str, value: object, r: Range) -> None:
    if not _whole(value) or not r.low <= value <= r.high:  # type: ignore[operator]
        problems[key] = range_message(name, r)


def _check_options(
    plugin: GamePlugin, options: Mapping[str, Any], problems: dict[str, str]
) -> None:
    ranges, switches, choices = plugin.option_ranges, plugin.option_switches, plugin.option_choices
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
        elif name in plugin.option_maps:
            each, message = plugin.option_maps[name]
            if not isinstance(value, Mapping) or not value:
                problems[key] = str(message)
                continue
            for item, number in value.items():
                _check_number(problems, f"{key}.{item}", f"{name}.{item}", number, each)
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
    buy_in_min: object = table_default("buy_in_min"),
    buy_in_max: object = table_default("buy_in_max"),
    **numbers: object,
) -> Any:
    """Refuse settings a table may not be opened with; return the ruleset.

    ``numbers`` are the other fields of FIELD_RANGES (clocks, bot think
    times, ``min_balance_units``). Raises :class:`BadTableSettings` (unknown
    names) or :class:`InvalidTableSettings` (values out of range)."""
    plugin = PLUGINS.get(game) if isinstance(game, str) else None
    if plugin is None:
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
    seats = plugin.seats
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
    if "buy_in_min" in plugin.table_fields:
        _check_number(problems, "buy_in_min", "buy_in_min", buy_in_min, FIELD_RANGES["buy_in_min"])
        _check_number(problems, "buy_in_max", "buy_in_max", buy_in_max, FIELD_RANGES["buy_in_max"])
        if _whole(buy_in_min) and _whole(buy_in_max) and buy_in_min > buy_in_max:  # type: ignore[operator]
            problems["buy_in_max"] = gettext("buy_in_max must be at least buy_in_min.")
    _check_options(plugin, options, problems)
    if problems:
        raise InvalidTableSettings(problems)
    try:
        ruleset = plugin.ruleset_of(preset, options)  # type: ignore[arg-type]
    except RulesError as err:
        if err.code == "unknown_preset":
            raise BadTableSettings(problem=gettext("Unknown rules preset.")) from None
        raise InvalidTableSettings(
            {
                "options": gettext("These rule options do not fit together: %(rule)s")
                % {"rule": err.message}
            }
        ) from None
    _check_deals(plugin, ruleset, seat_count)  # type: ignore[arg-type]
    floor = plugin.max_raise_floor(ruleset)
    if floor is not None and max_raise is not None:
        _check_number(
            problems,
            "max_raise",
            "max_raise",
            max_raise,
            Range(floor, FIELD_RANGES["max_raise"].high),
        )
        if problems:
            raise InvalidTableSettings(problems)
    return ruleset


def _check_deals(plugin: GamePlugin, ruleset: Any, seat_count: int) -> None:
    """The table's engine must deal a hand to every number of ready players
    the table can seat (from the fewest dealt to its seat count): else every
    Ready at it would fail. Refused as ``invalid`` on ``seat_count``."""
    for players in range(FEWEST_PLAYERS, seat_count + 1):
        try:
            plugin.check_deal(ruleset, players)
        except RulesError:
            raise InvalidTableSettings(
                {
                    "seat_count": gettext("These rules cannot deal a hand to %(players)s players.")
                    % {"players": players}
                }
            ) from None


def non_default_rules(game: str, preset: str, options: Mapping[str, Any]) -> list[list[Any]]:
    """The table's rule options that differ from its preset: ``[name, value]``
    pairs shown in the lobby and on the table before anyone sits."""
    if not options:
        return []
    try:
        plugin = PLUGINS[game]
        base, rules = plugin.ruleset_of(preset, {}), plugin.ruleset_of(preset, options)
    except (RulesError, KeyError):
        return [[name, value] for name, value in sorted(options.items())]
    changed = []
    for name in sorted(options):
        value = getattr(rules, name, options[name])
        if name in plugin.option_maps:
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
