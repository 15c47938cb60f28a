"""bench.stack.free_port: the ports the tests and benchmarks give the
processes they start."""

from __future__ import annotations

import socket
from typing import Any

from bench import stack


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
