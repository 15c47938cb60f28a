"""One player firing their own requests at their own table at once (security
review issue 34, S-04): every service takes its locks in the one order
(docs/architecture.md "Lock order"), so none of them deadlocks, and nothing
answers a server error."""

import threading

import psycopg
import pytest
from django.db import connections

from games import services
from games.models import Seat, Table
from kernel import retry
from kernel.errors import ServiceError

from ..tables import assert_money_consistent

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 6


def _burst(table_id, user):
    """The attack's requests, all at once: (name, call)."""
    return [
        ("bot", lambda: services.table_add_bot(table_id=table_id, user=user)),
        ("bot", lambda: services.table_add_bot(table_id=table_id, user=user)),
        ("bot", lambda: services.table_add_bot(table_id=table_id, user=user)),
        ("sit", lambda: services.table_sit(table_id=table_id, user=user, buy_in=500)),
        ("leave", lambda: services.table_leave(table_id=table_id, user=user)),
        ("ready", lambda: services.table_ready(table_id=table_id, user=user)),
        ("auto_ready", lambda: services.table_auto_ready(table_id=table_id, user=user, on=True)),
        ("buy_in", lambda: services.table_buy_in(table_id=table_id, user=user, amount=100)),
    ]


def _run_at_once(calls):
    barrier = threading.Barrier(len(calls))
    outcomes: list[tuple[str, str]] = []
    failures: list[tuple[str, BaseException]] = []
    lock = threading.Lock()

    def run(name, call):
        barrier.wait()
        try:
            call()
            outcome = "ok"
        except ServiceError as err:
            outcome = err.code
            if err.status >= 500:
                with lock:
                    failures.append((name, err))
        except Exception as exc:  # a deadlock, or any other server error
            outcome = type(exc).__name__
            with lock:
                failures.append((name, exc))
        finally:
            connections.close_all()
        with lock:
            outcomes.append((name, outcome))

    threads = [threading.Thread(target=run, args=call) for call in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes, failures


@pytest.mark.parametrize("game", ["holdem", "tienlen"])
def test_one_players_burst_at_their_own_table_never_deadlocks(tables, make_user, monkeypatch, game):
    # (a transaction lost to a deadlock would be run again: counted, it must
    # not be; a lock waited for past DB_LOCK_TIMEOUT_MS on a loaded machine
    # is run again too, and is not a deadlock)
    retried: list[str] = []
    lost_to_another = retry.lost_to_another

    def deadlocked(exc):
        lost = lost_to_another(exc)
        if lost and not isinstance(exc.__cause__, psycopg.errors.LockNotAvailable):
            retried.append(repr(exc))
        return lost

    monkeypatch.setattr(retry, "lost_to_another", deadlocked)
    # given: a player's own table, with them seated
    lan = make_user()
    table = services.table_create(owner=lan, game=game, stake=5, seat_count=4)
    services.table_sit(table_id=table.pk, user=lan, buy_in=500)
    failures = []
    for _ in range(ROUNDS):
        # when: they fire add bot x3, sit, leave, ready, auto-ready, buy-in at once
        outcomes, failed = _run_at_once(_burst(table.pk, lan))
        failures += [(name, repr(exc)) for name, exc in failed]
        assert len(outcomes) == 8
        tables.drain()
        # (the next round starts from a table with a free seat for each bot)
        for seat in Seat.objects.filter(table_id=table.pk, is_bot=True):
            services.table_leave(table_id=table.pk, user=seat.user)
        tables.drain()
    # then: no server error at all, and the money adds up
    assert failures == []
    assert retried == []
    assert Table.objects.get(pk=table.pk).status != Table.Status.CLOSED
    assert_money_consistent()
