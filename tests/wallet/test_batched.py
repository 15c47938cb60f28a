"""The settlement's batched wallet calls (``holds_void``, ``holds_up_to``, and
``ledger_post``'s one balance update) leave what the one-at-a-time calls
leave. Each test runs on PostgreSQL's statements and on the ORM path other
databases take (``make run``'s SQLite)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from accounts.models import User
from tests.tables import statements_run
from wallet import services
from wallet.errors import AccountClosed
from wallet.models import Account, Hold

from .helpers import assert_ledger_consistent, snapshot, wallet_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="both paths need PostgreSQL"),
]
LATER = timedelta(hours=1)


@pytest.fixture(params=["postgresql", "orm"])
def path(request, monkeypatch):
    """Which path the wallet takes: its PostgreSQL statements, or the ORM's."""
    if request.param == "orm":
        monkeypatch.setattr(connection, "vendor", "sqlite")
    return request.param


def _hold(account: Account, amount: int, key: str) -> Hold:
    return services.hold_create(
        account=account, amount=amount, key=key, expires_at=timezone.now() + LATER
    )


def test_holds_void_releases_the_pending_holds_and_leaves_the_others(make_user, path):
    lan, minh = wallet_of(make_user()), wallet_of(make_user())
    a, b = _hold(lan, 1_000, "a"), _hold(lan, 2_500, "b")
    c = _hold(minh, 400, "c")
    paid = _hold(minh, 300, "paid")
    services.hold_post(hold=paid, destination=lan, amount=100)
    untouched = _hold(minh, 50, "untouched")

    with transaction.atomic():
        freed = services.holds_void([a.pk, b.pk, c.pk, paid.pk, c.pk])

    assert freed == {a.pk: 1_000, b.pk: 2_500, c.pk: 400}
    assert (wallet_of(lan.user).held, wallet_of(minh.user).held) == (0, 50)
    statuses = dict(Hold.objects.values_list("key", "status"))
    assert statuses == {
        "a": "voided",
        "b": "voided",
        "c": "voided",
        "paid": "posted",
        "untouched": "pending",
    }
    assert untouched.status == Hold.Status.PENDING
    assert services.holds_void([]) == {}
    assert_ledger_consistent()


def test_holds_up_to_holds_what_is_available_up_to_the_most(make_user, path):
    rich, poor, broke = make_user(), make_user(), make_user()
    _hold(wallet_of(poor), 9_700, "already")  # 300 of its 10,000 left
    services.transfer(
        source=wallet_of(broke), destination=wallet_of(rich), amount=10_000, key="all"
    )
    nobody = User.objects.create(username="no-wallet", display_name="No Wallet")
    expiry = timezone.now() + LATER

    with transaction.atomic():
        made = services.holds_up_to(
            [
                services.HoldUpTo(user_id=u.pk, most=2_000, key=f"k{n}")
                for n, u in enumerate((rich, poor, broke, nobody))
            ],
            expires_at=expiry,
            reason="Tiến Lên #1",
        )

    assert set(made) == {rich.pk, poor.pk}
    rich_hold, poor_hold = Hold.objects.get(pk=made[rich.pk]), Hold.objects.get(pk=made[poor.pk])
    assert (rich_hold.account, rich_hold.amount, rich_hold.key) == (wallet_of(rich), 2_000, "k0")
    assert (poor_hold.account, poor_hold.amount, poor_hold.key) == (wallet_of(poor), 300, "k1")
    for hold in (rich_hold, poor_hold):
        assert (hold.status, hold.reason, hold.expires_at) == ("pending", "Tiến Lên #1", expiry)
        assert hold.created_at is not None
    assert [wallet_of(u).held for u in (rich, poor, broke)] == [2_000, 10_000, 0]
    assert not Account.objects.filter(user=nobody).exists()
    assert_ledger_consistent()


def test_holds_up_to_refuses_a_closed_account_with_chips_and_changes_nothing(make_user, path):
    open_user, closed_user = make_user(), make_user()
    Account.objects.filter(user=closed_user).update(is_closed=True)
    before = snapshot()

    with pytest.raises(AccountClosed), transaction.atomic():
        services.holds_up_to(
            [
                services.HoldUpTo(user_id=open_user.pk, most=500, key="open"),
                services.HoldUpTo(user_id=closed_user.pk, most=500, key="closed"),
            ],
            expires_at=timezone.now() + LATER,
            reason="",
        )

    assert snapshot() == before


def test_holds_up_to_takes_one_hold_per_user(make_user):
    user = make_user()
    with pytest.raises(ValueError, match="one hold per user"):
        services.holds_up_to(
            [services.HoldUpTo(user.pk, 1, "a"), services.HoldUpTo(user.pk, 1, "b")],
            expires_at=timezone.now() + LATER,
            reason="",
        )


def test_a_post_moves_every_balance_and_releases_held_chips(make_user, path):
    users = [make_user() for _ in range(4)]
    accounts = [wallet_of(u) for u in users]
    _hold(accounts[0], 3_000, "h")

    services.ledger_post(
        key="settle",
        kind="settlement",
        postings=[(accounts[0], -2_500), (accounts[1], 1_000), (accounts[2], 1_500)],
        release_held={accounts[0].pk: 3_000},
    )

    after = [wallet_of(u) for u in users]
    assert [(a.balance, a.held) for a in after] == [
        (7_500, 0),
        (11_000, 0),
        (11_500, 0),
        (10_000, 0),
    ]
    assert_ledger_consistent()


def test_a_post_updates_its_balances_in_one_statement(make_user):
    accounts = [wallet_of(make_user()) for _ in range(4)]
    postings = [(a, amount) for a, amount in zip(accounts, (-300, -200, 100, 400), strict=True)]

    with statements_run() as ran:
        services.ledger_post(key="four", kind="settlement", postings=postings)

    updates = [s for s in ran if s.startswith(f"UPDATE {Account._meta.db_table}")]
    updates += [s for s in ran if s.startswith(f'UPDATE "{Account._meta.db_table}"')]
    assert len(updates) == 1, ran
