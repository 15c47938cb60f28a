"""A service transaction that loses to another (a deadlock's victim) is run
again from the start: nothing of the lost attempt stays (rows, chips, its
after-commit work); after the last attempt the caller gets ``busy``, never the
database's error (docs/architecture.md "Lock order")."""

import psycopg
import pytest
from django.db import OperationalError

from games import aftercommit, services
from games.models import Table
from games.services.work import TableWork
from kernel.errors import Busy
from wallet.models import Account, LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)


def deadlock() -> OperationalError:
    """What Django raises at a deadlock's victim (psycopg's error as its cause)."""
    try:
        raise psycopg.errors.DeadlockDetected("deadlock detected")
    except psycopg.errors.DeadlockDetected as cause:
        try:
            raise OperationalError("deadlock detected") from cause
        except OperationalError as exc:
            return exc


@pytest.fixture
def lost(monkeypatch, settings):
    """``lost.times = n``: the first n table commits are a deadlock's victims,
    after everything they wrote and registered; ``lost.ran``: the after-commit
    work that ran."""
    settings.DB_RETRY_ATTEMPTS = 3
    settings.DB_RETRY_BACKOFF_MS = 1

    class Lost:
        times = 0
        attempts = 0
        ran: list[aftercommit.AfterCommit] = []

    commit, run = TableWork.commit, aftercommit.run

    def losing_commit(self):
        after = commit(self)
        Lost.attempts += 1
        if Lost.attempts <= Lost.times:
            raise deadlock()
        return after

    def counted_run(work):
        Lost.ran.append(work)
        run(work)

    monkeypatch.setattr(TableWork, "commit", losing_commit)
    monkeypatch.setattr(aftercommit, "run", counted_run)
    return Lost


def _holdem(make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="holdem", stake=5, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan, buy_in=500)
    return lan, table


def _chips(lan, table):
    wallet = Account.objects.get(key=f"user:{lan.pk}").balance
    stack = Account.objects.get(key=f"seat:{table.pk}:0").balance
    return wallet, stack


def test_a_buy_in_lost_to_a_deadlock_is_run_again_and_done_once(tables, make_user, lost):
    # given: a seated Hold'em player whose next commit loses to a deadlock once
    lan, table = _holdem(make_user)
    wallet, stack = _chips(lan, table)
    version = Table.objects.get(pk=table.pk).version
    buy_ins = LedgerTransaction.objects.filter(kind="buy_in").count()
    lost.attempts, lost.times, lost.ran[:] = 0, 1, []
    # when
    services.table_buy_in(table_id=table.pk, user=lan, amount=100)
    # then: two attempts, one buy-in, one version, one after-commit run
    assert lost.attempts == 2
    assert _chips(lan, table) == (wallet - 100, stack + 100)
    assert LedgerTransaction.objects.filter(kind="buy_in").count() == buy_ins + 1
    assert Table.objects.get(pk=table.pk).version == version + 1
    assert len(lost.ran) == 1


def test_a_buy_in_that_keeps_losing_is_busy_and_changes_nothing(tables, make_user, lost):
    # given: every commit loses to a deadlock
    lan, table = _holdem(make_user)
    wallet, stack = _chips(lan, table)
    version = Table.objects.get(pk=table.pk).version
    transactions = LedgerTransaction.objects.count()
    lost.attempts, lost.times, lost.ran[:] = 0, 99, []
    # when
    with pytest.raises(Busy) as refused:
        services.table_buy_in(table_id=table.pk, user=lan, amount=100)
    # then: DB_RETRY_ATTEMPTS attempts, a stable code, and nothing changed
    assert lost.attempts == 3
    assert (refused.value.code, refused.value.status) == ("busy", 503)
    assert _chips(lan, table) == (wallet, stack)
    assert LedgerTransaction.objects.count() == transactions
    assert Table.objects.get(pk=table.pk).version == version
    assert lost.ran == []


def test_a_service_inside_another_transaction_is_not_run_again(tables, make_user, lost):
    # given: a service called inside an outer transaction (a ban leaving tables)
    from django.db import transaction

    lan, table = _holdem(make_user)
    wallet, stack = _chips(lan, table)
    lost.attempts, lost.times, lost.ran[:] = 0, 1, []
    # when: its commit loses: the whole transaction is lost, the outermost retries
    with pytest.raises(OperationalError), transaction.atomic():
        services.table_buy_in(table_id=table.pk, user=lan, amount=100)
    # then: one attempt, nothing changed
    assert lost.attempts == 1
    assert _chips(lan, table) == (wallet, stack)
    assert lost.ran == []
