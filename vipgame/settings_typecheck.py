"""The settings mypy's Django plugin loads (pyproject.toml): the real ones, with
DEBUG on so that type checking needs no SECRET_KEY or servers."""

import os

os.environ.setdefault("DEBUG", "1")

from vipgame.settings import *  # noqa: F403
