"""bench/spy.py: shares of py-spy's raw samples (the Daphne profile in bench/RESULTS.md)."""

from __future__ import annotations

import pytest

from bench.spy import NO_FRAME, frame_name, shares

RAW = [
    "<module> (daphne:8);run (/x/site-packages/daphne/server.py:1);f (/w/games/a.py:3) 3",
    "<module> (daphne:8);run (/x/site-packages/daphne/server.py:1);g (/w/games/b.py:9) 1",
    "<module> (daphne:8);run (/x/site-packages/daphne/server.py:2) 4",
    " 2",
    "",
]


def test_shares_are_of_every_sample_inclusive_and_self():
    result = shares(RAW)

    assert result["samples"] == 10
    assert result["inclusive"]["run (daphne/server.py)"] == pytest.approx(0.8)
    assert result["inclusive"]["f (games/a.py)"] == pytest.approx(0.3)
    assert result["self"]["run (daphne/server.py)"] == pytest.approx(0.4)
    assert result["self"]["g (games/b.py)"] == pytest.approx(0.1)
    assert result["self"][NO_FRAME] == pytest.approx(0.2)
    assert sum(result["self"].values()) == pytest.approx(1.0)


def test_a_frame_is_named_by_its_package_path():
    assert frame_name("run (/v/lib/python3.11/site-packages/daphne/server.py:12)") == (
        "run (daphne/server.py)"
    )
    assert frame_name("table_act (/work/main/games/services/hands.py:248)") == (
        "table_act (games/services/hands.py)"
    )
    assert frame_name("odd frame") == "odd frame"
