"""One plugin per game on the Django side (see :mod:`games.plugins.base`).

The games are the plugins listed in the ``VIPGAME_GAMES`` setting (dotted
paths of :class:`GamePlugin` subclasses, in the lobby's order). Each plugin
names its rules package (``GamePlugin.rules``), which is registered in the one
pure registry :mod:`games.rules.registry` (name → engine): the rules command
line, the ``game`` field's choices, the API schema and the tests' contract
suite (``tests/registry.py``) all iterate it; nothing shared names a game.

Adding a game (3 places, none shared; about 24 before this registry, see
docs/architecture.md "The game registry"):

1. a rules package with ``engine.py`` (``ENGINE``, a
   :class:`games.rules.game.GameEngine`), ``types.py`` (``<schema_name>View``,
   ``Summary``, ``Action``) and, optionally, ``cli.py`` (``OPS``);
2. a :class:`GamePlugin` subclass pointing at it (``game``, ``rules``,
   ``label``, ``seats``, ``schema_name``, optional ``browser_module``...);
3. its dotted path in ``settings.VIPGAME_GAMES``.

Optional, for what the game offers: a browser module (its screens), its
options in ``docs/tables.md``, its test facts (``tests/registry.py``). No
migration: the ``game`` field's choices are the registry's (a callable).
A test-only game lives in the tests' package: ``tests/fourth_game``, listed by
``tests/settings_fourth.py``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from games.rules import registry

from .base import FEWEST_PLAYERS, GamePlugin, Transfer, engine_for
from .knobs import Knob, Range


def _load(paths: list[str]) -> dict[str, GamePlugin]:
    plugins: dict[str, GamePlugin] = {}
    for path in paths:
        plugin = import_string(path)()
        if not isinstance(plugin, GamePlugin):
            raise ImproperlyConfigured(f"VIPGAME_GAMES: {path} is not a GamePlugin")
        rules = registry.add(plugin.rules, str(plugin.title or plugin.label))
        if rules.name != plugin.game:
            raise ImproperlyConfigured(
                f"VIPGAME_GAMES: {path} is {plugin.game!r} but its engine is {rules.name!r}"
            )
        if plugin.game in plugins:
            raise ImproperlyConfigured(f"VIPGAME_GAMES: {plugin.game!r} is listed twice")
        plugins[plugin.game] = plugin
    return plugins


#: Every game's plugin, in the order of ``settings.VIPGAME_GAMES`` (the lobby's tabs).
PLUGINS: dict[str, GamePlugin] = _load(list(settings.VIPGAME_GAMES))


def plugin_for(game: str) -> GamePlugin:
    return PLUGINS[game]


def game_choices() -> list[tuple[str, str]]:
    """``(game, full name)`` of every game, in the lobby's order."""
    return [(game, str(plugin.title or plugin.label)) for game, plugin in PLUGINS.items()]


__all__ = [
    "FEWEST_PLAYERS",
    "PLUGINS",
    "GamePlugin",
    "Knob",
    "Range",
    "Transfer",
    "engine_for",
    "game_choices",
    "plugin_for",
]
