"""The benchmarks' and drills' money checks while tables still deal."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from bench import players
from games import services
from games.models import Hand

pytestmark = pytest.mark.django_db(transaction=True)


def _hand(table, number, ended_at, settled=False):
    return Hand.objects.create(
        table=table, number=number, game="tienlen", commitment="c" * 64,
        server_seed="0" * 64, ended_at=ended_at, settled=settled,
    )  # fmt: skip


def test_a_hand_ended_after_the_check_began_is_in_flight_not_unsettled(make_user):
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)
    cut = timezone.now()
    _hand(table, 1, cut - timedelta(seconds=5), settled=True)
    _hand(table, 2, cut + timedelta(seconds=1))  # ended while the check ran
    assert players.money_checks(cut)["hands_unsettled"] == 0
    assert players.money_checks(cut)["hands_finished"] == 1
    assert players.money_checks()["hands_unsettled"] == 1


def test_a_hand_left_unsettled_before_the_check_fails_it(make_user):
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)
    _hand(table, 1, timezone.now() - timedelta(seconds=5))
    money = players.settled_money_checks(timeout=1)
    assert money["hands_unsettled"] == 1
    assert not players.money_ok(money)


def test_the_check_waits_for_a_settlement_in_flight(make_user):
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)
    hand = _hand(table, 1, timezone.now() - timedelta(seconds=1))

    def settled_now():
        Hand.objects.filter(pk=hand.pk).update(settled=True)
        connection.close()  # this thread's own

    settle = threading.Timer(1.0, settled_now)
    settle.start()
    try:
        money = players.settled_money_checks(timeout=10)
    finally:
        settle.join()
    assert money["hands_unsettled"] == 0
    assert money["hands_finished"] == 1
