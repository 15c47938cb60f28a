"""What a table tells the push notifier (push.notices): the players whose
turn it is, the players not ready when a hand is about to start, an invited
player; after commit only, and without touching the database inside the
table's transaction (docs/protocol.md "Push")."""

import pytest

from games import selectors, services
from games.errors import CannotInvite, CannotInviteThem, PlayerNotFound, PrivateTable
from games.models import Hand, Invitation
from push import notices
from tests.push.helpers import subscribe
from tests.seeds import ORDINARY
from tests.tables import statements_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch, push_index):
    got: list[notices.Notice] = []
    monkeypatch.setattr(notices, "enqueue", got.append)
    return got


def two_at_a_table(make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    return table, lan, minh


def test_the_player_to_move_is_told_after_the_deal(tables, make_user, queued):
    table, lan, minh = two_at_a_table(make_user)
    subscribe(lan)
    subscribe(minh, endpoint="https://push.example.test/send/minh")
    services.table_ready(table_id=table.pk, user=lan)
    queued.clear()
    services.table_ready(table_id=table.pk, user=minh)  # deals

    state = selectors.table_state(table_id=table.pk, user=lan)
    table.refresh_from_db()
    players = Hand.objects.get(pk=table.current_hand_id).players
    to_move = {players[i]["user_id"] for i in state["actors"]}
    turns = [(n.kind, n.user_id, n.table_id, n.game) for n in queued if n.kind == "turn"]
    assert turns == [("turn", uid, table.pk, "tienlen") for uid in sorted(to_move)]
    assert len(to_move) == 1


def test_nobody_without_push_is_queued(tables, make_user, queued):
    table, lan, minh = two_at_a_table(make_user)
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    assert queued == []


def test_the_ready_clock_tells_those_not_ready_that_a_hand_is_about_to_start(
    tables, make_user, queued
):
    table, lan, minh = two_at_a_table(make_user)
    subscribe(lan)
    subscribe(minh, endpoint="https://push.example.test/send/minh")
    services.table_ready(table_id=table.pk, user=lan)
    assert [(n.kind, n.user_id) for n in queued] == [("hand", minh.pk)]


def test_a_move_reads_nothing_of_push_in_its_transaction(tables, dealer, make_user, queued):
    dealer.stack(*ORDINARY)  # no tới trắng: the hand does not end at the deal
    table, lan, minh = two_at_a_table(make_user)
    subscribe(lan)
    subscribe(minh, endpoint="https://push.example.test/send/minh")
    services.table_ready(table_id=table.pk, user=lan)
    with statements_run() as ran:
        services.table_ready(table_id=table.pk, user=minh)
    assert [n.kind for n in queued].count("turn") == 1
    assert not [sql for sql in ran if "push_" in sql]


def test_nothing_is_queued_when_the_change_rolls_back(
    make_user, push_index, monkeypatch, django_capture_on_commit_callbacks
):
    got: list[notices.Notice] = []
    monkeypatch.setattr(notices, "enqueue", got.append)
    table, lan, minh = two_at_a_table(make_user)
    subscribe(minh)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.table_ready(table_id=table.pk, user=lan)
    assert got == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert [(n.kind, n.user_id) for n in got] == [("hand", minh.pk)]


def test_an_owner_invites_a_player_by_name(tables, make_user, delivered):
    lan, minh, hoa = make_user(), make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2, is_private=True)
    subscribe(minh, language="en")
    with pytest.raises(PlayerNotFound):
        services.invite_send(table_id=table.pk, by=lan, username="nobody-here")
    with pytest.raises(CannotInviteThem):
        services.invite_send(table_id=table.pk, by=lan, username=lan.username)
    with pytest.raises(PrivateTable):  # (what they may not open is not named to them)
        services.invite_send(table_id=table.pk, by=hoa, username=minh.username)
    public = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    with pytest.raises(CannotInvite):
        services.invite_send(table_id=public.pk, by=hoa, username=minh.username)

    assert services.invite_send(table_id=table.pk, by=lan, username=minh.username) is True
    assert Invitation.objects.filter(table=table, user=minh).exists()
    assert selectors.can_view(table, minh, "", seated=False)
    [record] = delivered
    assert record["user"] == minh.pk
    assert record["payload"]["type"] == "invite"
    assert record["payload"]["url"] == f"/tables/{table.pk}/"
    assert lan.display_name in record["payload"]["body"]
    assert record["payload"]["title"] == "You are invited to a table"
