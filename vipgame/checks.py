"""Fail closed: with DEBUG off, refuse the development stand-ins (SQLite, the
embedded Redis). ``manage.py`` commands run this as a system check; Daphne
(vipgame/asgi.py) and Celery (vipgame/celery.py) refuse to start."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured


@register()
def production_services(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    if settings.DEBUG:
        return []
    errors = []
    if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        errors.append(
            Error(
                "DEBUG is off but the database is SQLite: set DATABASE_URL to the "
                "PostgreSQL database (postgres://user:password@host:5432/name).",
                hint="SQLite is for `make run` only (it sets DEBUG=1). See docs/operations.md.",
                id="vipgame.E001",
            )
        )
    if not settings.REDIS_URL_SET:
        errors.append(
            Error(
                "DEBUG is off but REDIS_URL is not set: production needs a Redis server "
                "(redis://host:6379/0), not the embedded one of `make run`.",
                hint="Set REDIS_URL. See docs/operations.md.",
                id="vipgame.E002",
            )
        )
    return errors


def refuse_to_start() -> None:
    """For server processes, which do not run the system checks themselves."""
    errors = production_services()
    if errors:
        raise ImproperlyConfigured("\n".join(f"{e.id}: {e.msg}" for e in errors))
