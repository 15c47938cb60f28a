"""Fail closed: with DEBUG off, refuse the development stand-ins (SQLite, the
embedded Redis, a mail backend that sends nothing). ``manage.py`` commands run
these as system checks; Daphne (vipgame/asgi.py) and Celery (vipgame/celery.py)
refuse to start."""

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


#: Backends that send nothing: they print, store or drop the mail.
DEVELOPMENT_MAIL = {
    "django.core.mail.backends.console.EmailBackend",
    "django.core.mail.backends.filebased.EmailBackend",
    "django.core.mail.backends.locmem.EmailBackend",
    "django.core.mail.backends.dummy.EmailBackend",
}


@register()
def production_mail(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Reset and verification mails must leave the machine: a development
    backend in production would write every reset link to a log or a file."""
    if settings.DEBUG:
        return []
    errors = []
    if settings.EMAIL_BACKEND in DEVELOPMENT_MAIL:
        errors.append(
            Error(
                f"DEBUG is off but EMAIL_BACKEND is {settings.EMAIL_BACKEND}, which sends "
                "nothing (it prints, stores or drops the mail, reset links included).",
                hint="Unset EMAIL_BACKEND (SMTP) and set EMAIL_HOST. See docs/operations.md.",
                id="vipgame.E003",
            )
        )
    elif settings.EMAIL_BACKEND.endswith("smtp.EmailBackend") and not settings.EMAIL_HOST:
        errors.append(
            Error(
                "DEBUG is off but EMAIL_HOST is not set: password reset and address "
                "verification mails need an SMTP server.",
                hint=(
                    "Set EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, "
                    'EMAIL_USE_TLS. See docs/operations.md, "Mail".'
                ),
                id="vipgame.E003",
            )
        )
    sender = settings.DEFAULT_FROM_EMAIL
    if "@" not in sender or sender.rstrip("> ").endswith("@localhost"):
        errors.append(
            Error(
                f"DEBUG is off but DEFAULT_FROM_EMAIL is {sender!r}: mail needs a sender "
                "address of the site's domain.",
                hint="Set DEFAULT_FROM_EMAIL, e.g. VIPGAME <noreply@cards.example.com>.",
                id="vipgame.E004",
            )
        )
    return errors


@register()
def production_push(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Web Push on (``PUSH_SENDER=webpush``, production's default) needs the
    server's VAPID pair: without it no push service would take a notice."""
    if settings.DEBUG or settings.PUSH_SENDER != "webpush":
        return []
    from push.keys import check_pair

    problem = check_pair(settings.PUSH_VAPID_PUBLIC_KEY, settings.PUSH_VAPID_PRIVATE_KEY)
    if problem is None:
        return []
    return [
        Error(
            f"DEBUG is off and PUSH_SENDER is webpush but {problem}.",
            hint=(
                "Make a pair with `python manage.py push_keys` and set PUSH_VAPID_PUBLIC_KEY, "
                'PUSH_VAPID_PRIVATE_KEY and PUSH_VAPID_SUBJECT (docs/operations.md "Push"), '
                "or set PUSH_SENDER=off."
            ),
            id="vipgame.E005",
        )
    ]


def refuse_to_start() -> None:
    """For server processes, which do not run the system checks themselves."""
    errors = production_services() + production_mail() + production_push()
    if errors:
        raise ImproperlyConfigured("\n".join(f"{e.id}: {e.msg}" for e in errors))
