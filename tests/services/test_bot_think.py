"""Issue 32 item 8: bots that feel human. A bot's pause depends on the
decision and the game, is read from what every player sees (never its own
cards), and stays within its clock (games.thinking)."""

from __future__ import annotations

import pytest

from games import services, thinking
from games.models import Table
from games.plugins import plugin_for
from games.rules.holdem.bot import think as holdem_think
from games.rules.tienlen.bot import think as tienlen_think

pytestmark = pytest.mark.django_db


def mau_binh_bots(tables, make_user, **numbers):
    """A player and three bots at a Mậu Binh table, the hand dealt: each bot's
    arranging is scheduled."""
    lan = make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=10, seat_count=4, **numbers)
    services.table_sit(table_id=table.pk, user=lan)
    for _ in range(3):
        services.table_add_bot(table_id=table.pk, user=lan)
    tables.drain()  # the bots ready
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    hand = table.current_hand
    assert hand is not None
    delays = [
        ms for (t, h, _), ms in tables.scheduler.bot_delays.items() if (t, h) == (table.pk, hand.pk)
    ]
    assert len(delays) == 3
    return table, delays


def test_mau_binh_bots_arrange_over_tens_of_seconds(tables, make_user):
    _, delays = mau_binh_bots(tables, make_user, arrange_seconds=90)
    # 20 ordinary decisions of the table's 0.5–1.5 s, under 60 % of 90 s
    assert all(10_000 <= ms <= 30_000 for ms in delays), delays
    assert len(set(delays)) == 3  # each bot its own pace


def test_a_bot_never_thinks_past_its_clock(tables, make_user):
    _, delays = mau_binh_bots(tables, make_user, arrange_seconds=20)
    assert all(ms <= thinking.THINK_SHARE * 20_000 for ms in delays), delays


def test_the_pause_is_read_from_what_every_player_sees(tables, make_user, monkeypatch):
    seen = []
    plugin = plugin_for("maubinh")
    real = type(plugin).bot_think

    def spy(self, view, player):
        seen.append(view)
        return real(self, view, player)

    monkeypatch.setattr(type(plugin), "bot_think", spy)
    mau_binh_bots(tables, make_user)
    assert seen
    assert all(v["you"] is None for v in seen)  # the spectators' view


def test_the_sweeper_finds_the_pause_a_move_was_scheduled_with(tables, make_user):
    table, delays = mau_binh_bots(tables, make_user)
    table = Table.objects.get(pk=table.pk)
    hand = table.current_hand
    assert hand is not None
    plugin = plugin_for("maubinh")
    state = plugin.engine.loads(hand.state)
    again = [
        thinking.think_ms(plugin, table, hand, state, i)
        for i, player in enumerate(hand.players)
        if player["position"] != 0
    ]
    assert sorted(again) == sorted(delays)


def tien_len_view(counts, table=None, left=None):
    return {
        "card_counts": counts,
        "table": None if table is None else {"player": 1, "cards": table, "combination": "single"},
        "left": left or [False] * len(counts),
    }


def test_tien_len_weighs_the_decision_not_the_cards():
    first_lead = tienlen_think(tien_len_view([13, 13, 13, 13]), 0)
    lead = tienlen_think(tien_len_view([8, 9, 10, 11]), 0)
    follow = tienlen_think(tien_len_view([8, 9, 10, 11], ["9s"]), 0)
    answer_a_two = tienlen_think(tien_len_view([8, 9, 10, 11], ["2h"]), 0)
    last_cards = tienlen_think(tien_len_view([2, 9, 10, 11], ["9s"]), 0)
    pressed = tienlen_think(tien_len_view([8, 1, 10, 11], ["9s"]), 0)
    assert first_lead > lead > follow > last_cards
    assert answer_a_two > follow
    assert pressed > follow
    # An opponent who has left, with two cards, does not press.
    gone = tien_len_view([8, 2, 10, 11], ["9s"], left=[False, True, False, False])
    assert tienlen_think(gone, 0) == follow


def holdem_view(to_call, stack, board=()):
    return {"to_call": to_call, "stacks": [stack, 1000], "board": list(board)}


def test_holdem_a_free_check_is_quick_and_a_big_call_slow():
    check = holdem_think(holdem_view(0, 1000), 0)
    small = holdem_think(holdem_view(20, 1000), 0)
    all_in = holdem_think(holdem_view(1000, 1000), 0)
    assert check < small < all_in
    river = holdem_think(holdem_view(20, 1000, ["As", "Kd", "7c", "2h", "9s"]), 0)
    assert river > small
