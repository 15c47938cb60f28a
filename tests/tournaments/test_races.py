"""Registrations at once (real transactions, one thread each): the tournament
row lock lets no Sit & Go take more players than its seats, starts it once,
and every chip is where the ledger says (the money check after the test)."""

import threading

import pytest
from django.db import connections

from kernel.errors import ServiceError
from tournaments import services
from tournaments.models import Entry, Tournament
from wallet.models import LedgerTransaction

from .helpers import balance, pool

pytestmark = pytest.mark.django_db(transaction=True)


def at_once(calls):
    barrier = threading.Barrier(len(calls))
    outcomes: list[str] = []
    lock = threading.Lock()

    def run(call):
        barrier.wait()
        try:
            call()
            outcome = "ok"
        except ServiceError as err:
            outcome = err.code
        finally:
            connections.close_all()
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(outcomes)


def test_five_players_at_once_for_two_places_two_get_in_and_it_starts_once(make_user):
    players = [make_user() for _ in range(5)]
    before = {p.pk: balance(p) for p in players}
    tournament = services.tournament_create(game="holdem", seats=2, buy_in=100, fee=10)

    outcomes = at_once(
        [
            lambda p=p: services.tournament_register(tournament_id=tournament.pk, user=p)
            for p in players
        ]
    )

    tournament.refresh_from_db()
    assert outcomes == ["ok", "ok", *["tournament_started"] * 3]
    assert tournament.status == Tournament.Status.RUNNING
    playing = set(
        tournament.entries.filter(status=Entry.Status.PLAYING).values_list("player_id", flat=True)
    )
    assert len(playing) == 2
    assert {p.pk: before[p.pk] - balance(p) for p in players} == {
        p.pk: 110 if p.pk in playing else 0 for p in players
    }
    assert pool(tournament) == 200
    assert LedgerTransaction.objects.filter(kind="tourney_fee").count() == 1


def test_one_player_registering_and_unregistering_at_once_pays_exactly(make_user):
    lan = make_user()
    before = balance(lan)
    tournament = services.tournament_create(game="holdem", seats=6, buy_in=100, fee=10)

    outcomes = at_once(
        [
            lambda: services.tournament_register(tournament_id=tournament.pk, user=lan),
            lambda: services.tournament_register(tournament_id=tournament.pk, user=lan),
            lambda: services.tournament_unregister(tournament_id=tournament.pk, user=lan),
        ]
    )

    held = tournament.entries.filter(status=Entry.Status.REGISTERED).count()
    assert held in (0, 1)
    assert set(outcomes) <= {"ok", "already_registered", "not_registered"}
    assert (balance(lan), pool(tournament)) == (before - 110 * held, 110 * held)
