"""The "next release" of the multi-host rolling drill: the project's settings
and one app more (tests/release_next: a migration that adds a column, and
code that uses it)."""

from vipgame.settings import *  # noqa: F403
from vipgame.settings import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "tests.release_next"]
