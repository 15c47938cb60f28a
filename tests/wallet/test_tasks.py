"""The wallet's periodic task: one hold that cannot be released never stops
the others (issue 13: a bad item is handled on its own, logged, the rest go on)."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from wallet import services, tasks
from wallet.models import Hold, LedgerTransaction

from .helpers import assert_ledger_consistent, wallet_of

pytestmark = pytest.mark.django_db


def test_a_hold_that_fails_to_release_does_not_stop_the_others(make_user, caplog):
    lan, minh, hoa = make_user(), make_user(), make_user()
    past, later = timezone.now() - timedelta(minutes=1), timezone.now() + timedelta(hours=1)

    def hold(user, amount, key, expires_at=past):
        return services.hold_create(
            account=wallet_of(user), amount=amount, key=key, expires_at=expires_at
        )

    broken = hold(minh, 500, "broken")  # the first one the task meets
    hold(lan, 200, "lan-due")
    hold(minh, 300, "minh-due")
    hold(hoa, 400, "hoa-due")
    hold(hoa, 700, "hoa-later", expires_at=later)
    # The planted failure: a hold larger than what its account holds, so its
    # release would take the account's held chips below zero (refused by the
    # database).
    Hold.objects.filter(pk=broken.pk).update(amount=5_000)
    transactions = LedgerTransaction.objects.count()

    with caplog.at_level(logging.ERROR, logger="wallet.services"):
        released = tasks.expire_holds()

    assert released == 3
    statuses = dict(Hold.objects.values_list("key", "status"))
    assert statuses == {
        "broken": "pending",
        "lan-due": "expired",
        "minh-due": "expired",
        "hoa-due": "expired",
        "hoa-later": "pending",
    }
    balances = {u.pk: (a.balance, a.held) for u in (lan, minh, hoa) for a in [wallet_of(u)]}
    assert balances == {lan.pk: (10_000, 0), minh.pk: (10_000, 500), hoa.pk: (10_000, 700)}
    assert LedgerTransaction.objects.count() == transactions  # a release moves no chip
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in failures] == [f"expiring hold {broken.pk} failed"]
    assert failures[0].exc_info is not None

    assert tasks.expire_holds() == 0  # the broken one fails alone again
    assert Hold.objects.get(pk=broken.pk).status == Hold.Status.PENDING
    assert wallet_of(minh).held == 500
    assert_ledger_consistent()
