"""The last words of ``make run``'s start-up: once the site answers and the
Celery worker is ready, print the real address, where mail goes and the demo
logins in a box, then wait quietly until honcho stops everything (Ctrl-C)."""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def address() -> tuple[str, int]:
    return os.environ.get("WEB_HOST", "127.0.0.1"), int(os.environ.get("WEB_PORT", "8000"))


def site_url() -> str:
    host, port = address()
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def answers(host: str, port: int) -> bool:
    target = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)  # noqa: S104
    try:
        with socket.create_connection((target, port), timeout=1):
            return True
    except OSError:
        return False


def worker_ready() -> bool:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")
    from vipgame.celery import app

    try:
        return bool(app.control.ping(timeout=1.0))
    except Exception:
        return False


def logins() -> list[str]:
    var_dir = Path(os.environ.get("VAR_DIR", ROOT / "var"))
    path = var_dir / "demo-logins.txt"
    if not path.exists():
        return ["(no demo logins: run `make run` once more)"]
    # Older files name the admin address with the default port: the box says the real one.
    return [re.sub(r"\s*\(http://[^)]*\)", "", line) for line in path.read_text().splitlines()]


def mail_line() -> str:
    """Where the site's mails (verification and reset links) go."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")
    from django.conf import settings

    backend = settings.EMAIL_BACKEND.rsplit(".", 2)[-2]
    if backend == "filebased":
        return f"Mail is not sent: each one is a file in {settings.EMAIL_FILE_PATH}/"
    if backend == "console":
        return "Mail is not sent: each one is printed in the worker's log"
    if backend == "smtp":
        return f"Mail goes out through {settings.EMAIL_HOST}:{settings.EMAIL_PORT}"
    return f"Mail goes to {settings.EMAIL_BACKEND}"


def push_line() -> str:
    """Where the site's push notifications go."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")
    from django.conf import settings

    if settings.PUSH_SENDER == "logging":
        where = settings.PUSH_LOG_FILE or "the worker's log"
        return f"Push is not sent: each notification is logged ({where})"
    if settings.PUSH_SENDER == "off":
        return "Push notifications are off"
    return "Push goes out to the browsers' push services"


def box(lines: list[str]) -> str:
    width = max(len(line) for line in lines)
    rule = "─" * (width + 2)
    body = [f"│ {line.ljust(width)} │" for line in lines]
    return "\n".join([f"┌{rule}┐", *body, f"└{rule}┘"])


def main() -> int:
    host, port = address()
    deadline = time.monotonic() + 120
    while not answers(host, port) and time.monotonic() < deadline:
        time.sleep(0.5)
    while not worker_ready() and time.monotonic() < deadline:
        time.sleep(0.5)
    url = site_url()
    lines = [
        f"VIPGAME is running on {url}",
        f"Admin: {url}admin/",
        mail_line(),
        push_line(),
        "",
        *logins(),
        "",
        "Ctrl-C stops everything.",
    ]
    print(box(lines), flush=True)  # noqa: T201
    signal.sigwait({signal.SIGINT, signal.SIGTERM})
    return 0


if __name__ == "__main__":
    sys.exit(main())
