"""The contract suite iterates the registry (tests/registry.py): no test and
no shared module lists the shipped games by hand, which would let a new game
silently skip the tests that list them. Also the pure registry itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from games.plugins import PLUGINS
from games.rules import registry
from games.rules.errors import RulesError

from .registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
#: The games shipped in games/rules (a test-only game is not among them).
SHIPPED = {registry.get(g).name for g in PLUGINS if registry.get(g).package.startswith("games.")}
#: The homes of the shipped games themselves, and the one table of their test facts.
OWN = [
    *(ROOT / "games/rules" / game for game in SHIPPED),
    *(ROOT / "games/plugins" / f"{game}.py" for game in SHIPPED),
    *(ROOT / "tests/rules" / game for game in SHIPPED),
    ROOT / "tests/registry.py",
    ROOT / "vipgame/settings.py",  # VIPGAME_GAMES: the one list of games
    # each browser game's own steps at its table (not a list to iterate: a new
    # browser game brings its own steps)
    ROOT / "tests/e2e/test_feel.py",
]
SCANNED = ["tests", "games", "moderation", "tournaments", "wallet", "accounts", "kernel", "vipgame"]


def strings(node: ast.AST) -> set[str]:
    """The string constants a list, tuple, set or dict (its keys) holds directly."""
    if isinstance(node, ast.Dict):
        items: list[ast.expr | None] = list(node.keys)
    elif isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = list(node.elts)
    else:
        return set()
    return {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}


def hand_lists(source: str) -> list[int]:
    """The lines where a list, tuple, set or dict names every shipped game."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.expr) and strings(node) >= SHIPPED
    ]


def owned(path: Path) -> bool:
    return any(path == home or home in path.parents for home in OWN)


def test_no_module_lists_the_games_by_hand():
    assert len(SHIPPED) == 3
    found = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            if owned(path) or "migrations" in path.parts:
                continue
            found += [f"{path.relative_to(ROOT)}:{n}" for n in hand_lists(path.read_text())]
    assert found == [], "iterate tests.registry.GAMES (or the plugins) instead"


def test_the_scan_finds_a_list_of_the_games():
    names = sorted(SHIPPED)
    assert hand_lists(f"GAMES = {names!r}") == [1]
    assert hand_lists(f"@pytest.mark.parametrize('game', {tuple(names)!r})\ndef t(): ...") == [1]
    assert hand_lists(f"x = {dict.fromkeys(names, 1)!r}") == [1]
    assert hand_lists(f"for game in {(*names, names[0])!r}: pass") == [1]
    assert hand_lists(f"pair = {names[:2]!r}") == []
    assert hand_lists("from .registry import GAMES\nfor game in GAMES: pass") == []


def test_the_contract_suite_iterates_every_plugin():
    assert list(PLUGINS) == GAMES
    assert set(GAMES) >= SHIPPED


def test_the_registry_looks_up_adds_and_refuses(monkeypatch):
    for game in GAMES:
        assert registry.engine(game) is PLUGINS[game].engine
        assert registry.engine(game).name == game
    with pytest.raises(RulesError) as unknown:
        registry.engine("no-such-game")
    assert unknown.value.code == "unknown_game"
    # adding a package again is the same game, in the same place
    some = registry.get(GAMES[0])
    assert registry.add(some.package, some.label) == some
    assert registry.names().index(some.name) == 0
    # a second package of the same name is refused and changes nothing
    elsewhere = registry.Rules("highcard", "somewhere.else", some.engine, "High card")
    monkeypatch.setitem(registry._RULES, "highcard", elsewhere)
    with pytest.raises(ValueError, match=r"already the rules package somewhere\.else"):
        registry.add("tests.fourth_game")
    assert registry.get("highcard") is elsewhere


def test_the_rules_command_line_finds_the_shipped_games_and_more_by_configuration(monkeypatch):
    from games.rules import cli

    shipped = registry.shipped()
    assert {registry.get(g).package for g in SHIPPED} == set(shipped)
    assert all(package.startswith("games.rules.") for package in shipped)
    monkeypatch.setattr(registry, "_RULES", dict(registry._RULES))
    monkeypatch.setenv("VIPGAME_RULES", "tests.fourth_game")
    ops = cli.all_ops()
    # each shipped game's ops, found (not listed); the configured game registered
    assert {op.split(".")[0] for op in ops if "." in op} == SHIPPED
    assert registry.get("highcard").package == "tests.fourth_game"
