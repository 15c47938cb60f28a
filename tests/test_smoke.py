"""Boot the `make run` configuration (SQLite + embedded Redis) as real processes."""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from bench.stack import free_port
from push.keys import vapid_environment

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run_config_env(var_dir: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(VAR_DIR=str(var_dir), WEB_PORT=str(port), PATH=f"{BIN}:{env['PATH']}")
    env.pop("CHANNEL_PREFIX", None)
    env.pop("CACHE_PREFIX", None)
    return env


def wait_for(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError("the site stopped while starting")
        try:
            requests.get(url, timeout=5)
            return
        except (requests.ConnectionError, requests.Timeout):
            # (the first page renders slowly on a busy machine: read timed out)
            time.sleep(0.3)
    raise AssertionError("the site did not start")


@pytest.mark.slow
def test_make_run_configuration_serves_the_site_and_signs_up(tmp_path):
    port = free_port()
    env = run_config_env(tmp_path, port)
    manage = [str(BIN / "python"), "manage.py"]
    subprocess.run([*manage, "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    demo = subprocess.run(
        [*manage, "demo_data"], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    assert re.search(r"staff\s+admin / \S{12,}", demo.stdout)
    assert (tmp_path / "db.sqlite3").exists()

    site = subprocess.Popen(
        [str(BIN / "honcho"), "start"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    lines: list[str] = []
    reader = threading.Thread(
        target=lambda: lines.extend(line.decode(errors="replace") for line in site.stdout or ()),
        daemon=True,
    )
    reader.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(base + "/", site)
        # Start-up ends with the real address and the logins in a box, and the
        # sweeper (every 2 s) logs nothing at INFO to scroll them away.
        deadline = time.monotonic() + 90
        while not any("└" in line for line in lines):
            assert time.monotonic() < deadline, "no start-up box:\n" + "".join(lines)[-3000:]
            time.sleep(0.2)
        time.sleep(5)
        text = "".join(lines)
        assert f"VIPGAME is running on http://127.0.0.1:{port}/" in text
        assert re.search(r"│ staff\s+admin / \S{12,}\s+│", text)
        assert lines[-1].rstrip().endswith("┘"), "".join(lines[-5:])
        session = requests.Session()
        home = session.get(base + "/", timeout=10)
        assert home.status_code == 200
        assert "Phòng bài Việt" in home.text
        session.get(base + "/accounts/signup/", timeout=10)
        response = session.post(
            base + "/accounts/signup/",
            data={
                "csrfmiddlewaretoken": session.cookies["csrftoken"],
                "username": "smoke",
                "display_name": "Smoke",
                "password1": "Bai-Tien-Len-42",
                "password2": "Bai-Tien-Len-42",
            },
            headers={"Referer": base + "/accounts/signup/"},
            timeout=10,
        )
        assert response.status_code == 200
        assert "<strong>10.000</strong>" in response.text
        deadline = time.monotonic() + 30
        while not any("Connected to redis+socket://" in line for line in lines):
            assert time.monotonic() < deadline, "the Celery worker did not connect"
            time.sleep(0.2)
    finally:
        site.send_signal(signal.SIGINT)
        try:
            site.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(site.pid, signal.SIGKILL)
            site.wait()
        reader.join(timeout=5)
    text = "".join(lines)
    assert "Listening on TCP address" in text
    # The sweeper ran (every 2 s) without a line at INFO: not sent, received nor done.
    assert not re.search(r"Sending due task games-sweeper|games\.tasks\.sweeper\[", text)
    assert "Connected to redis+socket://" in text
    # Ctrl-C stopped every process: the port is free and Redis removed its socket.
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
    assert not (tmp_path / "redis.sock").exists()


def test_production_settings_pass_the_deploy_check(tmp_path):
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "x" * 20 + "-a-long-random-production-secret-value-1234567890",
        "ALLOWED_HOSTS": "cards.example.com",
        "EMAIL_HOST": "smtp.example.com",
        "DEFAULT_FROM_EMAIL": "VIPGAME <noreply@cards.example.com>",
        **vapid_environment(),
        "VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [str(BIN / "python"), "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
