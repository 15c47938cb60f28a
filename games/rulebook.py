"""The rules pages ("Luật chơi"): a game's preset, or a table's own rules, as
players read them (the pages /rules/ and the API's ``/api/v1/rules``).

Every number comes from the ruleset the engine plays (the preset's, or the
table's: its preset with its rule options); the prose is the plugin's own
(``GamePlugin.rules_template`` and ``rules_sections``), so a game added by
its plugin has its page without a change here. Reads only, no lock.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from accounts.models import User
from games import selectors
from games.errors import PrivateTable, RulesNotFound, TableNotFound
from games.models import Table
from games.plugins import PLUGINS, GamePlugin
from games.rules.errors import RulesError


@dataclass(frozen=True)
class Difference:
    """A number or switch of a table's rules that is not its preset's."""

    name: str
    value: Any
    preset_value: Any

    @property
    def shown(self) -> str:
        return shown(self.value)

    @property
    def shown_preset(self) -> str:
        return shown(self.preset_value)


def shown(value: Any) -> str:
    """A value as the page writes it (JSON, Vietnamese letters kept)."""
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class RulesBook:
    plugin: GamePlugin
    preset: str
    #: The rules as played: the preset's, or the table's own.
    ruleset: Any
    #: Every number and switch of ``ruleset`` (JSON values).
    numbers: dict[str, Any]
    table: Table | None = None
    #: The table's rules that differ from its preset (empty without a table).
    differences: list[Difference] = field(default_factory=list)
    #: The table's own numbers (its table knobs, e.g. a raise cap): ``{name: value}``.
    table_numbers: dict[str, Any] = field(default_factory=dict)

    @property
    def game(self) -> str:
        return self.plugin.game

    @property
    def shown_numbers(self) -> list[tuple[str, str]]:
        return [(name, shown(value)) for name, value in self.numbers.items()]

    @property
    def shown_table_numbers(self) -> list[tuple[str, str]]:
        return [(name, shown(value)) for name, value in self.table_numbers.items()]

    @property
    def preset_label(self) -> str:
        return self.plugin.preset_label(self.preset)

    def context(self) -> dict[str, Any]:
        """What the plugin's template reads (``GamePlugin.rules_context``)."""
        return {"rules": self.ruleset, **self.plugin.rules_context(self.ruleset, self.table)}


def jsonable(value: Any) -> Any:
    """A ruleset's value as JSON: dataclasses to objects, tuples to lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def ruleset_numbers(ruleset: Any) -> dict[str, Any]:
    """Every field of a ruleset (a dataclass, or any object's attributes)."""
    data = jsonable(ruleset) if dataclasses.is_dataclass(ruleset) else dict(vars(ruleset))
    return {str(k): jsonable(v) for k, v in data.items()}


def rules_book(*, game: str, preset: str) -> RulesBook:
    """A preset's rules page; ``RulesNotFound`` for a game or preset there is not."""
    plugin = PLUGINS.get(game)
    if plugin is None or preset not in dict(plugin.presets):
        raise RulesNotFound()
    try:
        ruleset = plugin.ruleset_of(preset, {})
    except RulesError:
        raise RulesNotFound() from None
    return RulesBook(plugin, preset, ruleset, ruleset_numbers(ruleset))


def table_rules_book(*, table_id: int, user: User | None, invite_code: str = "") -> RulesBook:
    """A table's rules page: its preset's with its own rule options, those that
    differ listed first. A private table's only for those who may open it
    (``selectors.can_view``: else ``PrivateTable``)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.game not in PLUGINS:
        raise TableNotFound()
    seated = user is not None and (
        selectors.seated_position(table_id=table.pk, user=user) is not None
    )
    if not selectors.can_view(table, user, invite_code, seated):
        raise PrivateTable()
    plugin = PLUGINS[table.game]
    base = ruleset_numbers(plugin.ruleset_of(table.preset, {}))
    ruleset = plugin.ruleset(table)
    numbers = ruleset_numbers(ruleset)
    differences = [
        Difference(name, value, base.get(name))
        for name, value in numbers.items()
        if base.get(name) != value
    ]
    table_numbers = {
        "stake": table.stake,
        "seat_count": table.seat_count,
        **{name: plugin.setting(table, name) for name in plugin.table_knobs()},
    }
    return RulesBook(plugin, table.preset, ruleset, numbers, table, differences, table_numbers)
