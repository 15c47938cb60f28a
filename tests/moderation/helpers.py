"""Tables in a given state, for the moderation tests."""

from __future__ import annotations

from typing import Any

from django.db.models import Sum

from games import services
from games.models import Hand, Seat, Table, TableSeed
from games.plugins import engine_for
from wallet.models import Account

from ..registry import buy_in, seat_count
from ..seeds import seeds_for_a_hand_in_play

BUY_IN = 1_000


def seated_table(make_user: Any, game: str, players: int = 3) -> tuple[Table, list[Any]]:
    """A table (stake 10) with ``players`` people seated (as many as the game
    seats if fewer), nobody ready."""
    users = [make_user() for _ in range(seat_count(game, players))]
    table = services.table_create(owner=users[0], game=game, stake=10, seat_count=seat_count(game))
    for user in users:
        services.table_sit(table_id=table.pk, user=user, buy_in=buy_in(game, BUY_IN))
    table.refresh_from_db()
    return table, users


def current_hand(table: Table) -> Hand | None:
    table.refresh_from_db()
    return None if table.current_hand_id is None else Hand.objects.get(pk=table.current_hand_id)


def deal(make_user: Any, game: str, players: int = 3) -> tuple[Table, list[Any], dict[int, int]]:
    """A table whose hand is in play, and each player's chips (wallet plus
    Hold'em stack) just before it was dealt. The deal is a real, fair one (these
    tests recompute decks from the seeds); the players' seeds are chosen so it
    is no instant win, which would end the hand at once."""
    table, users = seated_table(make_user, game, players)
    before = holdings(users)
    server_seed = TableSeed.objects.get(table=table).server_seed
    names = [f"seed-{user.pk}" for user in users]
    chosen = seeds_for_a_hand_in_play(server_seed, f"{table.pk}-1", names)
    for user, seed in zip(users, chosen, strict=True):
        services.table_ready(table_id=table.pk, user=user, client_seed=seed)
    hand = current_hand(table)
    assert hand is not None
    assert hand.ended_at is None
    assert hand.client_seeds == chosen
    return table, users, before


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
