"""bench/suite.py: a run's wall and the machine's CPU by kind of process."""

from __future__ import annotations

import sys

import pytest

from bench import testcpu
from bench.suite import kind_of, run

# (it burns, then idles: the sampler sees a process every half second, and
# what it used after its last sample, when it ends, is not counted)
BURN = (
    "import time\nend = time.process_time() + 0.6\n"
    "while time.process_time() < end: pass\ntime.sleep(2)"
)


def test_processes_are_told_apart_by_their_command_lines():
    assert kind_of("/usr/lib/chromium/chromium --type=renderer") == "chromium"
    assert kind_of(".venv/bin/python .venv/bin/daphne -b 127.0.0.1 -p 1 a:b") == "daphne"
    assert kind_of(".venv/bin/python .venv/bin/celery -A vipgame worker --beat") == "celery"
    assert kind_of("postgres: 15/main: postgres test_vipgame_gw0 127.0.0.1(5) idle") == "postgres"
    assert kind_of("python -c import sys;exec(eval(sys.stdin.readline()))") == "pytest"
    assert kind_of(".venv/bin/python -m pytest -n 3") == "pytest"
    assert kind_of("/usr/sbin/sshd -D") == "other"


def test_a_commands_cpu_is_counted_under_its_kind_and_in_the_machines_total():
    result = run([sys.executable, "-c", BURN], speed=False)
    assert result["exit_status"] == 0
    assert result["cpu_s_by_kind"]["python"] >= 0.5
    assert result["machine_cpu_s"] >= 0.5
    assert 0 < result["cores_busy"] <= result["cores"]
    assert result["wall_s"] >= 0.5


def test_the_commands_exit_status_is_reported():
    assert run([sys.executable, "-c", "raise SystemExit(3)"], speed=False)["exit_status"] == 3


# Two tests: one burns CPU in its own process, one in a process it starts.
TWO_TESTS = """
import subprocess, sys, time

def burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def test_in_its_own_process():
    burn(0.5)

def test_in_a_process_it_starts():
    code = "import time\\nend = time.process_time() + 0.5\\nwhile time.process_time() < end: pass"
    subprocess.run([sys.executable, "-c", code], check=True)
"""


@pytest.fixture
def outside_by_module(monkeypatch):
    """As a run that is not itself measured by module (this suite may be)."""
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    monkeypatch.delenv(testcpu.DIR_VARIABLE, raising=False)


def test_by_module_counts_a_tests_own_cpu_and_its_processes(tmp_path, outside_by_module):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_two.py").write_text(TWO_TESTS)
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:django", "-p", "no:cacheprovider"]
    result = run(
        [*pytest, "-c", str(tmp_path / "pytest.ini"), str(tmp_path)], speed=False, by_module=True
    )
    assert result["exit_status"] == 0
    [module] = result["by_module"]
    assert module["module"].endswith("test_two.py")
    assert module["tests"] == 2
    assert module["own_cpu_s"] >= 0.5
    assert module["processes_cpu_s"] >= 0.5


def test_without_by_module_nothing_is_loaded_or_read(outside_by_module):
    result = run(
        [
            sys.executable,
            "-c",
            "import os; assert 'bench.testcpu' not in os.environ.get('PYTEST_ADDOPTS', '')",
        ],
        speed=False,
    )
    assert result["exit_status"] == 0
    assert result["by_module"] is None
