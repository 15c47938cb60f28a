"""Deleting what is not kept forever: expired sessions (browsers' and
devices'), old django-axes logs and old moderation sightings. Hands, hand
events and the ledger are kept.

Rows go in batches of ``RETENTION_BATCH`` (short transactions, no long locks).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


def _delete_in_batches(queryset: models.QuerySet[Any], batch: int) -> int:
    deleted = 0
    model = queryset.model
    while True:
        ids = list(queryset.values_list("pk", flat=True)[:batch])
        if not ids:
            return deleted
        model._default_manager.filter(pk__in=ids).delete()
        deleted += len(ids)
        if len(ids) < batch:
            return deleted


def expired_sessions(batch: int) -> int:
    from django.contrib.sessions.models import Session

    if settings.SESSION_ENGINE not in (
        "django.contrib.sessions.backends.db",
        "django.contrib.sessions.backends.cached_db",
    ):
        return 0  # the cache and signed-cookie engines expire by themselves
    return _delete_in_batches(Session.objects.filter(expire_date__lt=timezone.now()), batch)


def expired_device_sessions(batch: int) -> int:
    """API device sessions none of whose tokens can be used any more (their
    refresh token expired, no unexpired access token)."""
    from accounts.models import DeviceSession

    now = timezone.now()
    dead = DeviceSession.objects.filter(refresh_expiry__lte=now).exclude(
        access_tokens__expiry__gt=now
    )
    return _delete_in_batches(dead, batch)


def old_used_refresh_tokens(batch: int) -> int:
    """The digests of refresh tokens traded longer ago than a refresh token
    lives: shown again, they would be refused as expired anyway, so reuse
    detection no longer needs them."""
    from accounts.models import UsedRefresh

    limit = timezone.now() - timedelta(days=settings.REFRESH_TOKEN_DAYS)
    return _delete_in_batches(UsedRefresh.objects.filter(used_at__lt=limit), batch)


def old_axes_logs(days: int, batch: int) -> int:
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    limit = timezone.now() - timedelta(days=days)
    return sum(
        _delete_in_batches(model.objects.filter(attempt_time__lt=limit), batch)
        for model in (AccessLog, AccessFailureLog, AccessAttempt)
    )


def old_sightings(days: int, batch: int) -> int:
    from moderation.models import Sighting

    limit = timezone.now() - timedelta(days=days)
    return _delete_in_batches(Sighting.objects.filter(last_seen__lt=limit), batch)


def run() -> dict[str, int]:
    batch = settings.RETENTION_BATCH
    return {
        "sessions": expired_sessions(batch),
        "devices": expired_device_sessions(batch),
        "used_refresh": old_used_refresh_tokens(batch),
        "axes": old_axes_logs(settings.RETENTION_AXES_DAYS, batch),
        "sightings": old_sightings(settings.RETENTION_SIGHTINGS_DAYS, batch),
    }
