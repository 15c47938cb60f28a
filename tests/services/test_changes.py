"""A table's change is declared, not inferred: every operation of the unit of
work appends a typed change (``games.changes``) and the publisher decides by
the kinds of change what to send (``publish.decide``); a change of what a
state shows that no operation declared cannot be committed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import transaction

from games import publish, services
from games.changes import (
    ChipsMoved,
    ClockSet,
    HandDealt,
    HandFinished,
    HandMoved,
    HandSettled,
    HandVoided,
    SeatLeft,
    SeatTaken,
    SeatUpdated,
    TableOpened,
    TableUpdated,
    UndeclaredChange,
)
from games.models import Hand, Seat, Table
from games.plugins import engine_for
from games.rules.game import Status
from games.services.work import TableWork

from ..seeds import ORDINARY
from .driver import ready_all, seated_table

STATUS = Status(phase="play", actors=(1,), clock="turn", finished=False)
MOVE = HandMoved(hand_id=1, before={"n": 0}, after={"n": 1}, events=(), status=STATUS)
CLOCK = ClockSet("turn", datetime(2026, 1, 1, tzinfo=UTC))
HIDDEN = SeatUpdated(7, frozenset({"recent_client_ids", "timeouts"}))
SHOWN = SeatUpdated(7, frozenset({"ready"}))


@pytest.mark.parametrize(
    ("changes", "kind"),
    [
        # A move, with its clock, the version it must be based on and the
        # mover's client ids: a delta.
        ([MOVE, HIDDEN, TableUpdated(frozenset({"hand_version"})), CLOCK], publish.DELTA),
        # The hand's end is a delta too (its status and result are fields of it).
        ([MOVE, HandFinished(1), TableUpdated(frozenset({"status"})), CLOCK], publish.DELTA),
        # A move that changed what a seat shows (a player leaving mid-hand).
        ([SHOWN, MOVE], publish.FULL),
        ([MOVE, ChipsMoved()], publish.FULL),
        # Seats only, same players in the same seats, no hand: one seat delta.
        ([SHOWN], publish.SEAT_DELTA),
        ([SHOWN, CLOCK, TableUpdated(frozenset({"status"}))], publish.SEAT_DELTA),
        ([ChipsMoved()], publish.SEAT_DELTA),
        ([CLOCK], publish.SEAT_DELTA),
        # Anything else: a full state.
        ([SeatTaken(7, 0, 3)], publish.FULL),
        ([SHOWN, SeatLeft(7, 0, 3, {"reason": "left", "at": 0})], publish.FULL),
        ([HandDealt(2, ()), SHOWN, CLOCK], publish.FULL),
        ([HandSettled(1), ChipsMoved()], publish.FULL),
        ([HandVoided(1)], publish.FULL),
        ([HandFinished(1)], publish.FULL),  # (an end without a move of this change)
        ([TableOpened()], publish.FULL),
    ],
)
def test_the_publisher_decides_by_the_kinds_of_change(changes, kind):
    assert publish.decide(changes) == kind


def test_the_lobby_hears_of_seats_hands_ending_and_its_shown_fields_only():
    assert publish.lobby_changed([SeatTaken(7, 0, 3)])
    assert publish.lobby_changed([MOVE, HandFinished(1)])
    assert publish.lobby_changed([TableUpdated(frozenset({"status"}))])
    assert not publish.lobby_changed([MOVE, HIDDEN, TableUpdated(frozenset({"hand_version"}))])
    assert not publish.lobby_changed([SHOWN, CLOCK])


@pytest.mark.django_db
def test_a_shown_seat_field_changed_without_declaring_it_cannot_be_committed(tables, make_user):
    # given a seated player, their seat read in full by a unit of work
    table, (lan, _) = seated_table(make_user, "tienlen", 2, 0)
    version = Table.objects.get(pk=table.pk).version
    seat_id = Seat.objects.get(table=table, user=lan).pk

    def service() -> None:
        with transaction.atomic():
            work = TableWork(table.pk)
            seat = work.require_seat(lan)
            # when a service sets a field the state shows and saves it itself,
            # declaring only a clock
            seat.ready = True
            seat.save(update_fields=["ready"])
            work.set_clock(Table.Clock.READY, 1_000)
            work.commit()

    # then committing refuses it (and the transaction rolls back)
    with pytest.raises(UndeclaredChange):
        service()
    assert Seat.objects.get(pk=seat_id).ready is False
    assert Table.objects.get(pk=table.pk).version == version
    assert Table.objects.get(pk=table.pk).clock == ""


@pytest.mark.django_db
def test_a_shown_table_column_changed_without_declaring_it_cannot_be_committed(tables, make_user):
    table, _ = seated_table(make_user, "tienlen", 2, 0)
    version = Table.objects.get(pk=table.pk).version

    def service() -> None:
        with transaction.atomic():
            work = TableWork(table.pk)
            work.table.status = Table.Status.CLOSED
            work.set_clock(Table.Clock.READY, 1_000)
            work.commit()

    with pytest.raises(UndeclaredChange):
        service()
    assert Table.objects.values_list("status", "version").get(pk=table.pk) == (
        Table.Status.WAITING,
        version,
    )


@pytest.mark.django_db
def test_a_declared_seat_change_is_written_and_published_as_a_seat_delta(tables, make_user):
    table, (lan, _) = seated_table(make_user, "tienlen", 2, 0)
    version = Table.objects.get(pk=table.pk).version
    with transaction.atomic():
        work = TableWork(table.pk)
        work.update_seat(work.require_seat(lan), auto_ready=True)
        after = work.commit()
    assert after is not None
    assert after.publication is not None
    assert after.publication.kind == publish.SEAT_DELTA
    assert Seat.objects.get(table=table, user=lan).auto_ready is True
    assert Table.objects.get(pk=table.pk).version == version + 1


@pytest.mark.django_db
def test_a_seat_field_no_state_shows_is_written_without_a_version(tables, make_user):
    # a seed for the next hand: written, nothing to tell anyone
    table, (lan, _) = seated_table(make_user, "tienlen", 2, 0)
    version = Table.objects.get(pk=table.pk).version
    commitment = Table.objects.get(pk=table.pk).next_commitment
    services.table_seed(table_id=table.pk, user=lan, client_seed="lan-1", commitment=commitment)
    assert Seat.objects.values_list("client_seed", "seed_commitment").get(
        table=table, user=lan
    ) == ("lan-1", commitment)
    assert Table.objects.get(pk=table.pk).version == version


@pytest.mark.django_db
def test_sitting_present_is_one_change_one_version_one_publication(tables, make_user, monkeypatch):
    # given a table and a player whose table socket asks to sit
    owner, lan = make_user(), make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1, seat_count=4)
    version = Table.objects.get(pk=table.pk).version
    sent: list[list] = []
    monkeypatch.setattr(publish, "send", lambda messages, **_: sent.append(list(messages)))
    # when they sit, counted present at once
    services.table_sit(table_id=table.pk, user=lan, present=True)
    # then one version, one publication, and everyone sees them connected
    assert Table.objects.get(pk=table.pk).version == version + 1
    assert len(sent) == 1
    seat = Seat.objects.get(table=table, user=lan)
    assert (seat.connections, seat.connected) == (1, True)
    states = [m["payload"] for _, m in sent[0] if m["type"] == "table.state"]
    assert {p["type"] for p in states} == {"state"}
    assert all(p["v"] == version + 1 for p in states)
    assert all(p["table"]["seats"][0]["connected"] is True for p in states)


@pytest.mark.django_db
def test_leaving_now_with_the_socket_is_one_version(tables, dealer, make_user, monkeypatch):
    dealer.stack(*ORDINARY)  # no tới trắng: the hand is in play when Minh leaves
    table, (_, minh) = seated_table(make_user, "tienlen", 2, 0)
    services.seat_presence(table_id=table.pk, user=minh, delta=1)
    ready_all(table)
    tables.drain()
    version = Table.objects.get(pk=table.pk).version
    services.table_leave(table_id=table.pk, user=minh, socket_leaves=True)
    seat = Seat.objects.get(table=table, user=minh)
    assert (seat.leaving, seat.connections) == (True, 0)
    assert Table.objects.get(pk=table.pk).version == version + 1


@pytest.mark.django_db
def test_a_move_asks_the_engine_its_status_twice_before_and_after(
    tables, dealer, make_user, monkeypatch
):
    # given a Tiến Lên hand in play (no tới trắng: it waits for a move)
    dealer.stack(*ORDINARY)
    table, users = seated_table(make_user, "tienlen", 4, 0)
    ready_all(table)
    tables.drain()
    table.refresh_from_db()
    engine = engine_for("tienlen")
    hand = Hand.objects.get(table=table, number=table.hands_played)
    state = engine.loads(hand.state)
    player = engine.status(state).actors[0]
    user = next(u for u in users if u.pk == hand.players[player]["user_id"])
    action = engine.bot_action(engine.view(state, player), seed=1)
    calls: list[int] = []
    status = type(engine).status

    def counted(self, s):
        calls.append(1)
        return status(self, s)

    monkeypatch.setattr(type(engine), "status", counted)
    sent: list[list] = []
    monkeypatch.setattr(publish, "send", lambda messages, **_: sent.append(list(messages)))
    # when a player moves and the move is published
    services.table_act(table_id=table.pk, user=user, action=action, client_id="m1")
    # then the status was computed before and after the move, not again to publish it
    assert {m["payload"]["type"] for _, m in sent[0] if m["type"] == "table.state"} == {"delta"}
    assert len(calls) == 2
