"""Real server processes (Daphne, Celery) against the test database and Redis."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.db import connection

from bench.stack import PortTaken, free_port, stop_group, wait_http, wait_until

__all__ = ["free_port", "wait_http"]

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def test_database_url() -> str:
    """The URL of the database the tests are using right now."""
    info = connection.settings_dict
    user, name = info["USER"] or "postgres", info["NAME"]
    password = f":{info['PASSWORD']}" if info.get("PASSWORD") else ""
    if info.get("HOST"):
        return f"postgres://{user}{password}@{info['HOST']}:{info.get('PORT') or 5432}/{name}"
    return f"postgres://{user}{password}@/{name}?host={info['OPTIONS']['host']}"


def process_env(var_dir: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": test_database_url(), "VAR_DIR": str(var_dir)}
    env["PATH"] = f"{BIN}:{env['PATH']}"
    env.update(extra)
    return env


@contextlib.contextmanager
def running(command: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen]:
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                stop_group(process, timeout=10)


@contextlib.contextmanager
def serving(
    command: Callable[[int], list[str]],
    env: Callable[[int], dict[str, str]],
    log: Path,
    tries: int = 3,
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A server started on a port of ``free_port`` (``command(port)`` with
    ``env(port)``), once it answers HTTP there itself; on another port if a
    process of another pytest worker bound that one first (``PortTaken``)."""
    for tries_left in reversed(range(tries)):
        port = free_port()
        with running(command(port), env(port), log) as process:
            try:
                wait_http(port, process=process)
            except PortTaken:
                if tries_left:
                    continue
                raise
            yield port, process
            return


def daphne(port: int) -> list[str]:
    return [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "vipgame.asgi:application"]


def celery_worker(var_dir: Path, beat: bool, level: str = "INFO") -> list[str]:
    """A worker's command (``level``: DEBUG shows the routine tasks' lines,
    received and succeeded, which production's INFO leaves out)."""
    command = [str(BIN / "celery"), "-A", "vipgame", "worker", "-l", level, "--concurrency", "1"]
    if beat:
        command += ["--beat", "--schedule", str(var_dir / "beat-schedule")]
    return command


def wait_for(predicate: Any, timeout: float, step: float = 0.2) -> Any:
    value = wait_until(predicate, timeout, step)
    if not value:
        raise AssertionError("condition not reached in time")
    return value


def decode(raw: str | bytes) -> dict[str, Any]:
    return dict(json.loads(raw))
