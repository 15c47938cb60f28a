"""The auto-arranger's precomputed data, shipped as package data (``data/<preset>.npz``).

Each file is written by ``bench/build_maubinh_tables.py`` (fixed seed, so it
can be regenerated exactly) and holds, for one preset:

* ``class_*``: the preset's class table (:mod:`.classes`), so a process does
  not rebuild it (about 0.2 s) and ``class_signature`` the ruleset fields it
  was built for;
* ``opp_cards``: a sample of arranged hands (chi 1, chi 2, chi 3 card codes,
  13 per row) dealt at random 4-player tables and arranged by this arranger;
  ``opp_instant``: the instant win each declared (index in
  ``rules.INSTANT_TYPES``, -1 for none); ``opp_swept`` and ``opp_sweeps``: how
  often each sampled hand is swept by / sweeps another hand of the sample;
* ``meta``: the command line that built the file.

Loaded with :mod:`importlib.resources` and ``numpy.load`` (no pickle).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

DATA_PACKAGE = "games.rules.maubinh"
DATA_DIR = "data"


def data_path(preset: str) -> Any:
    """The resource of a preset's data file (a Traversable)."""
    return resources.files(DATA_PACKAGE).joinpath(DATA_DIR, f"{preset}.npz")


@lru_cache(maxsize=8)
def preset_data(preset: str) -> dict[str, Any] | None:
    """Every array of the preset's data file, or None if there is none."""
    resource = data_path(preset)
    if not resource.is_file():
        return None
    with resource.open("rb") as handle, np.load(handle, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}
