"""What a table may be opened with: the one check of its numbers and settings.

Every path that opens a table (the API, the lobby form, the services, the
demo data, and any ORM save of a new row, admin included) goes through
:func:`check_table`. Each shared number has a documented range
(``docs/tables.md``) that fits its model field; each knob of a game's
settings (a rule option or a number of the table's own: its plugin's
``knobs``) has its own range.
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
from games.plugins import FEWEST_PLAYERS, PLUGINS, GamePlugin, Knob, Range
from games.rules.errors import RulesError
from kernel.errors import ServiceError

# The numbers every game's table has (columns of games.Table). A game's seats
# and its own settings (rule options and table numbers) are its plugin's knobs
# (games.plugins.base).
FIELD_RANGES: dict[str, Range] = {
    "stake": Range(1, 1_000_000),
    # Clocks and bot think times are the operator's (TABLE_DEFAULTS): the API
    # does not take them.
    "ready_seconds": Range(1, 3_600),
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


def _problem_key(name: str, knob: Knob) -> str:
    """Where a knob's problem is reported: a rule knob among the ``options``,
    a table knob as a field of its own."""
    return f"options.{name}" if knob.rule else name


def _check_knob(problems: dict[str, str], name: str, knob: Knob, value: object) -> None:
    key = _problem_key(name, knob)
    if knob.kind == "number":
        assert knob.range is not None
        if not (knob.nullable and value is None):
            _check_number(problems, key, name, value, knob.range)
    elif knob.kind == "switch":
        if not isinstance(value, bool):
            problems[key] = gettext("%(name)s must be true or false.") % {"name": name}
    elif knob.kind == "choice":
        if value not in knob.choices:
            problems[key] = gettext("%(name)s must be one of: %(choices)s.") % {
                "name": name,
                "choices": ", ".join(knob.choices),
            }
    else:
        assert knob.range is not None
        if not isinstance(value, Mapping) or not value:
            problems[key] = str(knob.message)
            return
        for item, number in value.items():
            _check_number(problems, f"{key}.{item}", f"{name}.{item}", number, knob.range)


def _check_settings(
    plugin: GamePlugin, settings: Mapping[str, Any], problems: dict[str, str]
) -> None:
    for name, value in settings.items():
        knob = plugin.knobs.get(name)
        if knob is None:
            raise BadTableSettings(
                problem=gettext("Unknown rule option: %(name)s.") % {"name": str(name)[:40]}
            )
        _check_knob(problems, name, knob, value)
    for name, knob in plugin.knobs.items():
        low, high = settings.get(knob.at_least), settings.get(name)
        if knob.at_least and _whole(low) and _whole(high) and low > high:  # type: ignore[operator]
            problems[name] = gettext("%(name)s must be at least %(other)s.") % {
                "name": name,
                "other": knob.at_least,
            }


def game_settings(
    game: object, options: object = None, fields: Mapping[str, Any] | None = None
) -> tuple[Any, dict[str, Any]]:
    """The wire's table settings as a table's: ``options`` (the rule knobs)
    and ``fields`` (the table knobs, and the numbers every table has) make
    ``(settings, numbers)``. A table knob of another game is left out (a
    Hold'em raise cap asked of a Tiến Lên table, a Mậu Binh clock among the
    operator's defaults); a table knob among the ``options`` is an unknown
    rule option; any other name is the check's to refuse."""
    plugin = PLUGINS.get(game) if isinstance(game, str) else None
    settings: Any = {} if options is None else options
    numbers: dict[str, Any] = {}
    if plugin is None or not isinstance(settings, Mapping):
        return settings, dict(fields or {})
    settings = dict(settings)
    own = plugin.table_knobs()
    for name in settings:
        if name in own:
            raise BadTableSettings(
                problem=gettext("Unknown rule option: %(name)s.") % {"name": str(name)[:40]}
            )
    others = {n for p in PLUGINS.values() for n in p.table_knobs()}
    for name, value in (fields or {}).items():
        if name in own:
            settings[name] = value
        elif name not in others:
            numbers[name] = value
    return settings, numbers


def check_table(
    *,
    game: object,
    preset: object = "vipgame",
    settings: object = None,
    stake: object,
    seat_count: object,
    **numbers: object,
) -> Any:
    """Refuse settings a table may not be opened with; return the ruleset.

    ``settings``: the game's knobs (its plugin's: rule options and the table's
    own numbers; a table knob not given is its default). ``numbers`` are the
    other fields of FIELD_RANGES (clocks, bot think times). Raises
    :class:`BadTableSettings` (unknown names) or :class:`InvalidTableSettings`
    (values out of range)."""
    plugin = PLUGINS.get(game) if isinstance(game, str) else None
    if plugin is None:
        raise BadTableSettings(problem=_("Unknown game."))
    for name in numbers:
        if name not in FIELD_RANGES:
            raise BadTableSettings(
                problem=gettext("Unknown table setting: %(name)s.") % {"name": name}
            )
    if settings is None:
        settings = {}
    if not isinstance(settings, Mapping):
        raise InvalidTableSettings({"options": gettext("The rule options must be an object.")})
    settings = plugin.complete(settings)
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
    _check_settings(plugin, settings, problems)
    if problems:
        raise InvalidTableSettings(problems)
    try:
        ruleset = plugin.ruleset_of(preset, settings)  # type: ignore[arg-type]
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
    for name, floor in plugin.knob_floors(ruleset).items():
        knob, value = plugin.knobs[name], settings.get(name)
        if value is not None and knob.range is not None:
            key = _problem_key(name, knob)
            _check_number(problems, key, name, value, Range(floor, knob.range.high))
    if problems:
        raise InvalidTableSettings(problems)
    return ruleset


def house_range(name: str) -> Range | None:
    """The range of a number the house sets for every table it opens
    (``TABLE_DEFAULTS``): a shared number's, or a game's table knob's."""
    if name in FIELD_RANGES:
        return FIELD_RANGES[name]
    for plugin in PLUGINS.values():
        knob = plugin.table_knobs().get(name)
        if knob is not None and knob.kind == "number":
            return knob.range
    return None


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


def non_default_rules(game: str, preset: str, settings: Mapping[str, Any]) -> list[list[Any]]:
    """The table's rule options that differ from its preset: ``[name, value]``
    pairs shown in the lobby and on the table before anyone sits."""
    plugin = PLUGINS.get(game)
    options = settings if plugin is None else plugin.rule_options(settings)
    if not options:
        return []
    as_stored = [[name, value] for name, value in sorted(options.items())]
    if plugin is None:
        return as_stored
    try:
        base, rules = plugin.ruleset_of(preset, {}), plugin.ruleset_of(preset, options)
    except RulesError:
        return as_stored
    changed = []
    for name in sorted(options):
        value = getattr(rules, name, options[name])
        if plugin.knobs[name].kind == "map":
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
        settings=instance.settings,
        stake=instance.stake,
        seat_count=instance.seat_count,
        **{name: getattr(instance, name) for name in TABLE_NUMBERS},
    )
    # Every table knob is stored (its default if not given).
    instance.settings = PLUGINS[instance.game].complete(instance.settings)
