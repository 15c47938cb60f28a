"""Issue 33 item 5: a seat is not lost to an outage the player did not cause.
A player's clock (the ready clock, a turn) that ran while the room was down
(no serving process noted that it reaches PostgreSQL and Redis for longer
than games.services.outages.OUTAGE_GAP) is given again, whole, instead of running out
on them; the table's own clocks (a Mậu Binh reveal, the summary) run out as
always; the first note after records the outage; and the serving processes
note it (a worker down is not an outage)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from games import services, tasks
from games.models import Hand, HandEvent, Outage, Seat, Table
from games.plugins import engine_for
from games.services import outages

from ..seeds import ORDINARY
from .driver import in_play
from .test_tables import two_player_table

pytestmark = pytest.mark.django_db


def length_of(table: Table) -> timedelta:
    """How long the table's clock runs."""
    assert table.deadline is not None
    assert table.clock_started_at is not None
    return table.deadline - table.clock_started_at


def well(tables, seconds):
    """``seconds`` pass with the room serving (a note every 2 s)."""
    for _ in range(seconds // 2):
        tables.clock.advance(seconds=2)
        outages.beat()


def test_a_gap_in_the_notes_is_recorded_as_an_outage(tables):
    outages.beat()
    well(tables, 10)
    tables.clock.advance(seconds=12)  # the longest gap that is not one
    assert outages.beat() is None
    started = tables.clock.now()
    tables.clock.advance(seconds=40)  # PostgreSQL down: no run

    outage = outages.beat()

    assert outage is not None
    assert (outage.started_at, outage.ended_at) == (started, tables.clock.now())
    assert list(Outage.objects.all()) == [outage]


def test_a_ready_clock_that_ran_during_an_outage_is_given_again(tables, make_user):
    table, lan, minh = two_player_table(make_user)
    outages.beat()
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    length = length_of(table)

    tables.clock.advance(seconds=5)
    tables.clock.advance(seconds=30)  # the room is down: minh cannot ready
    assert tables.fire(table)  # the timer task, as the room comes back

    assert Seat.objects.filter(table=table, user=minh).exists()  # not stood up
    again = Table.objects.get(pk=table.pk)
    assert again.clock == "ready"
    assert again.clock_version > table.clock_version
    assert (again.clock_started_at, length_of(again)) == (
        tables.clock.now(),
        length,
    )

    # The room well again: the clock given again runs out as any other.
    well(tables, int(length.total_seconds()))
    assert tables.fire(again)
    assert not Seat.objects.filter(table=table, user=minh).exists()


def test_a_turn_that_ran_during_an_outage_is_not_a_time_out(tables, dealer, make_user):
    def open_table():
        table, lan, minh = two_player_table(make_user)
        for user in (lan, minh):
            services.table_ready(table_id=table.pk, user=user)
        return table

    table = in_play(dealer, open_table)
    outages.beat()
    hand = table.current_hand
    assert hand is not None
    events = HandEvent.objects.filter(hand=hand).count()
    turn = Table.objects.get(pk=table.pk)
    tables.clock.advance(seconds=2)
    outages.beat()
    tables.clock.advance(seconds=60)  # Redis down: no move arrives, no note

    tasks.sweeper()  # the first run after: fires the overdue turn, sees the outage
    outages.beat()  # a Daphne's first note after it records it

    after = Table.objects.get(pk=table.pk)
    assert after.clock == "turn"
    assert length_of(after) == length_of(turn)
    assert HandEvent.objects.filter(hand=hand).count() == events  # nothing played for them
    assert set(Seat.objects.filter(table=table).values_list("timeouts", flat=True)) == {0}
    assert Outage.objects.count() == 1


def test_a_clock_that_started_after_the_outage_runs_out(tables, make_user):
    table, lan, minh = two_player_table(make_user)
    outages.beat()
    tables.clock.advance(seconds=40)
    outages.beat()  # an outage, over
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    well(tables, 20)

    assert tables.fire(table)

    assert not Seat.objects.filter(table=table, user=minh).exists()


def test_the_tables_own_clocks_run_out_as_always(tables, dealer, make_user):
    """A Mậu Binh reveal is the table's pace, not a player's clock."""
    dealer.stack(*ORDINARY)  # no instant win: the hand reaches the reveal
    table, lan, minh = two_player_table(make_user, game="maubinh")
    for user in (lan, minh):
        services.table_ready(table_id=table.pk, user=user)
    table.refresh_from_db()
    hand = Hand.objects.get(pk=table.current_hand_id)
    engine = engine_for("maubinh")
    state = engine.loads(hand.state)
    for user in (lan, minh):
        player = next(i for i, p in enumerate(hand.players) if p["user_id"] == user.pk)
        action = engine.bot_action(engine.view(state, player), seed=0)
        services.table_act(table_id=table.pk, user=user, action=action)
    table.refresh_from_db()
    assert table.clock == "reveal"
    outages.beat()
    tables.clock.advance(seconds=40)  # down during the reveal

    assert tables.fire(table)

    after = Hand.objects.get(pk=hand.pk)
    assert after.state["reveal_step"] > hand.state["reveal_step"] or after.ended_at is not None


def test_the_serving_processes_note_the_room_and_a_worker_does_not(tables, settings, monkeypatch):
    """Each Daphne process with sockets notes (games.consumers); the sweeper
    no longer does, so a dead worker is not taken for an outage."""
    import asyncio

    from games import consumers

    noted: list[str] = []  # the thread of each beat
    monkeypatch.setattr(outages, "beat", lambda: noted.append(threading.current_thread().name))
    settings.ROOM_BEAT_S = 0.01

    async def serving():
        consumers.beat_while_serving()
        await asyncio.sleep(0.2)
        consumers.beat_while_serving()  # (one round a process)
        await asyncio.sleep(0.05)

    asyncio.run(serving())
    assert len(noted) >= 3
    tasks.sweeper()
    # (a beat in flight on a database thread when the loop closed may land
    # later, as asyncio.run does not wait for it: only this thread's count)
    assert threading.current_thread().name not in noted
