"""Issue 13 item 3: one bad table never stops the sweeper or a periodic task.
A table whose hand cannot be read (its service raises) is planted among
tables that need a clock fired, a hand settled, a bot moved and a bot
readied: every one of them is served, and the bad table's error is logged."""

import logging

import pytest
from django.db import InterfaceError, OperationalError

from games import services, tasks
from games.models import Hand, HandEvent, Seat, Table
from tournaments import tasks as tournament_tasks
from wallet import tasks as wallet_tasks

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


def test_the_database_away_for_a_table_is_a_warning_and_the_others_are_served(
    tables, dealer, make_user, caplog, monkeypatch
):
    """A connection dropped under one table's clock (a restart, a fail-over):
    not a bug, so no ERROR and no traceback in the logs (the drills fail on
    those); the other tables are served, and the next run does that one."""
    overdue = humans_in_play(dealer, make_user, turn_seconds=2)
    dropped = humans_in_play(dealer, make_user, turn_seconds=2)
    tables.scheduler.timers.clear()
    real = tasks.table_timeout

    def timeout(*, table_id, clock_version):
        if table_id == dropped.pk:
            raise OperationalError("terminating connection due to administrator command")
        return real(table_id=table_id, clock_version=clock_version)

    monkeypatch.setattr(tasks, "table_timeout", timeout)
    tables.clock.advance(seconds=5)
    with caplog.at_level(logging.WARNING, logger="games.tasks"):
        first = tasks.sweeper()

    assert first["fired"] == 1
    assert Table.objects.get(pk=overdue.pk).clock_version > overdue.clock_version
    assert Table.objects.get(pk=dropped.pk).clock_version == dropped.clock_version
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert f"({dropped.pk}, {dropped.clock_version})" in caplog.records[0].getMessage()
    assert caplog.records[0].exc_info is None
    monkeypatch.setattr(tasks, "table_timeout", real)
    assert tasks.sweeper()["fired"] == 1  # the next run
    assert Table.objects.get(pk=dropped.pk).clock_version > dropped.clock_version


@pytest.mark.parametrize(
    ("task", "selector"),
    [
        (tasks.sweeper, "games.selectors.sweep"),
        (tasks.close_idle_tables, "games.selectors.idle_tables"),
        (tournament_tasks.sit_and_gos, "tournaments.services.bots_due"),
        (wallet_tasks.expire_holds, "wallet.tasks.holds_expire"),
    ],
)
def test_a_periodic_task_without_its_database_is_put_off_with_a_warning(
    task, selector, caplog, monkeypatch
):
    def dropped(*args, **kwargs):
        raise InterfaceError("connection already closed")

    monkeypatch.setattr(selector, dropped)
    with caplog.at_level(logging.WARNING):
        result = task()

    assert result in ({"put_off": 1}, 0)
    assert [(r.levelno, r.exc_info) for r in caplog.records] == [(logging.WARNING, None)]
    assert "put off, the database did not answer" in caplog.records[0].getMessage()


def test_a_tournaments_announcement_with_the_database_away_is_a_warning(
    make_user, caplog, monkeypatch, django_capture_on_commit_callbacks
):
    """The PostgreSQL drill once failed on this: the lobby's after-commit
    announcement of a tournament met a dropped connection, and Django logged
    the robust callback's failure as an ERROR with its traceback."""
    from tournaments import results
    from tournaments import services as tournaments
    from tournaments.models import Tournament

    sit_and_go = tournaments.tournament_create(game="holdem", seats=6, buy_in=10, fee=1)

    def dropped(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(Tournament.objects, "filter", dropped)
    with (
        caplog.at_level(logging.WARNING),
        django_capture_on_commit_callbacks(execute=True),
    ):
        results.announce(sit_and_go)

    assert [(r.name, r.levelno) for r in caplog.records] == [
        ("tournaments.results", logging.WARNING)
    ]
    assert "announce_tournament put off" in caplog.records[0].getMessage()
    assert caplog.records[0].exc_info is None


def test_a_late_entrys_seating_with_the_database_away_is_a_warning_and_beat_seats_it(
    tables, make_user, caplog, monkeypatch, django_capture_on_commit_callbacks
):
    """The other after-commit work that reads the database from a client's
    request: a late entrant's seating. A dropped connection there is a
    warning, and beat seats the entrant (``moving_in``)."""
    from datetime import timedelta

    from games import clock
    from tournaments import services as tournaments
    from tournaments import tables as tournament_tables
    from tournaments.models import Entry

    tournament = tournaments.tournament_schedule(
        game="tienlen", starts_at=clock.now() + timedelta(seconds=60), buy_in=100, fee=10,
        starting_chips=300, level_seconds=60, allow_bots=True, late_levels=2,
    )  # fmt: skip
    tournaments.tournament_register(tournament_id=tournament.pk, user=make_user())
    tournaments.tournament_add_bots(tournament_id=tournament.pk, count=8)
    tables.clock.advance(seconds=61)
    assert tournaments.tournament_start(tournament_id=tournament.pk)
    real = tournament_tables.seat_moving

    def dropped(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(tournament_tables, "seat_moving", dropped)
    with (
        caplog.at_level(logging.WARNING),
        django_capture_on_commit_callbacks(execute=True),
    ):
        late = tournaments.tournament_register(tournament_id=tournament.pk, user=make_user())

    assert [(r.name, r.levelno, r.exc_info) for r in caplog.records] == [
        ("tournaments.services", logging.WARNING, None)
    ]
    assert "_seat_after_entry put off" in caplog.records[0].getMessage()
    late.refresh_from_db()
    assert late.moving_chips is not None  # between tables, not lost
    monkeypatch.setattr(tournament_tables, "seat_moving", real)
    assert tournament.pk in tournaments.moving_in()
    tournament_tasks.sit_and_gos()  # beat
    late.refresh_from_db()
    assert (late.status, late.moving_chips) == (Entry.Status.PLAYING, None)
    assert Seat.objects.get(user=late.player).stack == 300
