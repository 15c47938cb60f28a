"""What a game carries between hands (``Table.carry``) is declared by the
service after the plugin computed it (``GamePlugin.table_carry``), written
with the hand's end, and read by the next hand's setup: Hold'em's button
moves on, Tiến Lên's last winner leads the next hand."""

from __future__ import annotations

import pytest

from games import services
from games.models import Hand, Table
from games.plugins import plugin_for

from ..tables import assert_money_consistent
from .driver import play_until_finished

pytestmark = pytest.mark.django_db


def _table(make_user, tables, game: str, players: int, **sit):
    people = [make_user() for _ in range(players)]
    table = services.table_create(owner=people[0], game=game, stake=1, seat_count=players)
    for user in people:
        services.table_sit(table_id=table.pk, user=user, **sit)
    for user in people:
        services.table_ready(table_id=table.pk, user=user)
    tables.drain()
    table.refresh_from_db()
    return table


def test_the_button_carried_after_a_poker_hand_moves_to_the_next_seat(tables, make_user):
    table = _table(make_user, tables, "holdem", 3, buy_in=200)
    first = play_until_finished(tables, table)
    tables.drain()
    table.refresh_from_db()
    button = first.players[first.setup["button"]]["position"]
    assert table.carry["button"] == button
    tables.fire(table)  # the summary ends: Hold'em seats stay ready, the next hand is dealt
    tables.drain()
    table.refresh_from_db()
    second = Hand.objects.get(pk=table.current_hand_id)
    assert second.number == 2
    positions = [p["position"] for p in second.players]
    later = [p for p in positions if p > button]
    assert second.players[second.setup["button"]]["position"] == (later or positions)[0]
    assert_money_consistent()


def test_the_last_winner_carried_after_a_tien_len_hand_leads_the_next(tables, make_user):
    table = _table(make_user, tables, "tienlen", 3)
    first = play_until_finished(tables, table)
    tables.drain()
    table.refresh_from_db()
    assert isinstance(first.result, dict)
    winner = first.result["summary"].get("winner")
    expected = first.players[winner]["position"] if isinstance(winner, int) else None
    assert table.carry == {"last_winner": expected}
    seats = list(table.seats.order_by("position"))
    setup = plugin_for("tienlen").setup(table, seats, [0], [0] * len(seats))
    positions = [s.position for s in seats]
    assert setup["previous_winner"] == (None if expected is None else positions.index(expected))
    assert Table.objects.get(pk=table.pk).carry == table.carry
    assert_money_consistent()
