"""bench/suite.py: a run's wall and the machine's CPU by kind of process."""

from __future__ import annotations

import sys

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
