"""Force-closing live tables: the hand in play is voided and every chip returns."""

import pytest

from games.errors import TableClosed
from games.models import Hand, Seat, Table
from kernel.errors import PermissionDenied
from moderation import services as moderation
from moderation.errors import ReasonRequired
from moderation.models import AuditEntry
from wallet.models import Account, LedgerTransaction

from ..registry import GAMES
from ..services.driver import play_until_finished
from ..wallet.helpers import snapshot
from .helpers import BUY_IN, current_hand, deal, holdings, move_once, players_total, wallets


@pytest.mark.django_db
@pytest.mark.parametrize("game", GAMES)
def test_force_closing_mid_hand_voids_the_hand_and_every_balance_is_as_before_it(
    tables, make_user, game
):
    staff = make_user(is_staff=True)
    table, users, before_hand = deal(make_user, game)
    total_before = players_total()
    issuance_before = Account.objects.get(key="issuance").balance
    move_once(table)
    hand = current_hand(table)
    assert hand is not None
    assert hand.ended_at is None
    stacks = {u.pk: before_hand[u.pk] - wallets([u])[u.pk] for u in users}

    entry = moderation.table_force_close(by=staff, table_id=table.pk, reason="bot ring")

    hand.refresh_from_db()
    table.refresh_from_db()
    assert (hand.voided, hand.settled) == (True, True)
    n = len(hand.players)
    assert hand.result == {
        "game": game,
        "voided": True,
        "reason": "bot ring",
        "unit": 1 if game == "holdem" else table.stake,
        "net": [0] * n,
        "chips": [0] * n,
        "payments": [],
        "summary": None,
    }
    assert not LedgerTransaction.objects.filter(idempotency_key=f"hand:{hand.pk}:settle").exists()
    assert (table.status, table.closed_reason) == (Table.Status.CLOSED, "bot ring")
    assert not Seat.objects.filter(table=table).exists()
    assert holdings(users) == before_hand
    assert wallets(users) == before_hand  # Hold'em stacks are back in the wallets
    assert players_total() == total_before
    assert Account.objects.get(key="issuance").balance == issuance_before
    assert not Account.objects.filter(kind=Account.Kind.SEAT).exclude(balance=0).exists()
    assert (entry.action, entry.actor, entry.reason, entry.target_id) == (
        "table_close",
        staff,
        "bot ring",
        table.pk,
    )
    expected_stack = BUY_IN if game == "holdem" else None
    assert entry.before == {
        "status": "playing",
        "closed_reason": "",
        "hand": {
            "id": hand.pk,
            "number": 1,
            "finished": False,
            "settled": False,
            "voided": False,
        },
        "seats": [
            {
                "position": i,
                "user_id": u.pk,
                "name": u.shown_name,
                "chips": expected_stack if game == "holdem" else 10_000,
            }
            for i, u in enumerate(users)
        ],
    }
    assert stacks == {u.pk: expected_stack or 0 for u in users}
    assert entry.after == {
        "status": "closed",
        "closed_reason": "bot ring",
        "hand": {"id": hand.pk, "number": 1, "finished": True, "settled": True, "voided": True},
        "seats": [],
    }


@pytest.mark.django_db
def test_force_closing_after_a_hand_ended_settles_it_first(tables, make_user):
    staff = make_user(is_staff=True)
    table, users, _ = deal(make_user, "holdem")
    held: list[int] = []
    tables.scheduler.settle = held.append
    hand = play_until_finished(tables, table)
    assert hand.settled is False

    moderation.table_force_close(by=staff, table_id=table.pk, reason="maintenance")

    hand.refresh_from_db()
    assert (hand.voided, hand.settled) == (False, True)
    assert hand.result is not None
    assert sum(hand.result["chips"]) == 0
    assert wallets(users) == {u.pk: 10_000 + hand.result["chips"][i] for i, u in enumerate(users)}


@pytest.mark.django_db
def test_refused_force_closes_change_nothing(tables, make_user):
    staff = make_user(is_staff=True)
    table, users, _ = deal(make_user, "tienlen")
    owner = users[0]
    before = (
        Table.objects.filter(pk=table.pk).values().get(),
        list(Seat.objects.filter(table=table).values()),
        list(Hand.objects.filter(table=table).values("pk", "ended_at", "voided", "settled")),
        snapshot(),
    )

    with pytest.raises(PermissionDenied):
        moderation.table_force_close(by=owner, table_id=table.pk, reason="I am losing")
    with pytest.raises(ReasonRequired):
        moderation.table_force_close(by=staff, table_id=table.pk, reason=" \n ")

    after = (
        Table.objects.filter(pk=table.pk).values().get(),
        list(Seat.objects.filter(table=table).values()),
        list(Hand.objects.filter(table=table).values("pk", "ended_at", "voided", "settled")),
        snapshot(),
    )
    assert after == before
    assert not AuditEntry.objects.exists()
    moderation.table_force_close(by=staff, table_id=table.pk, reason="done")
    with pytest.raises(TableClosed):
        moderation.table_force_close(by=staff, table_id=table.pk, reason="again")
    assert AuditEntry.objects.count() == 1


@pytest.mark.django_db
def test_the_closed_state_carries_the_reason(tables, make_user):
    from games.selectors import table_state

    staff = make_user(is_staff=True)
    table, users, _ = deal(make_user, "maubinh")
    open_state = table_state(table_id=table.pk, user=users[0])

    moderation.table_force_close(by=staff, table_id=table.pk, reason="Bàn bị đóng để bảo trì")

    closed = table_state(table_id=table.pk, user=users[0])
    assert "closed_reason" not in open_state["table"]
    assert closed["table"]["status"] == "closed"
    assert closed["table"]["closed_reason"] == "Bàn bị đóng để bảo trì"
    assert closed["table"]["seats"] == []
    n = len(closed["hand"]["players"])
    assert closed["hand"]["result"] == {
        "game": "maubinh",
        "voided": True,
        "reason": "Bàn bị đóng để bảo trì",
        "unit": table.stake,
        "net": [0] * n,
        "chips": [0] * n,
        "payments": [],
        "summary": None,
    }
