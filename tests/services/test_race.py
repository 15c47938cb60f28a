"""A time-out racing a player's action on the same version: exactly one applies."""

import threading

import pytest
from django.db import connections

from games import services
from games.errors import GameError
from games.models import Hand, HandEvent, Table
from games.plugins import engine_for

from ..tables import assert_money_consistent
from .driver import ready_all

pytestmark = pytest.mark.django_db(transaction=True)


def test_timeout_and_action_racing_apply_exactly_once(tables, make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="holdem", stake=5, seat_count=2)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user, buy_in=1_000)
        services.table_ready(table_id=table.pk, user=user)
    users = {lan.pk: lan, minh.pk: minh}
    outcomes = []
    for round_number in range(12):
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            break
        assert table.current_hand_id is not None
        hand = Hand.objects.get(pk=table.current_hand_id)
        engine = engine_for("holdem")
        actor = engine.status(engine.loads(hand.state)).actors[0]
        user = users[hand.players[actor]["user_id"]]
        tables.clock.moment = table.deadline  # the clock has just run out
        events_before = HandEvent.objects.filter(hand=hand).count()
        barrier = threading.Barrier(2)
        result: dict[str, object] = {}

        def act(user=user, version=table.version, barrier=barrier, result=result, n=round_number):
            barrier.wait()
            try:
                result["act"] = services.table_act(
                    table_id=table.pk,
                    user=user,
                    action={"type": "fold"},
                    client_id=f"r{n}",
                    version=version,
                )
            except GameError as err:
                result["act"] = err.code
            finally:
                connections.close_all()

        def timeout(clock_version=table.clock_version, barrier=barrier, result=result):
            barrier.wait()
            try:
                result["timeout"] = services.table_timeout(
                    table_id=table.pk, clock_version=clock_version
                )
            finally:
                connections.close_all()

        threads = [threading.Thread(target=act), threading.Thread(target=timeout)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        acted = isinstance(result["act"], dict)
        timed_out = result["timeout"] is True
        assert acted != timed_out, result
        assert acted or result["act"] in ("stale_version", "not_your_turn", "no_hand")
        moved = [
            e
            for e in HandEvent.objects.filter(hand=hand, seq__gt=events_before, type="acted")
            if e.payload.get("player") == actor
        ]
        assert len(moved) == 1
        outcomes.append("act" if acted else "timeout")
        tables.drain()
        table.refresh_from_db()
        if table.status == Table.Status.SUMMARY:
            tables.fire(table)
            tables.drain()
        ready_all(table)
    assert len(outcomes) >= 8
    assert_money_consistent()
