"""Issue 13 item 4: sitting at a Mậu Binh or Tiến Lên table holds the table's
minimum balance in the wallet; the hold backs the player's payment at
settlement and is released when the seat goes (leave, force-close, ban, the
ready clock's removal, an idle table closed)."""

import pytest
from django.db.models import Sum

from games import services, tasks
from games.errors import NotEnoughChips
from games.models import Hand, Seat, Table
from moderation import services as moderation
from wallet.models import Account, Hold, LedgerEntry

from ..registry import wallet_games
from ..seeds import ORDINARY
from ..tables import assert_money_consistent, statements_run
from ..wallet.helpers import assert_ledger_consistent, snapshot, wallet_of
from .driver import play_until_finished

pytestmark = pytest.mark.django_db


def world():
    return (
        snapshot(),
        list(Seat.objects.order_by("pk").values()),
        list(Table.objects.order_by("pk").values("pk", "version", "status")),
    )


@pytest.mark.parametrize("game", wallet_games())
def test_one_wallet_cannot_back_two_tables(tables, make_user, game):
    """10,000 chips, tables needing 9,000 each (stake 300 x 30): the second
    sit is refused with a clear error and nothing changes."""
    lan, owners = make_user(), [make_user() for _ in range(4)]
    boards = [services.table_create(owner=o, game=game, stake=300, seat_count=2) for o in owners]
    services.table_sit(table_id=boards[0].pk, user=lan)
    account = wallet_of(lan)
    assert (account.balance, account.held) == (10_000, 9_000)
    before = world()

    for board in boards[1:]:
        with pytest.raises(NotEnoughChips) as err:
            services.table_sit(table_id=board.pk, user=lan)
        assert err.value.code == "not_enough_chips"
        assert err.value.message == "Bạn cần ít nhất 9.000 chip để ngồi vào bàn này."

    assert world() == before
    assert Seat.objects.filter(user=lan).count() == 1


def test_the_api_refuses_the_second_seat_too(tables, make_user, client):
    from rest_framework.test import APIClient

    from accounts.sessions import token_issue

    lan = make_user()
    first = services.table_create(owner=make_user(), game="tienlen", stake=300)
    second = services.table_create(owner=make_user(), game="maubinh", stake=300)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=lan)}")
    assert api.post(f"/api/v1/tables/{first.pk}/sit", {}, format="json").status_code == 200
    before = world()

    refused = api.post(f"/api/v1/tables/{second.pk}/sit", {}, format="json")

    assert refused.status_code == 409
    assert refused.json()["code"] == "not_enough_chips"
    assert world() == before


def test_settlement_pays_the_winner_in_full_from_the_hold_and_holds_again(tables, make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=300, seat_count=2)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user)
    # lan tries to spend the held chips at a second table: refused.
    other = services.table_create(owner=minh, game="tienlen", stake=300, seat_count=2)
    with pytest.raises(NotEnoughChips):
        services.table_sit(table_id=other.pk, user=lan)
    for user in (lan, minh):
        services.table_ready(table_id=table.pk, user=user)
    total = Account.objects.aggregate(total=Sum("balance"))["total"]

    hand = play_until_finished(tables, table)
    tables.drain()  # settlement
    hand = Hand.objects.get(pk=hand.pk)

    assert hand.settled
    assert hand.result is not None
    owed = [units * 300 for units in hand.result["net"]]
    paid = hand.result["chips"]
    if max(-o for o in owed) <= 10_000:  # within the loser's wallet: paid in full
        assert paid == owed
    else:
        assert sorted(paid) == [-10_000, 10_000]
    assert Account.objects.aggregate(total=Sum("balance"))["total"] == total
    for user in (lan, minh):
        account = wallet_of(user)
        # Held again for the next hand: the minimum, or what is left of it.
        assert account.held == min(9_000, account.balance)
        seat = Seat.objects.get(table=table, user=user)
        if account.held:
            assert seat.hold_id is not None
            assert Hold.objects.get(pk=seat.hold_id).status == Hold.Status.PENDING
    released = Hold.objects.filter(status=Hold.Status.VOIDED).count()
    assert released >= 2
    assert_ledger_consistent()

    for user in (lan, minh):
        services.table_leave(table_id=table.pk, user=user)
    assert [wallet_of(u).held for u in (lan, minh)] == [0, 0]
    assert not Hold.objects.filter(status=Hold.Status.PENDING).exists()
    assert_money_consistent()


def test_holds_are_released_by_force_close_ban_and_the_ready_clock(tables, make_user):
    staff = make_user(is_staff=True)
    lan, minh, hoa = make_user(), make_user(), make_user()
    closing = services.table_create(owner=lan, game="tienlen", stake=100, seat_count=2)
    banning = services.table_create(owner=minh, game="maubinh", stake=100, seat_count=2)
    waiting = services.table_create(
        owner=hoa, game="tienlen", stake=100, seat_count=2, ready_seconds=3
    )
    services.table_sit(table_id=closing.pk, user=lan)
    services.table_sit(table_id=banning.pk, user=minh)
    services.table_sit(table_id=waiting.pk, user=hoa)
    services.table_sit(table_id=waiting.pk, user=lan)
    assert [wallet_of(u).held for u in (lan, minh, hoa)] == [6_000, 3_000, 3_000]

    moderation.table_force_close(by=staff, table_id=closing.pk, reason="test")
    assert wallet_of(lan).held == 3_000
    moderation.user_ban(by=staff, user=minh, reason="test")
    assert wallet_of(minh).held == 0
    services.table_ready(table_id=waiting.pk, user=hoa)
    tables.fire(waiting)  # lan was not ready in time: removed
    assert wallet_of(lan).held == 0
    assert wallet_of(hoa).held == 3_000

    tables.clock.advance(minutes=60)
    tasks.close_idle_tables()  # nothing happened at hoa's table for an hour
    assert wallet_of(hoa).held == 0
    assert not Hold.objects.filter(status=Hold.Status.PENDING).exists()
    assert [wallet_of(u).balance for u in (lan, minh, hoa)] == [10_000] * 3
    assert LedgerEntry.objects.filter(transaction__kind="settlement").count() == 0
    assert_money_consistent()


def _finished_hand(tables, make_user, monkeypatch, dealer, *, late: bool):
    """A four-seat Tiến Lên table (stake 300, minimum 9,000) whose hand three
    players played to its end, not settled yet (the harness's settlement held
    back); with ``late``, a fourth player sat down during the hand. Returns the
    table, everyone seated, and the hand."""
    table = services.table_create(owner=make_user(), game="tienlen", stake=300, seat_count=4)
    seated = [table.owner, make_user(), make_user()]
    for user in seated:
        services.table_sit(table_id=table.pk, user=user)
    dealer.stack(*ORDINARY)  # no tới trắng: the hand is in play after the deal
    for user in seated:
        services.table_ready(table_id=table.pk, user=user)
    if late:
        seated.append(make_user())
        services.table_sit(table_id=table.pk, user=seated[-1])
    due: list[int] = []
    monkeypatch.setattr(tables.scheduler, "settle", due.append)
    hand = play_until_finished(tables, table)
    assert due == [hand.pk]
    return table, seated, hand


def assert_held_again(table, users) -> None:
    """Each user's wallet holds the minimum again, or what is left of it, in
    one pending hold: their seat's (none if the hand took every chip: the
    random deal can)."""
    for user in users:
        account = wallet_of(user)
        seat = Seat.objects.get(table=table, user=user)
        assert account.held == min(9_000, account.balance)
        held = Hold.objects.filter(account=account, status=Hold.Status.PENDING)
        expected = [(seat.hold_id, account.held)] if account.held else []
        assert list(held.values_list("pk", "amount")) == expected
        if not account.held:
            assert seat.hold_id is None
    assert_ledger_consistent()


def test_a_settlement_releases_every_hold_and_holds_again_in_a_few_statements(
    tables, make_user, monkeypatch, dealer
):
    """Three players dealt in, a fourth seated during the hand: the settlement
    releases all four holds and holds each wallet again (the minimum, or what
    is left of it), with one wallet statement per step for the whole table,
    not a few per player (62 statements before, 21 now, savepoints aside)."""
    table, seated, hand = _finished_hand(tables, make_user, monkeypatch, dealer, late=True)
    old_holds = set(Seat.objects.filter(table=table).values_list("hold_id", flat=True))
    total = Account.objects.aggregate(total=Sum("balance"))["total"]

    with statements_run() as ran:
        services.hand_settle(hand_id=hand.pk)

    run = [s for s in ran if "SAVEPOINT" not in s]
    assert len(run) <= 21, "\n".join(run)
    hold_writes = [s for s in run if s.startswith(("UPDATE wallet_hold", "WITH v AS"))]
    assert len(hold_writes) == 1
    assert Hand.objects.get(pk=hand.pk).settled
    assert Account.objects.aggregate(total=Sum("balance"))["total"] == total
    assert None not in old_holds
    assert len(old_holds) == 4
    assert set(Hold.objects.filter(pk__in=old_holds).values_list("status", flat=True)) == {
        Hold.Status.VOIDED
    }
    assert_held_again(table, seated)


def test_a_settlement_on_the_orm_path_leaves_what_the_batched_one_leaves(
    tables, make_user, monkeypatch, dealer
):
    """``make run``'s SQLite takes the ORM's path for the batched calls
    (``wallet.holds_void``, ``wallet.holds_up_to``, ``sql.set_nets``): the
    same settlement on it (PostgreSQL told to look like another database)
    pays, records the nets and holds again."""
    from django.db import connection

    table, seated, hand = _finished_hand(tables, make_user, monkeypatch, dealer, late=False)
    total = Account.objects.aggregate(total=Sum("balance"))["total"]

    monkeypatch.setattr(connection, "vendor", "sqlite")
    services.hand_settle(hand_id=hand.pk)
    monkeypatch.undo()

    hand = Hand.objects.get(pk=hand.pk)
    assert hand.settled
    assert hand.result is not None
    nets = dict(hand.participants.values_list("index", "net"))
    assert nets == dict(enumerate(hand.result["chips"]))
    assert sum(n or 0 for n in nets.values()) == 0
    assert Account.objects.aggregate(total=Sum("balance"))["total"] == total
    assert_held_again(table, seated)
