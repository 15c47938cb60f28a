"""Tables in a given state, for the moderation tests."""

from __future__ import annotations

from typing import Any

from django.db.models import Sum

from games import services
from games.models import Hand, Seat, Table
from games.plugins import engine_for
from wallet.models import Account

GAMES = ["maubinh", "tienlen", "holdem"]
BUY_IN = 1_000


def seated_table(make_user: Any, game: str, players: int = 3) -> tuple[Table, list[Any]]:
    """A table (stake 10) with ``players`` people seated, nobody ready."""
    users = [make_user() for _ in range(players)]
    table = services.table_create(owner=users[0], game=game, stake=10, seat_count=4)
    for user in users:
        buy_in = BUY_IN if game == "holdem" else None
        services.table_sit(table_id=table.pk, user=user, buy_in=buy_in)
    table.refresh_from_db()
    return table, users


def current_hand(table: Table) -> Hand | None:
    table.refresh_from_db()
    return None if table.current_hand_id is None else Hand.objects.get(pk=table.current_hand_id)


def deal(make_user: Any, game: str, players: int = 3) -> tuple[Table, list[Any], dict[int, int]]:
    """A table whose hand is in play, and each player's chips (wallet plus
    Hold'em stack) just before it was dealt. A deal that ends the hand at once
    (an instant win) is closed and tried again."""
    for _ in range(20):
        table, users = seated_table(make_user, game, players)
        before = holdings(users)
        for user in users:
            services.table_ready(table_id=table.pk, user=user, client_seed=f"seed-{user.pk}")
        hand = current_hand(table)
        assert hand is not None
        if hand.ended_at is None:
            return table, users, before
        services.table_close(table_id=table.pk, by=None, reason="instant win at the deal")
    raise AssertionError("twenty instant wins in a row")


def move_once(table: Table) -> None:
    """The first player to act makes the bot policy's move."""
    hand = current_hand(table)
    assert hand is not None
    engine = engine_for(table.game)
    state = engine.loads(hand.state)
    player = engine.status(state).actors[0]
    user = Seat.objects.get(table=table, position=hand.players[player]["position"]).user
    services.table_act(
        table_id=table.pk,
        user=user,
        action=engine.bot_action(engine.view(state, player), seed=7),
        client_id="move-1",
        version=table.version,
    )


def holdings(users: list[Any]) -> dict[int, int]:
    """Each user's chips: wallet plus every seat escrow they own."""
    return {
        u.pk: Account.objects.filter(user=u).aggregate(total=Sum("balance"))["total"] or 0
        for u in users
    }


def wallets(users: list[Any]) -> dict[int, int]:
    return {u.pk: Account.objects.get(user=u, kind=Account.Kind.USER).balance for u in users}


def players_total() -> int:
    """Σ over every player wallet and seat escrow."""
    return (
        Account.objects.filter(kind__in=[Account.Kind.USER, Account.Kind.SEAT]).aggregate(
            total=Sum("balance")
        )["total"]
        or 0
    )
