"""Issue 14 item 1: each game has one home on every layer.

A game is a rules package (``games/rules/<game>/``, registered in
``games.rules.registry``), a plugin (``games/plugins``, listed in
``settings.VIPGAME_GAMES``) and, for the shipped games, a browser module
(``static/js/games/<game>.js``, named by the plugin). Everything else asks the
table's plugin or the registry (or, in the browser, the game's module or the
data the server sends) and never names a game.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.utils.module_loading import import_string

from games.models import Hand, Table
from games.plugins import PLUGINS, GamePlugin, engine_for, game_choices, plugin_for
from games.rules import registry

ROOT = Path(__file__).resolve().parent.parent
# A game named in code: its name, in any case ("holdem", HOLDEM,
# data-holdem-only...). Prose ("Hold'em stacks") is not code.
GAME_NAME = re.compile("|".join(re.escape(g) for g in PLUGINS), re.IGNORECASE)
# The modules that must ask the plugins instead.
GENERIC = [
    *sorted((ROOT / "games/services").glob("*.py")),
    *sorted((ROOT / "games/api").glob("*.py")),
    *(
        ROOT / "games" / name
        for name in (
            "views.py",
            "forms.py",
            "selectors.py",
            "consumers.py",
            "publish.py",
            "limits.py",
            "tasks.py",
            "scheduling.py",
            "models.py",
            "protocol.py",
            "apps.py",
        )
    ),
    *(ROOT / "games/plugins" / name for name in ("__init__.py", "base.py", "knobs.py", "money.py")),
    *sorted((ROOT / "games/rules").glob("*.py")),  # the registry, the CLI, the protocol
    ROOT / "moderation/admin/games.py",  # the games' admin pages
    *sorted((ROOT / "templates/games").glob("*.html")),
    *(
        ROOT / "static/js" / name
        for name in (
            "table.js",
            "replay.js",
            "fairness.js",
            "lobby.js",
            "moments.js",
            "feel.js",
            "motion.js",
            "sound.js",
            "result.js",
            "icons.js",
        )
    ),
]


def test_every_game_has_a_plugin_a_rules_engine_and_a_browser_module():
    assert list(PLUGINS) == [import_string(path).game for path in settings.VIPGAME_GAMES]
    assert set(PLUGINS) <= set(registry.names())
    assert [choice for choice, _ in game_choices()] == list(PLUGINS)
    for game in PLUGINS:
        plugin = plugin_for(game)
        assert isinstance(plugin, GamePlugin)
        assert plugin.game == game
        assert engine_for(game).name == game
        assert plugin.engine is engine_for(game)
        assert registry.get(game).package == plugin.rules
        if plugin.rules in registry.shipped():  # a shipped game has its browser screens
            assert plugin.browser_module == f"js/games/{game}.js"
        if plugin.browser_module:
            assert (ROOT / "static" / plugin.browser_module).is_file(), game
        assert plugin.seats.low >= 2
        assert plugin.seats.high <= engine_for(game).max_players
        assert {"vipgame"} <= {code for code, _label in plugin.presets}


def test_no_module_outside_the_plugins_names_a_game():
    assert len(GENERIC) > 20
    named = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in GENERIC
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if GAME_NAME.search(line)
    ]
    assert named == []


def test_the_scan_finds_a_game_name():
    assert GAME_NAME.search("if table.game == Game.HOLDEM:")
    assert GAME_NAME.search('node.hidden = chosen !== "tienlen";')
    assert not GAME_NAME.search("if plugin.money.chips_on_seat:")


# A game's own clocks and settings in code: a clock kind only its engine
# declares, quoted or as a ``Clock`` member ("turn", Clock.ARRANGE), or one of
# its plugin's knobs ("reveal_seconds", "cong_penalty"). The table state's
# ``max_raise`` is the wire's field of old (docs/protocol.md): the one knob
# the shared modules name, as a key of the state they send. A money model's
# knobs (the chips held to sit, the buy-in range) are named by their home,
# games/plugins/money.py, and by no other shared module.
_KINDS = sorted({k for g in PLUGINS for k in engine_for(g).clocks} - set(Table.Clock.values))
_KNOBS = sorted({name for p in PLUGINS.values() for name in p.knobs} - {"max_raise"})
GAME_OWN = re.compile(
    "|".join(
        [
            *(rf"[\"']{k}[\"']|Clock\.{k.upper()}\b" for k in _KINDS),
            *(rf"\b{name}\b" for name in _KNOBS),
        ]
    )
)
_MONEY_KNOBS = {name for p in PLUGINS.values() for name in p.money.knobs}
GAME_OWN_BUT_MONEY = re.compile(
    "|".join(
        [
            *(rf"[\"']{k}[\"']|Clock\.{k.upper()}\b" for k in _KINDS),
            *(rf"\b{name}\b" for name in _KNOBS if name not in _MONEY_KNOBS),
        ]
    )
)
MONEY = ROOT / "games/plugins/money.py"


def test_no_shared_python_module_names_a_games_own_clock_or_setting():
    """The engine declares its clocks (``GameEngine.clocks``), the plugin the
    knobs that hold their lengths and every other setting of the game: the
    shared Python modules ask them."""
    assert {"turn", "arrange", "reveal"} <= set(_KINDS)
    assert {"arrange_seconds", "buy_in_min", "min_balance_units"} <= set(_KNOBS)
    named = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in GENERIC
        if path.suffix == ".py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if (GAME_OWN_BUT_MONEY if path == MONEY else GAME_OWN).search(line)
    ]
    assert named == []


def test_the_scan_finds_a_games_own_clock_or_setting():
    assert GAME_OWN.search("if table.clock == Table.Clock.TURN:")
    assert GAME_OWN.search('durations = {"arrange": table.settings["arrange_seconds"]}')
    assert GAME_OWN.search("low = table.buy_in_min")
    assert not GAME_OWN.search("work.set_clock(Table.Clock.SUMMARY, table.summary_seconds)")
    assert not GAME_OWN.search("the turn clock of the table")


def test_every_clock_of_an_engine_has_its_length_at_the_table():
    """Each clock an engine declares has a length its plugin names: a number
    knob of the game's (its default within its range) or a clock every table
    has; the shared ``Table.Clock`` kinds are no engine's."""
    for game in PLUGINS:
        plugin, engine = plugin_for(game), engine_for(game)
        assert set(plugin.clock_seconds) == set(engine.clocks), game
        assert not set(engine.clocks) & set(Table.Clock.values), game
        for name in plugin.clock_seconds.values():
            knob = plugin.knobs.get(name)
            if knob is None:
                Table._meta.get_field(name)  # a column every table has
            else:
                assert knob.kind == "number", (game, name)
                assert not knob.rule, (game, name)
                assert knob.range is not None, (game, name)
                assert knob.range.low <= knob.default <= knob.range.high, (game, name)


def test_the_game_field_s_choices_are_the_registry_s():
    """A callable (no migration per game): every registered game, labelled."""
    for model in (Table, Hand):
        choices = list(model._meta.get_field("game").choices or [])
        assert [value for value, _label in choices] == list(registry.names())
        assert set(PLUGINS) <= {value for value, _label in choices}
