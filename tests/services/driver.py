"""Playing whole hands through the services, humans moving with the bot policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games import services
from games.errors import NotEnoughChips
from games.models import Hand, Seat, Table
from games.plugins import engine_for

from ..registry import buy_in, seat_count
from ..seeds import ORDINARY, Dealer
from ..tables import Harness


def play_until_finished(harness: Harness, table: Table, max_steps: int = 2000) -> Hand:
    """Drive the current hand to its end: bots move through the recorded tasks,
    humans through ``table_act`` with the bot policy on their own view."""
    engine = engine_for(table.game)
    for step in range(max_steps):
        harness.drain()
        table.refresh_from_db()
        assert table.current_hand_id is not None
        hand = Hand.objects.get(pk=table.current_hand_id)
        if hand.ended_at is not None:
            return hand
        state = engine.loads(hand.state)
        status = engine.status(state)
        humans = {s.position: s.user for s in Seat.objects.filter(table=table, is_bot=False)}
        movers = [i for i in status.actors if hand.players[i]["position"] in humans]
        if not movers:
            harness.fire(table)
            continue
        player = movers[0]
        action = engine.bot_action(engine.view(state, player), seed=step)
        services.table_act(
            table_id=table.pk,
            user=humans[hand.players[player]["position"]],
            action=action,
            client_id=f"h{hand.pk}-{step}",
            version=table.version,
        )
    raise AssertionError("the hand did not finish")


def seated_table(make_user: Any, game: str, humans: int, bots: int) -> tuple[Table, list[Any]]:
    """A four-seat table of ``game`` (fewer if the game seats fewer; stake 2)
    with ``humans`` people (the first owns it; a buy-in of 400 where chips sit
    on the seat) and ``bots`` bots, nobody ready."""
    owner = make_user()
    table = services.table_create(owner=owner, game=game, stake=2, seat_count=seat_count(game))
    users = [owner] + [make_user() for _ in range(humans - 1)]
    for user in users:
        services.table_sit(table_id=table.pk, user=user, buy_in=buy_in(game, 400))
    for _ in range(bots):
        services.table_add_bot(table_id=table.pk, user=owner)
    return table, users


def ready_all(table: Table) -> None:
    """Ready every human, each with a new seed for the next hand (a seed is
    never used twice); a Hold'em player who went broke buys in again first."""
    number = Table.objects.get(pk=table.pk).hands_played + 1
    for seat in Seat.objects.filter(table=table, is_bot=False, ready=False):
        seed = f"s{seat.pk}-{number}"
        try:
            services.table_ready(table_id=table.pk, user=seat.user, client_seed=seed)
        except NotEnoughChips:
            services.table_buy_in(table_id=table.pk, user=seat.user, amount=400)
            services.table_ready(table_id=table.pk, user=seat.user, client_seed=seed)


def next_hand(harness: Harness, table: Table) -> None:
    """End the summary pause and ready everyone for the next hand."""
    harness.drain()
    table.refresh_from_db()
    if table.status == Table.Status.SUMMARY:
        harness.fire(table)
    harness.drain()
    ready_all(table)
    harness.drain()


def cards_in(payload: Any) -> set[str]:
    from ..tables import payload_cards

    return payload_cards(payload)


def in_play(dealer: Dealer, open_table: Callable[[], Table], *, first: int = 0) -> Table:
    """The table ``open_table`` deals, its hand in play with a turn clock
    running: the players are dealt ``ORDINARY`` hands (no tới trắng, which
    would end the hand at once), and player ``first`` leads."""
    dealer.stack(*ORDINARY, first=first)
    table = open_table()
    table.refresh_from_db()
    assert table.clock == "turn"  # the engine's turn clock
    assert not dealer.stacked  # this deal was the stacked one
    return table
