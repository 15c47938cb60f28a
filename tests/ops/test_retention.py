"""Retention: expired sessions (browsers' and devices'), old django-axes logs
and old sightings go; hands, events and the ledger stay."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings as django_settings
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts.models import AccessToken, DeviceSession, UsedRefresh
from accounts.sessions import session_start
from games import services
from games.models import Hand, HandEvent
from moderation.models import Sighting
from moderation.services import sighting_record
from vipgame.ops import retention
from vipgame.ops.tasks import clean_up
from wallet.models import LedgerEntry, LedgerTransaction

from ..seeds import ORDINARY
from ..services.driver import play_until_finished

pytestmark = pytest.mark.django_db


def _axes_rows(age_days, name=""):
    when = timezone.now() - timedelta(days=age_days)
    for model, extra in (
        (AccessLog, {}),
        (AccessFailureLog, {"locked_out": False}),
        (AccessAttempt, {"get_data": "", "post_data": "", "failures_since_start": 1}),
    ):
        row = model.objects.create(
            username=name or f"u{age_days}", ip_address="198.51.100.1", user_agent="t",
            path_info="/", **extra,
        )  # fmt: skip
        model.objects.filter(pk=row.pk).update(attempt_time=when)


def _session(expires_in):
    store = SessionStore()
    store["k"] = 1
    store.create()
    Session.objects.filter(pk=store.session_key).update(
        expire_date=timezone.now() + timedelta(seconds=expires_in)
    )
    return store.session_key


def test_clean_up_deletes_what_is_old_and_keeps_the_rest(tables, dealer, make_user, settings):
    settings.RETENTION_AXES_DAYS = 30
    settings.RETENTION_SIGHTINGS_DAYS = 60
    settings.RETENTION_BATCH = 2  # several batches
    lan, minh = make_user(), make_user()
    expired = [_session(-60) for _ in range(3)]
    live = _session(3600)
    # Device sessions: one whose refresh token expired and access token too
    # (gone), one whose refresh token expired but whose access token still
    # runs (kept until it stops), one live (kept).
    now_ = timezone.now()
    dead_device, draining, live_device = (session_start(user=lan).session for _ in range(3))
    DeviceSession.objects.filter(pk__in=[dead_device.pk, draining.pk]).update(
        refresh_expiry=timezone.now() - timedelta(seconds=1)
    )
    AccessToken.objects.filter(session=dead_device).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    # Traded refresh tokens: one longer ago than a refresh token lives (gone).
    settings.REFRESH_TOKEN_DAYS = 30
    for days in (31, 29):
        UsedRefresh.objects.create(
            digest=f"d{days}", session=live_device, used_at=now_ - timedelta(days=days)
        )
    _axes_rows(31)
    _axes_rows(31, "another")
    _axes_rows(29)
    now = timezone.now()
    sighting_record(
        user=lan, ip="198.51.100.2", device="old-device-0001", at=now - timedelta(days=61)
    )
    sighting_record(
        user=lan, ip="198.51.100.3", device="new-device-0001", at=now - timedelta(days=59)
    )
    sighting_record(user=minh, ip="198.51.100.2", device="", at=now)
    # A played and settled hand, with its events and ledger transaction (a
    # deck with no tới trắng: the same hand whatever the table's id).
    dealer.stack(*ORDINARY)
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    play_until_finished(tables, table)
    tables.drain()
    Hand.objects.update(started_at=now - timedelta(days=400), ended_at=now - timedelta(days=400))
    kept = (Hand.objects.count(), HandEvent.objects.count(), LedgerTransaction.objects.count(),
            LedgerEntry.objects.count())  # fmt: skip
    assert kept[0] == 1
    assert kept[1] > 0
    assert kept[2] >= 3  # two sign-up grants and the settlement

    result = clean_up.apply().get()

    assert result == {"sessions": 3, "devices": 1, "used_refresh": 1, "axes": 6, "sightings": 1}
    assert list(UsedRefresh.objects.values_list("digest", flat=True)) == ["d29"]
    assert set(DeviceSession.objects.values_list("pk", flat=True)) == {
        draining.pk,
        live_device.pk,
    }
    assert not Session.objects.filter(pk__in=expired).exists()
    assert Session.objects.filter(pk=live).exists()
    for model in (AccessLog, AccessFailureLog, AccessAttempt):
        assert list(model.objects.values_list("username", flat=True)) == ["u29"]
    assert set(Sighting.objects.values_list("device", flat=True)) == {"new-device-0001", ""}
    assert kept == (Hand.objects.count(), HandEvent.objects.count(),
                    LedgerTransaction.objects.count(), LedgerEntry.objects.count())  # fmt: skip
    # Nothing left to do: a second run deletes nothing.
    assert retention.run() == {
        "sessions": 0,
        "devices": 0,
        "used_refresh": 0,
        "axes": 0,
        "sightings": 0,
    }


def test_the_clean_up_is_scheduled_and_expires_before_its_next_run():
    entry = django_settings.CELERY_BEAT_SCHEDULE["ops-retention"]
    assert entry["task"] == clean_up.name
    assert 0 < entry["options"]["expires"] < entry["schedule"]


def test_sightings_are_kept_longer_than_the_integrity_report_reads():
    assert django_settings.RETENTION_SIGHTINGS_DAYS > django_settings.INTEGRITY_DAYS
