"""A whole hand of each game through the table services (no sockets)."""

import pytest

from games import services
from games.models import Hand, HandEvent, Seat, Table
from games.plugins import engine_for
from wallet.models import Account, LedgerTransaction

from ..seeds import ORDINARY
from ..tables import assert_money_consistent

pytestmark = pytest.mark.django_db


def balance(user):
    return Account.objects.get(kind=Account.Kind.USER, user=user).balance


def current_hand(table):
    table.refresh_from_db()
    return Hand.objects.get(pk=table.current_hand_id)


def test_maubinh_hand_from_ready_to_settled_result(tables, make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=10, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)

    services.table_ready(table_id=table.pk, user=lan, client_seed="lan-seed")
    table.refresh_from_db()
    assert (table.status, table.clock) == ("waiting", "ready")
    services.table_ready(table_id=table.pk, user=minh, client_seed="minh-seed")

    hand = current_hand(table)
    assert (table.status, table.clock, hand.number) == ("playing", "arrange", 1)
    assert hand.client_seeds == ["lan-seed", "minh-seed"]
    assert table.deadline is not None
    assert table.clock_started_at is not None
    assert (table.deadline - table.clock_started_at).total_seconds() == 90
    # Lan arranges with the engine's own suggestion; Minh lets the clock run out.
    view = engine_for("maubinh").view(engine_for("maubinh").loads(hand.state), 0)
    best = view["own"]["suggestion"]
    services.table_act(
        table_id=table.pk,
        user=lan,
        action={"type": "submit", **{k: best[k] for k in ("chi1", "chi2", "chi3")}},
        client_id="a1",
    )
    for step in ("arrange", "reveal", "reveal", "reveal"):
        table.refresh_from_db()
        assert table.clock == step
        assert tables.fire(table)
    table.refresh_from_db()
    assert (table.status, table.clock) == ("summary", "summary")
    hand.refresh_from_db()
    assert hand.ended_at is not None
    assert not hand.settled
    assert tables.scheduler.settlements == [hand.pk]

    tables.drain()

    hand.refresh_from_db()
    assert hand.settled
    net = hand.result["chips"]
    assert sum(net) == 0
    assert [balance(lan), balance(minh)] == [10_000 + net[0], 10_000 + net[1]]
    assert net[0] == 10 * hand.result["net"][0]
    if any(net):
        txn = LedgerTransaction.objects.get(idempotency_key=f"hand:{hand.pk}:settle")
        assert txn.hand_id == hand.pk
    assert tables.fire(table)
    table.refresh_from_db()
    assert (table.status, table.clock) == ("waiting", "")
    assert not Seat.objects.filter(table=table, ready=True).exists()
    assert_money_consistent()


def test_tienlen_bots_play_a_whole_hand(tables, dealer, make_user):
    dealer.stack(*ORDINARY)  # no tới trắng: the hand is played out
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=5, fill_with_bots=True)
    services.table_sit(table_id=table.pk, user=lan)
    assert Seat.objects.filter(table=table, is_bot=True).count() == 3
    tables.drain()
    services.table_ready(table_id=table.pk, user=lan)
    hand = current_hand(table)
    for _ in range(200):
        tables.drain()
        hand.refresh_from_db()
        if hand.ended_at:
            break
        assert tables.fire(table)  # Lan never plays: the clock plays for her
    tables.drain()
    hand.refresh_from_db()
    assert hand.settled
    assert sum(hand.result["chips"]) == 0
    assert hand.result["summary"]["instant"] is None
    players = {e.payload["player"] for e in HandEvent.objects.filter(hand=hand, type="played")}
    assert players - {0}  # the bots played (Lan's clock passes or plays for her)
    assert_money_consistent()


def test_holdem_buy_in_hand_and_cash_out(tables, make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="holdem", stake=10, seat_count=6)
    services.table_sit(table_id=table.pk, user=lan, buy_in=1_000)
    services.table_sit(table_id=table.pk, user=minh, buy_in=2_000)
    assert balance(lan) == 9_000
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    hand = current_hand(table)
    for _ in range(50):
        hand.refresh_from_db()
        if hand.ended_at:
            break
        tables.fire(table)
    tables.drain()
    hand.refresh_from_db()
    assert hand.settled
    stacks = [Account.objects.get(key=f"seat:{table.pk}:{p}").balance for p in (0, 1)]
    assert sum(stacks) == 3_000
    assert stacks == [1_000 + hand.result["chips"][0], 2_000 + hand.result["chips"][1]]
    tables.fire(table)  # summary over: Hold'em players stay in and the next hand deals
    table.refresh_from_db()
    services.table_leave(table_id=table.pk, user=lan)
    tables.drain()
    for _ in range(50):
        table.refresh_from_db()
        if not Seat.objects.filter(table=table, user=lan).exists():
            break
        tables.fire(table)
        tables.drain()
    assert not Seat.objects.filter(table=table, user=lan).exists()
    assert Account.objects.get(key=f"seat:{table.pk}:0").balance == 0
    assert_money_consistent()
    assert Table.objects.get(pk=table.pk).status in ("waiting", "playing", "summary")
