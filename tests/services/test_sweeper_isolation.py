"""Issue 13 item 3: one bad table never stops the sweeper or a periodic task.
A table whose hand cannot be read (its service raises) is planted among
tables that need a clock fired, a hand settled, a bot moved and a bot
readied: every one of them is served, and the bad table's error is logged."""

import logging

import pytest

from games import services, tasks
from games.models import Hand, HandEvent, Seat, Table

from .driver import in_play

pytestmark = pytest.mark.django_db


def humans_in_play(dealer, make_user, **kw):
    lan, minh = make_user(), make_user()

    def open_table():
        table = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2, **kw)
        for user in (lan, minh):
            services.table_sit(table_id=table.pk, user=user)
            services.table_ready(table_id=table.pk, user=user)
        return table

    return in_play(dealer, open_table)


def bot_in_play(tables, dealer, make_user, **kw):
    """A human and a bot, the hand in play with the bot to move."""
    lan = make_user()

    def open_table():
        table = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2, **kw)
        services.table_sit(table_id=table.pk, user=lan)
        services.table_add_bot(table_id=table.pk, user=lan)
        tables.drain()  # the bot readies
        services.table_ready(table_id=table.pk, user=lan)
        return table

    table = in_play(dealer, open_table, first=1)  # the bot (position 1) leads
    assert Seat.objects.get(table=table, is_bot=True).position == 1
    assert Hand.objects.get(table=table).state["turn"] == 1
    tables.scheduler.bots.clear()
    return table


def unsettled_hand(tables, make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=10, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_add_bot(table_id=table.pk, user=lan)
    tables.drain()
    services.table_ready(table_id=table.pk, user=lan)
    while Hand.objects.get(table=table).ended_at is None:
        tables.drain()
        tables.fire(table)
    tables.scheduler.settlements.clear()  # the settlement task is lost
    return Hand.objects.get(table=table)


def test_a_failing_table_does_not_stop_the_sweeper(tables, dealer, make_user, caplog):
    unsettled = unsettled_hand(tables, make_user)
    # (a quick bot: its think time and the sweeper's 4 s more are under 5 s)
    bot_moves = bot_in_play(
        tables, dealer, make_user, turn_seconds=300, bot_delay_ms=100, bot_delay_max_ms=200
    )
    overdue = humans_in_play(dealer, make_user, turn_seconds=2)
    broken = bot_in_play(tables, dealer, make_user, turn_seconds=2)
    lan = make_user()
    unready = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
    services.table_sit(table_id=unready.pk, user=lan)
    services.table_add_bot(table_id=unready.pk, user=lan)
    services.seat_presence(table_id=unready.pk, user=lan, delta=1)  # here: the bot stays
    tables.scheduler.readies.clear()  # the bot's ready-up task is lost
    tables.scheduler.timers.clear()
    # The planted failure: a hand whose state the engine cannot read, so every
    # service at that table raises (its clock is overdue, its bot stalled).
    Hand.objects.filter(pk=broken.current_hand_id).update(state={"broken": True})
    broken_before = Table.objects.values().get(pk=broken.pk)
    bot_hand = Hand.objects.get(pk=bot_moves.current_hand_id)
    moves_before = HandEvent.objects.filter(hand=bot_hand).count()

    tables.clock.advance(seconds=5)
    with caplog.at_level(logging.ERROR, logger="games.tasks"):
        first = tasks.sweeper()
    again = tasks.sweeper()

    overdue_after = Table.objects.get(pk=overdue.pk)
    assert overdue_after.clock_version > overdue.clock_version  # the clock fired
    assert first["fired"] == 1  # the broken table's overdue clock failed: not counted
    assert HandEvent.objects.filter(hand=overdue.current_hand, type="timed_out").exists()
    assert Hand.objects.get(pk=unsettled.pk).settled  # the lost settlement happened
    assert first["settled"] == 1
    assert first["bots"] == 1  # the stalled bot moved
    assert HandEvent.objects.filter(hand=bot_hand).count() > moves_before
    assert Seat.objects.get(table=unready, is_bot=True).ready  # the idle bot readied
    assert Table.objects.values().get(pk=broken.pk) == broken_before  # rolled back
    assert any(f"{broken.pk}" in r.getMessage() for r in caplog.records)
    assert again["bots"] == 0
    assert again["settled"] == 0


def test_a_failing_table_does_not_stop_the_idle_table_closer(tables, make_user, settings):
    settings.TABLE_IDLE_MINUTES = 15
    lan, minh = make_user(), make_user()
    idle = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
    services.table_sit(table_id=idle.pk, user=lan)
    services.table_add_bot(table_id=idle.pk, user=lan)
    broken = services.table_create(owner=minh, game="tienlen", stake=10, seat_count=2)
    hand = Hand.objects.create(
        table=broken,
        number=1,
        game="tienlen",
        commitment="0" * 64,
        server_seed="0" * 64,
        state={"broken": True},
        ended_at=tables.clock.now(),
        settled=True,
    )
    Table.objects.filter(pk=broken.pk).update(current_hand=hand)
    busy = services.table_create(owner=minh, game="tienlen", stake=10, seat_count=2)

    tables.clock.advance(minutes=16)
    services.table_sit(table_id=busy.pk, user=minh)  # something happens here
    closed = tasks.close_idle_tables()

    assert closed == 1
    assert Table.objects.get(pk=idle.pk).status == Table.Status.CLOSED
    assert Table.objects.get(pk=broken.pk).status == Table.Status.WAITING
    assert Table.objects.get(pk=busy.pk).status == Table.Status.WAITING
    assert not Seat.objects.filter(table=idle).exists()
    tables.clock.advance(minutes=16)
    assert tasks.close_idle_tables() == 1  # busy is idle now; broken still fails alone
    assert Table.objects.get(pk=busy.pk).status == Table.Status.CLOSED
