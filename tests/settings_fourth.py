"""The project's settings with a fourth, test-only game (tests/fourth_game)
listed after the three real ones: the only change a game needs.

(Its test database has a name of its own, so a run under these settings can
go on beside a run under the project's.)"""

from vipgame.settings import *  # noqa: F403
from vipgame.settings import DATABASES, VIPGAME_GAMES

VIPGAME_GAMES = [*VIPGAME_GAMES, "tests.fourth_game.plugin.HighCard"]

DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_fourth"}
