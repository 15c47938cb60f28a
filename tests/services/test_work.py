"""The unit of work: a service's after-commit work is data, run once after
commit and never on rollback; one operation is one version and one
publication; reads take no lock."""

import threading

import pytest
from django.db import connection, transaction

from games import publish, selectors, services
from games.aftercommit import AfterCommit
from games.models import Hand, Seat, Table
from games.services.work import TableWork

from ..tables import assert_money_consistent
from .driver import play_until_finished, ready_all


@pytest.fixture
def sent(monkeypatch):
    batches: list[list] = []
    monkeypatch.setattr(publish, "send", lambda messages, **_: batches.append(list(messages)))
    return batches


@pytest.mark.django_db
def test_the_after_commit_work_is_returned_as_data(
    tables, make_user, sent, django_capture_on_commit_callbacks
):
    owner = make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1)
    services.table_sit(table_id=table.pk, user=owner)
    sent.clear()

    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        work = TableWork(table.pk)
        work.set_clock(Table.Clock.READY, 1_000)
        work.update_table(name="Bàn mới")  # (what the lobby shows)
        after = work.commit()
    assert len(callbacks) == 1  # one runner for the whole change

    assert isinstance(after, AfterCommit)
    version = Table.objects.get(pk=table.pk).version
    assert after.timer == (work.table.clock_version, work.table.deadline)
    assert (after.table_id, after.game) == (table.pk, "tienlen")
    groups = [group for group, _ in after.messages]
    assert groups == [
        publish.user_group(table.pk, owner.pk),
        publish.public_group(table.pk),
        publish.LOBBY_GROUP,
    ]
    assert all(m["payload"]["v"] == version for _, m in after.messages[:2])
    # Run once after commit: these very messages, and the timer scheduled.
    assert sent == [after.messages]
    assert tables.scheduler.timers[-1] == (table.pk, *after.timer)


@pytest.mark.django_db(transaction=True)
def test_nothing_is_sent_or_scheduled_when_the_transaction_rolls_back(tables, make_user, sent):
    owner = make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1)
    sent.clear()
    timers = len(tables.scheduler.timers)

    class Boom(Exception):
        pass

    def change_then_fail() -> None:
        with transaction.atomic():
            work = TableWork(table.pk)
            work.set_clock(Table.Clock.READY, 1_000)
            assert work.commit() is not None
            raise Boom

    with pytest.raises(Boom):
        change_then_fail()

    assert sent == []
    assert len(tables.scheduler.timers) == timers
    assert Table.objects.get(pk=table.pk).version == table.version + 1  # the create's


@pytest.mark.django_db
def test_closing_a_table_with_a_finished_hand_is_one_version_and_one_publication(
    tables, make_user, sent, monkeypatch
):
    players = [make_user() for _ in range(2)]
    table = services.table_create(owner=players[0], game="maubinh", stake=1)
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    ready_all(table)
    monkeypatch.setattr(tables.scheduler, "settle", lambda hand_id: None)  # a lost task
    play_until_finished(tables, table)  # finished, not settled
    table.refresh_from_db()
    hand = Hand.objects.get(table=table, number=table.hands_played)
    assert table.status == Table.Status.SUMMARY
    assert not hand.settled
    before = table.version
    sent.clear()

    services.table_close(table_id=table.pk, by=players[0], reason="test")

    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    hand.refresh_from_db()
    assert hand.settled
    assert table.version == before + 1
    assert len(sent) == 1
    versions = {m["payload"]["v"] for _, m in sent[0] if m["type"] == "table.state"}
    assert versions == {before + 1}
    assert_money_consistent()


@pytest.mark.django_db(transaction=True)
def test_reading_a_table_never_waits_for_a_move_holding_its_lock(tables, make_user):
    owner = make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1)
    locked, release = threading.Event(), threading.Event()

    def mover() -> None:
        # A move in progress: the table row locked until told to finish.
        try:
            with transaction.atomic():
                Table.objects.select_for_update().get(pk=table.pk)
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=mover)
    thread.start()
    try:
        assert locked.wait(10)
        with connection.cursor() as cursor:
            # A read that tried to take the lock would fail after 0.5 s.
            cursor.execute("SET lock_timeout = '500ms'")
        state = selectors.table_state(table_id=table.pk, user=owner)
        assert state["v"] == Table.objects.get(pk=table.pk).version
    finally:
        release.set()
        thread.join()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")


@pytest.mark.django_db
def test_seats_read_anew_show_the_seat_changes_still_to_be_written(tables, make_user):
    """A unit of work writes its seat changes with its one write, at commit
    (``update_seats``: a Ready, the seeds a deal used up). Seats it reads again
    before then (``chips_moved``), in full or in short, show those changes to
    the rest of the work; the database has them after."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user)
    with transaction.atomic():
        work = TableWork(table.pk)
        seat = work.require_seat(lan)
        work.update_seats({seat.pk: {"ready": True, "client_seed": "s1"}})
        work.chips_moved()
        again = {s.user_id: s for s in work.seats}
        assert (again[lan.pk].ready, again[lan.pk].client_seed) == (True, "s1")
        assert again[minh.pk].ready is False
        work.chips_moved()
        assert {r.user_id: r.ready for r in work.refs} == {lan.pk: True, minh.pk: False}
        assert Seat.objects.get(pk=seat.pk).ready is False  # not written yet
        work.commit()
    assert Seat.objects.values_list("ready", "client_seed").get(pk=seat.pk) == (True, "s1")
