"""The one registry of games: a game's name to its rules package and engine.

A rules package is a Python package (anywhere: ``games/rules/<game>/`` or,
for a test-only game, the tests' own package) with

* ``engine`` — a module whose ``ENGINE`` satisfies :class:`GameEngine`
  (its ``name`` is the game's name, the key here);
* ``types`` — the view, action and summary ``TypedDict`` s the API schema
  publishes (read by the Django side, not here);
* ``cli`` (optional) — ``OPS``, the game's ops of the rules command line.

Nothing here names a game. Who fills the registry:

* the Django side: each plugin listed in the ``VIPGAME_GAMES`` setting names
  its rules package (``GamePlugin.rules``) and :func:`add` s it, in the
  setting's order (``games.plugins``);
* the rules command line (no Django): :func:`shipped` finds the packages
  under ``games/rules/`` that have an ``engine`` module, and the environment
  variable ``VIPGAME_RULES`` (comma-separated package paths) adds more.

Pure: no Django, no I/O beyond importing the packages it is told of (and
reading ``VIPGAME_RULES`` in :func:`load_configured`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RulesError
from .game import GameEngine

Op = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Rules:
    """A registered game: its ``name`` (the engine's), rules ``package``,
    ``engine``, display ``label`` and command-line ``ops``."""

    name: str
    package: str
    engine: GameEngine
    label: str
    ops: Mapping[str, Op] = field(default_factory=dict)


_RULES: dict[str, Rules] = {}


def add(package: str, label: str | None = None) -> Rules:
    """Register the rules package ``package`` (a dotted path) and return its
    entry. Adding the same package again returns the entry (a new ``label``
    replaces the old); another package with the same game name is an error."""
    engine: GameEngine = importlib.import_module(f"{package}.engine").ENGINE
    name = engine.name
    known = _RULES.get(name)
    if known is not None and known.package != package:
        raise ValueError(f"game {name!r} is already the rules package {known.package}")
    ops: Mapping[str, Op] = {}
    if importlib.util.find_spec(f"{package}.cli") is not None:
        ops = importlib.import_module(f"{package}.cli").OPS
    entry = Rules(name, package, engine, label or (known.label if known else name), ops)
    _RULES[name] = entry
    return entry


def remove(name: str) -> None:
    """Forget a game (tests that register a game of their own clean up)."""
    _RULES.pop(name, None)


def get(name: str) -> Rules:
    try:
        return _RULES[name]
    except KeyError:
        raise RulesError("unknown_game", f"Unknown game: {name!r}") from None


def engine(name: str) -> GameEngine:
    """The engine of a registered game (``RulesError`` ``unknown_game`` if none)."""
    return get(name).engine


def names() -> tuple[str, ...]:
    """Every registered game, in the order registered (the lobby's order on
    the Django side)."""
    return tuple(_RULES)


def entries() -> tuple[Rules, ...]:
    return tuple(_RULES.values())


def choices() -> list[tuple[str, str]]:
    """``(name, label)`` of every registered game: the model's ``game`` choices."""
    return [(r.name, r.label) for r in _RULES.values()]


def shipped() -> list[str]:
    """The rules packages shipped in ``games/rules/`` (found, not listed): each
    subpackage with an ``engine`` module."""
    found = []
    for module in pkgutil.iter_modules(_own_path()):
        if module.ispkg:
            package = f"{__package__}.{module.name}"
            if importlib.util.find_spec(f"{package}.engine") is not None:
                found.append(package)
    return sorted(found)


def _own_path() -> list[str]:
    package = importlib.import_module(__package__ or "games.rules")
    return list(package.__path__)


def load(packages: list[str]) -> None:
    """:func:`add` each package not registered yet (by package path)."""
    known = {r.package for r in _RULES.values()}
    for package in packages:
        if package not in known:
            add(package)


def load_configured() -> tuple[str, ...]:
    """Without Django (the command line, the rules tests): register the shipped
    packages and those the ``VIPGAME_RULES`` environment variable names
    (comma-separated); every registered game."""
    extra = [p.strip() for p in os.environ.get("VIPGAME_RULES", "").split(",") if p.strip()]
    load([*shipped(), *extra])
    return names()
