"""Issue "The house finished" item 2: migration 0013 moves each game's own
columns (Table 8, Seat 1) and the rule options into ``Table.settings``, and
what a game keeps between hands into ``Table.carry`` / ``Seat.carry``; the
plugins then read them where the columns were read. Run on rows saved at the
schema before it, and back."""

from __future__ import annotations

import pytest

from games.models import Seat, Table
from games.plugins import plugin_for

from ..migrating import back_at, models_at

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = "0012_holdem_one_home_per_knob"
AFTER = "0013_game_settings_and_carry"


def test_the_columns_and_options_move_into_settings_and_carry_and_back(make_user):
    lan, minh = make_user(), make_user()
    with back_at("games", BEFORE) as forward:
        old = models_at("games", BEFORE)
        OldTable, OldSeat = old.get_model("games", "Table"), old.get_model("games", "Seat")
        common = {"stake": 2, "seat_count": 4, "next_commitment": "0", "owner_id": lan.pk}
        poker = OldTable.objects.create(
            game="holdem", max_raise=7, buy_in_min=30, buy_in_max=80, button_position=3,
            options={"small_blind_units": 2}, **common,
        )  # fmt: skip
        cards = OldTable.objects.create(
            game="tienlen", min_balance_units=40, last_winner_position=1,
            options={"cong_penalty": 5}, **common,
        )  # fmt: skip
        chinese = OldTable.objects.create(
            game="maubinh", min_balance_units=50, arrange_seconds=30, reveal_seconds=2,
            options={"four_aces_top": True}, **common,
        )  # fmt: skip
        fresh = OldTable.objects.create(game="tienlen", **common)
        banked = OldSeat.objects.create(
            table=poker, position=4, user_id=lan.pk, time_bank_ms=12_000
        )
        OldSeat.objects.create(table=cards, position=1, user_id=minh.pk, time_bank_ms=12_000)

        forward(AFTER)

        # (the columns of later migrations are not there yet: not read)
        tables = Table.objects.defer("money").in_bulk([poker.pk, cards.pk, chinese.pk, fresh.pk])
        assert tables[poker.pk].settings == {
            "small_blind_units": 2, "max_raise": 7, "buy_in_min": 30, "buy_in_max": 80,
        }  # fmt: skip
        assert tables[poker.pk].carry == {"button": 3}
        assert tables[cards.pk].settings == {"cong_penalty": 5, "min_balance_units": 40}
        assert tables[cards.pk].carry == {"last_winner": 1}
        assert tables[chinese.pk].settings == {
            "four_aces_top": True, "min_balance_units": 50, "arrange_seconds": 30,
            "reveal_seconds": 2,
        }  # fmt: skip
        assert tables[chinese.pk].carry == {}
        assert tables[fresh.pk].settings == {"min_balance_units": 30}
        assert tables[fresh.pk].carry == {}
        seats = {s.table_id: s for s in Seat.objects.defer("stack")}
        assert seats[poker.pk].carry == {"time_bank_ms": 12_000}
        assert seats[cards.pk].carry == {}  # Tiến Lên kept no time bank

        # The plugins read the moved values where the columns were read.
        holdem, tienlen = plugin_for("holdem"), plugin_for("tienlen")
        assert holdem.money.buy_in_range(tables[poker.pk]) == (30 * 4, 80 * 4)
        assert holdem.ruleset(tables[poker.pk]).small_blind_units == 2
        setup = holdem.setup(tables[poker.pk], [seats[poker.pk]], [0], [100])
        assert (setup["max_raise"], setup["button"], setup["time_banks_ms"]) == (7, 0, [12_000])
        assert tienlen.money.min_balance(tables[cards.pk]) == 40 * 2
        # The last winner (seat 1) leads: player 0 of a hand dealt to that seat.
        assert tienlen.setup(tables[cards.pk], [seats[cards.pk]], [0], [0])["previous_winner"] == 0
        assert plugin_for("maubinh").clock_ms(tables[chinese.pk], "reveal") == 2_000

        back = forward(BEFORE)

        rows = back.get_model("games", "Table").objects.in_bulk([poker.pk, cards.pk, chinese.pk])
        assert (rows[poker.pk].max_raise, rows[poker.pk].buy_in_min, rows[poker.pk].buy_in_max) == (
            7, 30, 80,
        )  # fmt: skip
        assert rows[poker.pk].button_position == 3
        assert rows[poker.pk].options == {"small_blind_units": 2}
        assert (rows[cards.pk].min_balance_units, rows[cards.pk].last_winner_position) == (40, 1)
        assert rows[cards.pk].options == {"cong_penalty": 5}
        assert (rows[chinese.pk].arrange_seconds, rows[chinese.pk].reveal_seconds) == (30, 2)
        assert back.get_model("games", "Seat").objects.get(pk=banked.pk).time_bank_ms == 12_000
