"""The beat sweeper repairs what lost tasks leave behind: overdue clocks,
unsettled hands, bots that never readied up and bots that never moved."""

from datetime import timedelta

import pytest

from games import services, tasks, thinking
from games.models import Hand, HandEvent, Seat, Table
from games.plugins import plugin_for

from .driver import in_play

pytestmark = pytest.mark.django_db


def bot_table(tables, make_user, game="tienlen"):
    """A human and a bot at a two-seat table, the bot's ready-up task lost."""
    lan = make_user()
    table = services.table_create(owner=lan, game=game, stake=10, seat_count=2, turn_seconds=20)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_add_bot(table_id=table.pk, user=lan)
    tables.scheduler.readies.clear()
    return table, lan


def test_a_bot_whose_ready_task_was_lost_is_readied(tables, make_user):
    table, lan = bot_table(tables, make_user)
    assert not Seat.objects.get(table=table, is_bot=True).ready

    assert tasks.sweeper() == {"fired": 0, "settled": 0, "bots": 0, "released": 0}

    assert Seat.objects.get(table=table, is_bot=True).ready
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    assert table.current_hand_id is not None


def test_an_overdue_clock_fires_once_the_grace_has_passed(tables, dealer, make_user):
    lan, minh = make_user(), make_user()

    def open_table():
        table = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
        for user in (lan, minh):
            services.table_sit(table_id=table.pk, user=user)
            services.table_ready(table_id=table.pk, user=user)
        return table

    table = in_play(dealer, open_table)
    tables.scheduler.timers.clear()  # the timer task is lost
    deadline, clock_version = table.deadline, table.clock_version

    tables.clock.moment = deadline
    assert tasks.sweeper()["fired"] == 0  # due, but within the sweeper's grace
    tables.clock.advance(seconds=1)
    swept = tasks.sweeper()

    table.refresh_from_db()
    assert swept["fired"] == 1
    assert table.clock_version > clock_version
    assert HandEvent.objects.filter(hand=table.current_hand, type="timed_out").count() == 1
    assert tasks.sweeper()["fired"] == 0


def test_a_stalled_bot_is_moved(tables, dealer, make_user):
    def open_table():
        table, lan = bot_table(tables, make_user)
        tasks.sweeper()
        services.table_ready(table_id=table.pk, user=lan)
        return table

    table = in_play(dealer, open_table, first=1)  # the bot (position 1) leads
    assert tables.scheduler.bots == [(table.pk, table.current_hand_id, 1)]
    tables.scheduler.bots.clear()  # the bot's move task is lost
    hand = Hand.objects.get(table=table)
    assert Seat.objects.get(table=table, is_bot=True).position == 1
    assert hand.state["turn"] == 1
    moves = HandEvent.objects.filter(hand=hand, type__in=["played", "passed"]).count()
    assert moves == 0

    # The sweeper finds the pause the move was scheduled with (games.thinking)
    # and waits 4 s past it before it takes the task for lost.
    table = Table.objects.get(pk=table.pk)
    plugin = plugin_for("tienlen")
    think = thinking.think_ms(plugin, table, hand, plugin.engine.loads(hand.state), 1)
    assert think == tables.scheduler.bot_delays[(table.pk, hand.pk, 1)] > 0
    assert table.clock_started_at is not None
    lost_at = table.clock_started_at + timedelta(milliseconds=think + 4000)
    tables.clock.moment = lost_at - timedelta(milliseconds=50)
    assert tasks.sweeper()["bots"] == 0  # still thinking, or just done
    tables.clock.moment = lost_at
    assert tasks.sweeper()["bots"] == 1

    assert HandEvent.objects.filter(hand=hand, type__in=["played", "passed"]).count() == moves + 1


def test_a_finished_hand_left_unsettled_is_settled(tables, make_user):
    table, lan = bot_table(tables, make_user, game="maubinh")
    tasks.sweeper()
    services.table_ready(table_id=table.pk, user=lan)
    while Hand.objects.get(table=table).ended_at is None:
        tables.drain()  # bots arrange; the human's clock runs out, then the reveal
        tables.fire(table)
    tables.scheduler.settlements.clear()  # the settlement task is lost
    hand = Hand.objects.get(table=table)
    assert hand.ended_at is not None
    assert not hand.settled

    tables.clock.advance(seconds=1)
    assert tasks.sweeper()["settled"] == 0  # the settlement task may still come
    tables.clock.advance(seconds=2)
    assert tasks.sweeper()["settled"] == 1

    hand.refresh_from_db()
    assert hand.settled
    assert tasks.sweeper()["settled"] == 0


def test_a_long_clock_gets_its_timer_from_the_sweeper_shortly_before_it_ends(
    tables, dealer, make_user
):
    lan, minh = make_user(), make_user()

    def open_table():
        table = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
        for user in (lan, minh):
            services.table_sit(table_id=table.pk, user=user)
            services.table_ready(table_id=table.pk, user=user)
        return table

    table = in_play(dealer, open_table)
    assert table.deadline is not None
    assert tables.scheduler.timers == []  # a 20 s turn: no task when it is set

    tables.clock.moment = table.deadline - timedelta(seconds=5)
    tasks.sweeper()
    assert tables.scheduler.timers == []
    tables.clock.advance(seconds=1.5)  # 3.5 s left: within TIMER_QUEUE_AHEAD_S
    tasks.sweeper()
    tasks.sweeper()
    assert tables.scheduler.timers == [(table.pk, table.clock_version, table.deadline)]


def test_a_short_clock_gets_its_timer_at_once(tables, make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(
        owner=lan, game="tienlen", stake=10, seat_count=2, ready_seconds=3
    )
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)

    services.table_ready(table_id=table.pk, user=lan)  # minh has 3 s to be ready

    table.refresh_from_db()
    assert tables.scheduler.timers == [(table.pk, table.clock_version, table.deadline)]
    tasks.sweeper()
    assert len(tables.scheduler.timers) == 1
