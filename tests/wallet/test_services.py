from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.errors import PermissionDenied
from wallet import services
from wallet.errors import (
    AccountClosed,
    BonusAlreadyClaimed,
    HoldNotPending,
    IdempotencyConflict,
    InsufficientChips,
    InvalidAmount,
    ReasonRequired,
    SeatOccupied,
    UnbalancedTransaction,
    UnknownAccount,
)
from wallet.models import Account, Hold, LedgerTransaction

from .helpers import assert_ledger_consistent, snapshot, wallet_of

pytestmark = pytest.mark.django_db


def test_sign_up_grants_ten_thousand_chips_from_issuance(make_user):
    user = make_user()

    account = wallet_of(user)
    assert account.balance == 10_000
    assert services.system_account(Account.Kind.ISSUANCE).balance == -10_000
    txn = LedgerTransaction.objects.get(idempotency_key=f"signup:{user.pk}")
    assert txn.kind == LedgerTransaction.Kind.SIGNUP_GRANT
    assert [(e.amount, e.balance_after) for e in txn.entries.order_by("amount")] == [
        (-10_000, -10_000),
        (10_000, 10_000),
    ]
    assert_ledger_consistent()


def test_transfer_moves_chips_and_records_balances_after(make_user):
    lan, minh = make_user(), make_user()

    result = services.transfer(
        source=wallet_of(lan), destination=wallet_of(minh), amount=1_500, key="t1"
    )

    assert result.created is True
    assert wallet_of(lan).balance == 8_500
    assert wallet_of(minh).balance == 11_500
    entries = {e.account_id: (e.amount, e.balance_after) for e in result.transaction.entries.all()}
    assert entries == {wallet_of(lan).pk: (-1_500, 8_500), wallet_of(minh).pk: (1_500, 11_500)}


def test_same_key_same_payload_returns_the_first_transaction(make_user):
    lan, minh = make_user(), make_user()
    first = services.transfer(
        source=wallet_of(lan), destination=wallet_of(minh), amount=100, key="once"
    )
    before = snapshot()

    again = services.transfer(
        source=wallet_of(lan), destination=wallet_of(minh), amount=100, key="once"
    )

    assert again.created is False
    assert again.transaction.pk == first.transaction.pk
    assert snapshot() == before


def test_same_key_different_payload_is_refused(make_user):
    lan, minh = make_user(), make_user()
    services.transfer(source=wallet_of(lan), destination=wallet_of(minh), amount=100, key="k")
    before = snapshot()

    with pytest.raises(IdempotencyConflict) as err:
        services.transfer(source=wallet_of(lan), destination=wallet_of(minh), amount=101, key="k")

    assert err.value.code == "idempotency_conflict"
    assert snapshot() == before


@pytest.mark.parametrize("amount", [0, -5, 2.5, True, "10"])
def test_bad_amounts_are_refused(make_user, amount):
    lan, minh = make_user(), make_user()
    before = snapshot()

    with pytest.raises(InvalidAmount):
        services.transfer(
            source=wallet_of(lan), destination=wallet_of(minh), amount=amount, key="bad"
        )

    assert snapshot() == before


def test_overdraw_is_refused_and_changes_nothing(make_user):
    lan, minh = make_user(), make_user()
    before = snapshot()

    with pytest.raises(InsufficientChips) as err:
        services.transfer(
            source=wallet_of(lan), destination=wallet_of(minh), amount=10_001, key="over"
        )

    assert err.value.code == "insufficient_chips"
    assert err.value.params == {"needed": 10_001, "available": 10_000}
    assert snapshot() == before


def test_unbalanced_and_unknown_and_closed_accounts_are_refused(make_user):
    lan = make_user()
    account = wallet_of(lan)
    before = snapshot()

    with pytest.raises(UnbalancedTransaction):
        services.ledger_post(key="u", kind="transfer", postings=[(account, -5)])
    with pytest.raises(UnknownAccount):
        services.ledger_post(key="u", kind="transfer", postings=[(account, -5), (999_999, 5)])
    assert snapshot() == before

    closed = Account.objects.create(kind=Account.Kind.HOUSE, key="closed", is_closed=True)
    before = snapshot()
    with pytest.raises(AccountClosed):
        services.transfer(source=account, destination=closed, amount=5, key="c")
    assert snapshot() == before


def test_database_refuses_a_negative_balance_even_without_the_service(make_user):
    account = wallet_of(make_user())

    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.filter(pk=account.pk).update(balance=-1)


def test_daily_bonus_once_per_calendar_day_in_ho_chi_minh(make_user):
    user = make_user()
    evening = datetime(2026, 11, 22, 16, 59, tzinfo=UTC)  # 23:59 in Ho Chi Minh City
    midnight = evening + timedelta(minutes=1)  # 00:00 the next day there

    services.daily_bonus_claim(user=user, now=evening)
    before = snapshot()
    with pytest.raises(BonusAlreadyClaimed) as err:
        services.daily_bonus_claim(user=user, now=evening - timedelta(hours=10))
    assert err.value.code == "bonus_already_claimed"
    assert snapshot() == before

    services.daily_bonus_claim(user=user, now=midnight)
    assert wallet_of(user).balance == 14_000


def test_held_chips_cannot_be_spent_elsewhere(make_user):
    lan, minh = make_user(), make_user()
    services.hold_create(
        account=wallet_of(lan),
        amount=9_000,
        key="h",
        expires_at=timezone.now() + timedelta(hours=1),
    )
    before = snapshot()

    with pytest.raises(InsufficientChips) as err:
        services.transfer(source=wallet_of(lan), destination=wallet_of(minh), amount=1_001, key="x")

    assert err.value.params == {"needed": 1_001, "available": 1_000}
    assert snapshot() == before


def test_hold_create_refuses_more_than_available_and_is_idempotent(make_user):
    account = wallet_of(make_user())
    expiry = timezone.now() + timedelta(hours=1)
    hold = services.hold_create(account=account, amount=4_000, key="h1", expires_at=expiry)
    before = snapshot()

    assert services.hold_create(account=account, amount=4_000, key="h1", expires_at=expiry) == hold
    with pytest.raises(IdempotencyConflict):
        services.hold_create(account=account, amount=4_001, key="h1", expires_at=expiry)
    with pytest.raises(InsufficientChips):
        services.hold_create(account=account, amount=6_001, key="h2", expires_at=expiry)
    assert snapshot() == before


def test_hold_post_pays_part_and_releases_the_rest(make_user):
    lan, minh = make_user(), make_user()
    hold = services.hold_create(
        account=wallet_of(lan), amount=3_000, key="h", expires_at=timezone.now() + timedelta(1)
    )

    services.hold_post(hold=hold, destination=wallet_of(minh), amount=1_200)

    lan_account = wallet_of(lan)
    assert (lan_account.balance, lan_account.held) == (8_800, 0)
    assert wallet_of(minh).balance == 11_200
    assert Hold.objects.get(pk=hold.pk).status == Hold.Status.POSTED
    before = snapshot()
    with pytest.raises(HoldNotPending):
        services.hold_post(hold=hold, destination=wallet_of(minh))
    with pytest.raises(HoldNotPending):
        services.hold_void(hold=hold)
    assert snapshot() == before
    assert_ledger_consistent()


def test_hold_void_and_expiry_release_the_chips(make_user):
    account = wallet_of(make_user())
    now = timezone.now()
    voided = services.hold_create(
        account=account, amount=100, key="v", expires_at=now + timedelta(hours=1)
    )
    services.hold_create(account=account, amount=200, key="s", expires_at=now)
    fresh = services.hold_create(
        account=account, amount=300, key="f", expires_at=now + timedelta(hours=1)
    )

    services.hold_void(hold=voided)
    assert services.holds_expire(now=now + timedelta(seconds=1)) == 1

    assert wallet_of(account.user).held == 300
    statuses = dict(Hold.objects.values_list("key", "status"))
    assert statuses == {"v": "voided", "s": "expired", "f": "pending"}
    assert fresh.status == Hold.Status.PENDING


def test_seat_buy_in_and_cash_out(make_user):
    lan, minh = make_user(), make_user()

    seat = services.seat_buy_in(user=lan, seat_key="7:1", amount=2_000, key="buy:1")
    assert (seat.kind, seat.balance, seat.user_id) == (Account.Kind.SEAT, 2_000, lan.pk)
    assert wallet_of(lan).balance == 8_000

    before = snapshot()
    with pytest.raises(SeatOccupied):
        services.seat_buy_in(user=minh, seat_key="7:1", amount=500, key="buy:2")
    assert snapshot() == before

    assert services.seat_cash_out(seat_key="7:1", key="out:1") == 2_000
    assert wallet_of(lan).balance == 10_000
    seat = services.seat_buy_in(user=minh, seat_key="7:1", amount=500, key="buy:3")
    assert (seat.balance, seat.user_id) == (500, minh.pk)
    with pytest.raises(UnknownAccount):
        services.seat_cash_out(seat_key="nope", key="out:2")
    assert_ledger_consistent()


def test_admin_adjust_needs_staff_a_reason_and_a_real_amount(make_user):
    player, staff = make_user(), make_user(is_staff=True)
    before = snapshot()

    with pytest.raises(PermissionDenied):
        services.admin_adjust(user=player, amount=5, reason="x", staff_user=player, key="a1")
    with pytest.raises(ReasonRequired):
        services.admin_adjust(user=player, amount=5, reason="  ", staff_user=staff, key="a1")
    with pytest.raises(InvalidAmount):
        services.admin_adjust(user=player, amount=0, reason="x", staff_user=staff, key="a1")
    with pytest.raises(InsufficientChips):
        services.admin_adjust(user=player, amount=-10_001, reason="x", staff_user=staff, key="a1")
    assert snapshot() == before

    result = services.admin_adjust(
        user=player, amount=-2_500, reason="chargeback", staff_user=staff, key="a2"
    )
    assert result.transaction.created_by == staff
    assert result.transaction.reason == "chargeback"
    assert wallet_of(player).balance == 7_500
    assert_ledger_consistent()


def test_errors_speak_the_active_language():
    from django.utils import translation

    with translation.override("vi"):
        vi = BonusAlreadyClaimed().message
    with translation.override("en"):
        en = BonusAlreadyClaimed().message
    assert en == "You have already claimed today's bonus. Come back tomorrow!"
    assert vi == "Bạn đã nhận thưởng hôm nay rồi. Hẹn gặp lại ngày mai!"
