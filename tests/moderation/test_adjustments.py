"""Issue 13 item 5: balance adjustments need their own permission, take their
idempotency key from the server only, and above ADJUST_APPROVAL_LIMIT wait for
a second staff member; every step is in the audit log."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from kernel.errors import PermissionDenied
from moderation import services as moderation
from moderation.errors import BadAdjustKey, CannotApproveOwn
from moderation.models import AuditEntry
from wallet import services as wallet
from wallet.models import Account, Adjustment, LedgerTransaction

from ..wallet.helpers import snapshot

pytestmark = pytest.mark.django_db


def staff_with(make_user, *perms):
    user = make_user()
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    for codename in perms:
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return type(user).objects.get(pk=user.pk)  # fresh permission cache


def adjust_url(user):
    return reverse(
        "admin:wallet_account_adjust", args=[Account.objects.get(user=user, kind="user").pk]
    )


def everything():
    return snapshot(), AuditEntry.objects.count(), Adjustment.objects.count()


def test_view_only_staff_get_403_and_mint_nothing(make_user, client):
    viewer, lan = staff_with(make_user, "view_account", "view_user"), make_user()
    client.force_login(viewer)
    before = everything()

    page = client.get(adjust_url(lan))
    post = client.post(adjust_url(lan), {"amount": "1000000", "reason": "gift"})
    changelist = client.get(reverse("admin:wallet_account_changelist"))

    assert (page.status_code, post.status_code) == (403, 403)
    assert changelist.status_code == 200
    assert adjust_url(lan) not in changelist.content.decode()
    assert everything() == before
    with pytest.raises(PermissionDenied):
        moderation.balance_adjust(
            by=viewer, user=lan, amount=1_000_000, reason="gift", key=moderation.adjust_key()
        )
    assert everything() == before


def test_a_form_supplied_key_is_ignored_and_cannot_claim_the_daily_bonus(make_user, client):
    staff, lan = staff_with(make_user, "adjust_balance", "view_account"), make_user()
    client.force_login(staff)
    bonus_key = f"bonus:{lan.pk}:{wallet.bonus_day()}"

    client.get(adjust_url(lan))
    forged = client.post(
        adjust_url(lan), {"amount": "1", "reason": "typo", "key": bonus_key}, follow=True
    )
    client.get(adjust_url(lan))
    long = client.post(adjust_url(lan), {"amount": "2", "reason": "typo", "key": "k" * 300})

    assert forged.status_code == 200
    assert long.status_code == 302
    keys = list(
        LedgerTransaction.objects.filter(kind="adjustment").values_list(
            "idempotency_key", flat=True
        )
    )
    assert len(keys) == 2
    assert all(k.startswith("adjust:") and len(k) == 39 for k in keys)
    assert not LedgerTransaction.objects.filter(idempotency_key=bonus_key).exists()
    assert wallet.daily_bonus_claim(user=lan).created  # the bonus is still the player's
    # The service takes no key it did not make.
    before = everything()
    for key in (bonus_key, "adjust:" + "x" * 300, "adjust:1", f"signup:{lan.pk}"):
        with pytest.raises(BadAdjustKey):
            moderation.balance_adjust(by=staff, user=lan, amount=5, reason="x", key=key)
    assert everything() == before


def test_over_the_limit_needs_a_second_staff_member(make_user, client, settings):
    settings.ADJUST_APPROVAL_LIMIT = 100_000
    asker = staff_with(make_user, "adjust_balance", "view_account", "view_adjustment")
    approver = staff_with(make_user, "adjust_balance", "view_account", "view_adjustment")
    viewer = staff_with(make_user, "view_account", "view_adjustment")
    lan = make_user()
    client.force_login(asker)

    client.get(adjust_url(lan))
    asked = client.post(adjust_url(lan), {"amount": "1000000", "reason": "tournament prize"})

    assert asked.status_code == 302
    adjustment = Adjustment.objects.get()
    assert (adjustment.status, adjustment.amount, adjustment.requested_by) == (
        "pending",
        1_000_000,
        asker,
    )
    assert Account.objects.get(user=lan, kind="user").balance == 10_000
    assert not LedgerTransaction.objects.filter(kind="adjustment").exists()
    assert AuditEntry.objects.get().action == "adjust_request"

    # Self-approval is refused, in the service and in the admin; so is a viewer.
    before = everything()
    with pytest.raises(CannotApproveOwn):
        moderation.adjustment_approve(by=asker, adjustment_id=adjustment.pk, reason="ok")
    changelist = reverse("admin:wallet_adjustment_changelist")
    client.post(
        changelist,
        {"action": "approve", "_selected_action": [adjustment.pk], "apply": "1", "reason": "ok"},
    )
    with pytest.raises(PermissionDenied):
        moderation.adjustment_approve(by=viewer, adjustment_id=adjustment.pk, reason="ok")
    assert everything() == before

    # A second staff member approves it in the admin: posted once, audited.
    client.force_login(approver)
    for _ in range(2):
        client.post(
            changelist,
            {
                "action": "approve",
                "_selected_action": [adjustment.pk],
                "apply": "1",
                "reason": "checked the prize list",
            },
        )

    adjustment.refresh_from_db()
    assert (adjustment.status, adjustment.decided_by) == ("approved", approver)
    assert Account.objects.get(user=lan, kind="user").balance == 1_010_000
    txn = LedgerTransaction.objects.get(kind="adjustment")
    assert txn.idempotency_key == adjustment.key
    approval = AuditEntry.objects.get(action="adjust_approve")
    assert approval.actor == approver
    assert approval.after["requested_by"] == asker.username
    assert approval.after["approval_reason"] == "checked the prize list"


def test_a_rejected_adjustment_posts_nothing(make_user, settings):
    settings.ADJUST_APPROVAL_LIMIT = 100
    asker = staff_with(make_user, "adjust_balance")
    other = staff_with(make_user, "adjust_balance")
    lan = make_user()

    pending = moderation.balance_adjust(
        by=asker, user=lan, amount=-5_000, reason="chargeback", key=moderation.adjust_key()
    )
    assert isinstance(pending, Adjustment)
    small = moderation.balance_adjust(
        by=asker, user=lan, amount=-100, reason="typo", key=moderation.adjust_key()
    )
    assert not isinstance(small, Adjustment)  # within the limit: posted at once
    moderation.adjustment_reject(by=other, adjustment_id=pending.pk, reason="not proven")

    pending.refresh_from_db()
    assert pending.status == "rejected"
    assert Account.objects.get(user=lan, kind="user").balance == 9_900
    assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == [
        "adjust_request",
        "balance_adjust",
        "adjust_reject",
    ]
