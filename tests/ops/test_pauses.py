"""The garbage collector's tuning and its pauses (kernel.ops.pauses)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest
from prometheus_client import REGISTRY

from kernel.ops import pauses


@pytest.fixture
def collector():
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def full_collections_timed() -> float:
    return REGISTRY.get_sample_value("vipgame_gc_pause_seconds_count", {"generation": "2"}) or 0.0


def test_tune_sets_the_thresholds_freezes_what_is_loaded_and_times_collections(collector):
    gc.unfreeze()
    pauses.tune((12345, 17, 42), freeze=True)
    assert gc.get_threshold() == (12345, 17, 42)
    assert gc.get_freeze_count() > 1000  # (this test process's modules, at least)
    before = full_collections_timed()
    gc.collect(2)
    assert full_collections_timed() == before + 1
    pauses.tune((12345, 17, 42), freeze=False)  # again: timed once, not twice
    gc.collect(2)
    assert full_collections_timed() == before + 2


def test_a_metric_that_cannot_be_written_does_not_raise_from_a_collection(monkeypatch):
    def broken(**labels):
        raise OSError(9, "Bad file descriptor")

    monkeypatch.setattr(pauses.GC_PAUSE_SECONDS, "labels", broken)
    pauses._timed("start", {"generation": 2})
    pauses._timed("stop", {"generation": 2, "collected": 0, "uncollectable": 0})


def test_without_freeze_nothing_is_frozen(collector):
    gc.unfreeze()
    pauses.tune((700, 10, 10), freeze=False)
    assert gc.get_freeze_count() == 0


def test_daphne_is_tuned_as_its_application_loads():
    """A process of its own: Daphne loads ``vipgame.asgi`` and serves."""
    probe = (
        "import gc, json, vipgame.asgi; from kernel.ops import pauses; "
        "print(json.dumps([gc.get_threshold(), gc.get_freeze_count(), "
        "pauses._timed in gc.callbacks]))"
    )
    env = {**os.environ, "DEBUG": "1", "GC_THRESHOLDS": "23456,19,77"}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr[-2000:]
    thresholds, frozen, timed = json.loads(out.stdout.splitlines()[-1])
    assert thresholds == [23456, 19, 77]
    assert frozen > 1000
    assert timed
