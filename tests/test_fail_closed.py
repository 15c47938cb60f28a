"""Item 8 of issue 18: DEBUG is off unless asked for, and with DEBUG off the
development stand-ins (SQLite, the embedded Redis) are refused."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SECRET = "x" * 20 + "-a-long-random-production-secret-value-1234567890"


def run(code: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DATABASE_URL", "REDIS_URL")}
    base.update(VAR_DIR=str(tmp_path), SECRET_KEY=SECRET, **env)
    return subprocess.run(
        [sys.executable, *code],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_debug_is_off_by_default(tmp_path):
    result = run(
        ["-c", "import django; django.setup(); from django.conf import settings; "
               "print(settings.DEBUG)"],
        tmp_path,
        DJANGO_SETTINGS_MODULE="vipgame.settings",
        DATABASE_URL=os.environ["DATABASE_URL"],
        REDIS_URL=os.environ["REDIS_URL"],
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("given", "refused"),
    [
        ({}, ["vipgame.E001", "vipgame.E002"]),
        ({"DATABASE_URL": "sqlite:///{tmp}/db.sqlite3", "REDIS_URL": "redis://127.0.0.1:6379/0"},
         ["vipgame.E001"]),
        ({"DATABASE_URL": "postgres://u@127.0.0.1:5432/x"}, ["vipgame.E002"]),
    ],
)  # fmt: skip
def test_the_check_refuses_sqlite_and_the_embedded_redis_without_debug(tmp_path, given, refused):
    env = {k: v.format(tmp=tmp_path) for k, v in given.items()}
    result = run(["manage.py", "check"], tmp_path, DEBUG="0", **env)
    assert result.returncode != 0
    for code in refused:
        assert code in result.stderr
    for code in {"vipgame.E001", "vipgame.E002"} - set(refused):
        assert code not in result.stderr
    assert "Traceback" not in result.stderr


def test_the_check_passes_with_debug_on_for_make_run(tmp_path):
    result = run(["manage.py", "check"], tmp_path, DEBUG="1")
    assert result.returncode == 0, result.stderr


def test_daphne_and_celery_refuse_to_start_on_the_development_stand_ins(tmp_path):
    asgi = run(["-c", "import vipgame.asgi"], tmp_path, DEBUG="0")
    assert asgi.returncode != 0
    assert "ImproperlyConfigured" in asgi.stderr
    assert "vipgame.E001" in asgi.stderr
    assert "REDIS_URL is not set" in asgi.stderr
    assert "vipgame.E003" in asgi.stderr  # and no mail server
    worker = run(
        ["-m", "celery", "-A", "vipgame", "worker", "--pool", "solo", "-l", "WARNING"],
        tmp_path,
        DEBUG="0",
    )
    assert worker.returncode != 0
    assert "vipgame.E001" in worker.stdout + worker.stderr
