"""bench.stack.free_port: the ports the tests and benchmarks give the
processes they start."""

from __future__ import annotations

import os
import socket
import sys
from typing import Any
from unittest.mock import patch

import pytest

from bench import stack

from . import processes
from .processes import running, serving


def test_a_port_the_kernel_gives_twice_is_handed_out_once(monkeypatch):
    given = iter([40001, 40001, 40002])

    class Kernel:
        """A socket whose free port is 40001, again 40001, then 40002."""

        def __enter__(self) -> Kernel:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def bind(self, address: Any) -> None:
            pass

        def getsockname(self) -> tuple[str, int]:
            return ("127.0.0.1", next(given))

    monkeypatch.setattr(socket, "socket", Kernel)
    monkeypatch.setattr(stack, "_HANDED_OUT", set())

    assert [stack.free_port(), stack.free_port()] == [40001, 40002]


HTTP_SERVER = [sys.executable, "-m", "http.server", "--bind", "127.0.0.1"]


def test_a_server_is_waited_for_on_its_own_port_and_not_on_one_another_holds(tmp_path):
    """wait_http with the server's process: the port must answer from it. A
    server whose port another process bound first fails to listen while the
    port answers; that is ``PortTaken``, and ``serving`` starts it again on
    another port."""
    holder_port = stack.free_port()
    with running([*HTTP_SERVER, str(holder_port)], os.environ.copy(), tmp_path / "a.log") as holder:
        stack.wait_http(holder_port, process=holder)  # its own: answers
        assert stack.listens_on(holder, holder_port)

        # Another server given the same port: it cannot bind it and exits.
        with (
            running(
                [*HTTP_SERVER, str(holder_port)], os.environ.copy(), tmp_path / "b.log"
            ) as late,
            pytest.raises(stack.PortTaken),
        ):
            stack.wait_http(holder_port, process=late)
        # One that does not exit, while the port answers from the holder.
        with (
            running(
                [sys.executable, "-c", "import time; time.sleep(60)"],
                os.environ.copy(),
                tmp_path / "c.log",
            ) as idle,
            pytest.raises(stack.PortTaken, match="another process"),
        ):
            stack.wait_http(holder_port, process=idle)

        # ``serving``: first given the holder's port, then a free one.
        given = iter([holder_port, stack.free_port()])
        with (
            patch.object(processes, "free_port", lambda: next(given)),
            serving(
                lambda port: [*HTTP_SERVER, str(port)],
                lambda _: os.environ.copy(),
                tmp_path / "d.log",
            ) as (port, server),
        ):
            assert port != holder_port
            assert stack.listens_on(server, port)
            assert not stack.listens_on(server, holder_port)


def test_a_bench_stack_moves_a_daphne_whose_port_another_process_bound(tmp_path, monkeypatch):
    """bench.stack.Stack: a server of its own that finds its port taken is
    started again on another (here a plain HTTP server stands for Daphne)."""
    holder_port = stack.free_port()
    with running([*HTTP_SERVER, str(holder_port)], os.environ.copy(), tmp_path / "a.log") as holder:
        stack.wait_http(holder_port, process=holder)
        bench = stack.Stack(tmp_path)
        bench.ports = (holder_port, bench.ports[1])
        bench.env = {**os.environ, "DB_APPLICATION_NAME": "ports-test"}
        monkeypatch.setattr(
            stack.Stack,
            "command",
            lambda self, name: [*HTTP_SERVER, str(self.ports[0 if name == "daphne-a" else 1])],
        )
        bench.start("daphne-a")
        try:
            bench.wait_listening("daphne-a")
            assert bench.ports[0] != holder_port
            assert stack.listens_on(bench.processes["daphne-a"], bench.ports[0])
        finally:
            stack.stop_groups(list(bench.processes.values()), timeout=10)
