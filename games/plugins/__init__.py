"""One plugin per game on the Django side (see :mod:`games.plugins.base`).

Adding a game: a rules package ``games/rules/<game>/`` with its ``ENGINE``, a
plugin module here registered in :data:`PLUGINS`, a browser module
``static/js/games/<game>.js``, and a migration adding the ``Game`` choice.
"""

from __future__ import annotations

from games.models import Game

from .base import FEWEST_PLAYERS, GamePlugin, Knob, Range, Transfer, engine_for
from .holdem import Holdem
from .maubinh import MauBinh
from .tienlen import TienLen

#: Every game's plugin, in the order of the ``Game`` choices (the lobby's tabs).
PLUGINS: dict[str, GamePlugin] = {
    p.game: p
    for p in sorted((MauBinh(), TienLen(), Holdem()), key=lambda p: Game.values.index(p.game))
}


def plugin_for(game: str) -> GamePlugin:
    return PLUGINS[game]


__all__ = [
    "FEWEST_PLAYERS",
    "PLUGINS",
    "GamePlugin",
    "Knob",
    "Range",
    "Transfer",
    "engine_for",
    "plugin_for",
]
