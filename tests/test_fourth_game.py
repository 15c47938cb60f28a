"""Pluggability: a fourth game that only the tests know (tests/fourth_game,
two-player high card) plays through the whole stack and through the
cross-game contract suite, with no edit to shared code: the only change is
the test settings module listing its plugin (tests/settings_fourth.py).

It runs in a pytest of its own (the settings are read once per process): the
whole-stack module, and the contract tests for that game (their ``highcard``
cases, and every case of the modules that check the registry and the
schema). This test fails if that run fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent

#: The cross-game contract suite's modules that are not browser tests.
CONTRACT = [
    "tests/rules/test_replay.py",
    "tests/rules/test_personal_view.py",
    "tests/services/test_faucets.py",
    "tests/services/test_seat_holds.py",
    "tests/services/test_leaks.py",
    "tests/services/test_tables.py",
    "tests/services/test_fair_seeds.py",
    "tests/services/test_deltas.py",
    "tests/moderation/test_tables.py",
    "tests/moderation/test_users.py",
    "tests/moderation/test_hands.py",
    "tests/consumers/test_games.py",
    "tests/api/test_replay_steps.py",
    "tests/api/test_envelope_schema.py",
    "tests/test_plugins.py",
    "tests/test_registry.py",
]
#: Whole modules run (everything else: only the fourth game's cases), less the
#: shipped games' own cases, which the main run has checked already.
WHOLE = ["whole_stack", "test_plugins", "test_registry", "test_envelope_schema"]


def selection() -> str:
    """The ``-k`` of the fourth game's run: its cases and the whole modules, not
    the cases of the games the project ships (``GAMES`` of the main settings;
    ``-k`` matches case-insensitively, so ``maubinh`` is also ``[MauBinh]``)."""
    return f"({' or '.join(['highcard', *WHOLE])}) and not ({' or '.join(GAMES)})"


def _cases(report: Path) -> dict[str, list[tuple[str, str]]]:
    """Each module's test cases in a JUnit report: (name, outcome)."""
    cases: dict[str, list[tuple[str, str]]] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        outcome = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
        module = case.get("classname", "").rsplit(".", 1)[-1]
        cases.setdefault(module, []).append((case.get("name", ""), outcome))
    return cases


@pytest.mark.slow
def test_a_fourth_game_plays_through_the_whole_stack_and_the_contract_suite(tmp_path):
    env = {
        name: value
        for name, value in os.environ.items()
        # a run of its own: not an xdist worker, its own Redis keys
        if not name.startswith("PYTEST_")
        and name not in ("CHANNEL_PREFIX", "CACHE_PREFIX", "CELERY_QUEUE")
    }
    env["DJANGO_SETTINGS_MODULE"] = "tests.settings_fourth"
    report = tmp_path / "fourth.xml"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "-q",
            "--create-db",
            f"--junitxml={report}",
            "-k",
            selection(),
            "tests/fourth_game/whole_stack.py",
            *CONTRACT,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    cases = _cases(report)
    # every module ran cases of the fourth game (none skipped it), and all passed
    for path in ["tests/fourth_game/whole_stack.py", *CONTRACT]:
        module = Path(path).stem
        ran = cases.get(module, [])
        if module not in WHOLE:
            ran = [(name, outcome) for name, outcome in ran if "highcard" in name]
        assert ran, f"{module}: no case of the fourth game ran"
        assert {outcome for _, outcome in ran} == {"passed"}, (module, ran)
    assert ("test_high_card_from_the_lobby_to_the_replay", "passed") in cases["whole_stack"]
