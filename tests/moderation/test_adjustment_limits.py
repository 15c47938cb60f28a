"""Issue 34, S-01: one staff member cannot mint alone. No adjustment of one's
own account or of an account linked to it (shared address or device), and the
approval limit counts what a staff member posted alone in a rolling window, per
player and in all; every adjustment is in one list in the admin."""

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.urls import reverse
from django.utils import translation

from moderation import services as moderation
from moderation.errors import CannotActOnLinked, CannotApproveOwn, CannotModerateSelf
from moderation.models import AuditEntry
from wallet import services as wallet
from wallet.models import Account, Adjustment

from ..wallet.helpers import assert_ledger_consistent
from .test_adjustments import adjust_url, everything, staff_with

pytestmark = pytest.mark.django_db
MODERATOR = ("adjust_balance", "view_account", "view_adjustment")
GRANT = 10_000  # every account's sign-up grant


def balance(user):
    return Account.objects.get(user=user, kind="user").balance


def adjust(by, user, amount):
    return moderation.balance_adjust(
        by=by, user=user, amount=amount, reason="bù lỗi", key=moderation.adjust_key()
    )


def statuses():
    return list(Adjustment.objects.order_by("pk").values_list("status", flat=True))


@pytest.fixture
def limits(settings):
    settings.ADJUST_APPROVAL_LIMIT = 100_000
    settings.ADJUST_APPROVAL_STAFF_LIMIT = 300_000
    settings.ADJUST_APPROVAL_WINDOW_HOURS = 24
    return settings


def test_the_reviewed_attack_through_the_admin_form_mints_no_more_than_one_limit(
    make_user, client, limits
):
    # Given a moderator (not a superuser) with the adjust permission, and an accomplice.
    mod = staff_with(make_user, *MODERATOR)
    assert not mod.is_superuser
    accomplice = make_user()
    client.force_login(mod)

    # When he posts the form ten times for 100,000 to himself, as the browser does
    # (open the form: the server puts the key in the session; then send it)...
    before = everything()
    refused = []
    for _ in range(10):
        client.get(adjust_url(mod))
        page = client.post(adjust_url(mod), {"amount": "100000", "reason": "thưởng"})
        refused.append((page.status_code, page.context["form"].non_field_errors()))

    # ... every one is refused, and nothing is posted or audited.
    assert refused == [(200, ["Bạn không thể làm việc này với chính tài khoản của mình."])] * 10
    assert everything() == before
    assert balance(mod) == GRANT

    # When he posts ten times 100,000 to the accomplice...
    sent = []
    for _ in range(10):
        client.get(adjust_url(accomplice))
        sent.append(
            client.post(adjust_url(accomplice), {"amount": "100000", "reason": "thưởng"}).url
        )

    # ... the first is posted, the nine others wait for a second staff member.
    posted, waiting = (
        reverse("admin:wallet_account_changelist"),
        reverse("admin:wallet_adjustment_changelist"),
    )
    assert sent == [posted] + [waiting] * 9
    assert balance(accomplice) == GRANT + 100_000
    assert balance(mod) == GRANT
    assert statuses() == ["posted"] + ["pending"] * 9
    assert (
        list(AuditEntry.objects.order_by("pk").values_list("action", flat=True))
        == ["balance_adjust"] + ["adjust_request"] * 9
    )
    request = AuditEntry.objects.filter(action="adjust_request").earliest("pk")
    assert (request.after["posted_alone_to_player"], request.after["posted_alone_in_all"]) == (
        100_000,
        100_000,
    )

    # And all ten are in the one list of adjustments, the posted one too.
    listed = client.get(waiting + "?status__exact=posted")
    assert [a.status for a in listed.context["cl"].result_list] == ["posted"]
    assert client.get(waiting).context["cl"].result_count == 10


def test_the_list_of_adjustments_needs_staff_and_the_view_permission(make_user, client, limits):
    mod = staff_with(make_user, *MODERATOR)
    adjust(mod, make_user(), 5)
    blind = staff_with(make_user, "adjust_balance", "view_account")
    player = make_user()
    player.user_permissions.add(*mod.user_permissions.all())

    pages = []
    for who in (mod, blind, player):
        client.force_login(who)
        pages.append(client.get(reverse("admin:wallet_adjustment_changelist")).status_code)

    assert pages == [200, 403, 302]  # a non-staff account is sent to the log-in page


def sighting(user, ip, device=""):
    moderation.sighting_record(user=user, ip=ip, device=device)


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [(("10.0.0.7", "d1"), ("10.0.0.7", "d2")), (("10.0.0.7", "d1"), ("10.9.9.9", "d1"))],
    ids=["same address", "same device"],
)
def test_a_linked_account_is_neither_adjusted_nor_approved_nor_rejected(
    make_user, limits, mine, theirs
):
    # Given a moderator seen from an address or device the accomplice also used,
    # and a big adjustment for the accomplice asked by another staff member.
    mod = staff_with(make_user, *MODERATOR)
    other = staff_with(make_user, *MODERATOR)
    accomplice = make_user()
    sighting(mod, *mine)
    sighting(accomplice, *theirs)
    pending = adjust(other, accomplice, 500_000)
    before = everything()

    # When the moderator adjusts the accomplice, approves or rejects for them: refused.
    with pytest.raises(CannotActOnLinked) as adjusted:
        adjust(mod, accomplice, 1_000)
    with pytest.raises(CannotActOnLinked):
        moderation.adjustment_approve(by=mod, adjustment_id=pending.pk, reason="ok")
    with pytest.raises(CannotActOnLinked):
        moderation.adjustment_reject(by=mod, adjustment_id=pending.pk, reason="no")

    # Then nothing changed; the refusal has its code and speaks both languages.
    assert everything() == before
    assert adjusted.value.code == "linked_account"
    assert adjusted.value.message == (
        "Tài khoản này từng vào từ một địa chỉ hay thiết bị mà bạn cũng dùng: "
        "phải để một nhân viên khác xử lý."
    )
    with translation.override("en"):
        assert adjusted.value.message == (
            "This account was seen from an address or device you use: "
            "another staff member must deal with it."
        )


def test_an_empty_device_cookie_or_another_address_links_nobody(make_user, limits):
    mod = staff_with(make_user, *MODERATOR)
    player = make_user()
    sighting(mod, "10.0.0.7")
    sighting(player, "10.0.0.8")

    assert not isinstance(adjust(mod, player, 1_000), Adjustment)
    assert balance(player) == GRANT + 1_000


def test_nobody_approves_or_rejects_an_adjustment_of_their_own_account(make_user, limits):
    asker = staff_with(make_user, *MODERATOR)
    mod = staff_with(make_user, *MODERATOR)
    for_mod = adjust(asker, mod, 500_000)
    own = adjust(asker, make_user(), 500_000)
    boss = make_user(is_staff=True)
    before = everything()

    with pytest.raises(CannotModerateSelf):
        moderation.adjustment_approve(by=mod, adjustment_id=for_mod.pk, reason="ok")
    with pytest.raises(CannotModerateSelf):
        moderation.adjustment_reject(by=mod, adjustment_id=for_mod.pk, reason="no")
    with pytest.raises(CannotApproveOwn):
        moderation.adjustment_reject(by=asker, adjustment_id=own.pk, reason="no")
    # Nor does a superuser adjust their own account.
    with pytest.raises(CannotModerateSelf):
        adjust(boss, boss, 1)

    assert everything() == before
    assert balance(mod) == GRANT


def test_the_limit_counts_what_one_staff_member_posted_alone_in_the_window(make_user, limits):
    mod = staff_with(make_user, *MODERATOR)
    lan, minh, hoa, tuan = (make_user() for _ in range(4))

    # Per player: 60,000 then 40,000 (either way counts) reach 100,000; 1 more waits.
    results = [adjust(mod, lan, 60_000), adjust(mod, lan, -40_000), adjust(mod, lan, 1)]
    # In all: 100,000 + 50,000 + 100,000 = 250,000; 60,000 more would be 310,000.
    results += [adjust(mod, minh, -5_000), adjust(mod, minh, 45_000)]
    results += [adjust(mod, hoa, 100_000), adjust(mod, tuan, 60_000), adjust(mod, tuan, 50_000)]

    assert [isinstance(r, Adjustment) for r in results] == [
        False, False, True, False, False, False, True, False,
    ]  # fmt: skip
    assert [balance(u) for u in (lan, minh, hoa, tuan)] == [
        GRANT + 20_000,
        GRANT + 40_000,
        GRANT + 100_000,
        GRANT + 50_000,
    ]

    # An approved adjustment had a second pair of eyes: it does not count.
    other = staff_with(make_user, *MODERATOR)
    moderation.adjustment_approve(by=other, adjustment_id=results[2].pk, reason="đúng")
    assert isinstance(adjust(mod, tuan, 1), Adjustment)  # still 300,000 in all

    # 24 hours after the first 60,000 to Lan, it leaves both sums.
    first = Adjustment.objects.get(transaction=results[0].transaction)
    Adjustment.objects.filter(pk=first.pk).update(
        requested_at=first.requested_at - timedelta(hours=24, seconds=1)
    )
    assert not isinstance(adjust(mod, lan, 60_000), Adjustment)
    assert isinstance(adjust(mod, lan, 1), Adjustment)
    # Another staff member has sums of their own.
    assert not isinstance(adjust(other, lan, 100_000), Adjustment)
    assert balance(lan) == GRANT + 20_000 + 1 + 60_000 + 100_000


def test_the_same_key_twice_posts_and_lists_once(make_user, limits):
    mod = staff_with(make_user, *MODERATOR)
    lan = make_user()
    key = moderation.adjust_key()

    first = moderation.balance_adjust(by=mod, user=lan, amount=70_000, reason="x", key=key)
    again = moderation.balance_adjust(by=mod, user=lan, amount=70_000, reason="x", key=key)

    assert isinstance(first, wallet.PostResult)
    assert isinstance(again, wallet.PostResult)
    assert (first.created, again.created) == (True, False)
    assert again.transaction == first.transaction
    assert statuses() == ["posted"]
    assert AuditEntry.objects.count() == 1
    assert balance(lan) == GRANT + 70_000


def test_past_direct_posts_are_listed_by_the_migration(make_user, limits):
    """The migration gives each adjustment posted before it (a ledger
    transaction only) its row in the list."""
    from importlib import import_module

    from django.apps import apps

    mod = staff_with(make_user, *MODERATOR)
    lan = make_user()
    old = wallet.admin_adjust(user=lan, amount=-300, reason="cũ", staff_user=mod, key="adjust:old")
    migration = import_module("wallet.migrations.0004_adjustments_posted_at_once")

    migration.list_past_direct_posts(apps, None)
    migration.list_past_direct_posts(apps, None)

    row = Adjustment.objects.get()
    assert (row.status, row.amount, row.requested_by, row.transaction, row.reason) == (
        "posted",
        -300,
        mod,
        old.transaction,
        "cũ",
    )
    assert row.requested_at == old.transaction.created_at


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("same_player", [True, False], ids=["one player", "two players"])
def test_adjustments_sent_at_once_cannot_both_slip_under_the_limit(
    make_user, settings, monkeypatch, same_player
):
    # Given limits of 100,000 per player and in all, and two adjustments of 60,000
    # sent at the same moment by one moderator, each slow to post.
    assert connection.vendor == "postgresql"
    settings.ADJUST_APPROVAL_LIMIT = 100_000
    settings.ADJUST_APPROVAL_STAFF_LIMIT = 100_000
    mod = staff_with(make_user, *MODERATOR)
    lan = make_user()
    players = [lan, lan] if same_player else [lan, make_user()]
    real_post = wallet.admin_adjust

    def slow_post(**kwargs):
        time.sleep(0.5)
        return real_post(**kwargs)

    monkeypatch.setattr(wallet, "admin_adjust", slow_post)
    start = threading.Barrier(2)
    results, errors = [], []

    def send(player):
        try:
            start.wait()
            results.append(adjust(mod, player, 60_000))
        except Exception as exc:  # any error fails the test
            errors.append(exc)
        finally:
            connections.close_all()

    # When both run at once...
    threads = [threading.Thread(target=send, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    # ... then one is posted and the other waits for approval.
    assert errors == []
    assert sorted(isinstance(r, Adjustment) for r in results) == [False, True]
    assert sorted(statuses()) == ["pending", "posted"]
    assert sum(balance(p) for p in set(players)) == GRANT * len(set(players)) + 60_000
    assert_ledger_consistent()
