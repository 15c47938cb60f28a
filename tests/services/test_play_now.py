"""Issue 32, item 1: "play now" plays. One tap seats the player at a table
with bots (or takes them back to the seat they hold, never a second buy-in),
readies them and deals; bots of a table they left stop counting against
their share at once; a seat whose socket has gone is freed by the table's
own clocks; play-now tables are the house's and never block creating one."""

from __future__ import annotations

import pytest
from django.utils import timezone

from accounts.models import User
from games import services
from games.errors import TooManyBots
from games.models import Departure, Hand, HandPlayer, Seat, Table
from wallet import services as wallet

from ..registry import GAMES
from ..seeds import ORDINARY
from ..tables import assert_money_consistent
from .driver import play_until_finished

pytestmark = pytest.mark.django_db


@pytest.fixture
def shares(settings):
    """A player's share of the bot pool: one play-now table's bots."""
    settings.BOT_POOL_SIZE = 50
    settings.BOT_SHARE_PER_USER_PERCENT = 100
    settings.MAX_BOT_SEATS_PER_USER = 3
    settings.BOT_SHARE_PER_ADDRESS_PERCENT = 100
    settings.MAX_OPEN_TABLES_PER_USER = 3
    return settings


def balance(user: User) -> int:
    return wallet.account_for_user(user=user).balance


def catch_up(tables) -> None:
    """The test clock to the wall clock (seats stamp ``joined_at`` with it)."""
    tables.clock.moment = max(tables.clock.moment, timezone.now())


@pytest.mark.parametrize("game", GAMES)
def test_one_tap_deals_without_a_ready_tap(game, make_user, tables, dealer):
    """The seat and the bots' are ready in the tap's own change: the hand is
    dealt before the page even opens, no bot ready-up task waited for."""
    dealer.stack(*ORDINARY)  # no tới trắng, which would end the hand at the deal
    lan = make_user()
    table = services.table_play_now(user=lan, game=game)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert table.current_hand_id is not None
    hand = Hand.objects.get(pk=table.current_hand_id)
    assert lan.pk in [p["user_id"] for p in hand.players]
    assert len(hand.players) == Seat.objects.filter(table=table).count() >= 2
    assert tables.scheduler.readies == []


@pytest.mark.parametrize("game", GAMES)
def test_a_second_tap_with_the_seat_held_goes_back_to_it(game, make_user, tables):
    """The tab closed (its socket gone), the seat held: play now again takes
    the player back to that table, no second table, no second buy-in or hold."""
    lan = make_user()
    first = services.table_play_now(user=lan, game=game)
    services.seat_presence(table_id=first.pk, user=lan, delta=1)
    services.seat_presence(table_id=first.pk, user=lan, delta=-1)  # the tab closes
    before = balance(lan), wallet.account_for_user(user=lan).available
    again = services.table_play_now(user=lan, game=game)
    assert again.pk == first.pk
    assert Table.objects.filter(game=game).count() == 1
    assert Seat.objects.filter(user=lan).count() == 1
    assert (balance(lan), wallet.account_for_user(user=lan).available) == before


def test_bots_of_a_table_left_mid_hand_stop_counting_at_once(shares, make_user, tables):
    """The player leaves a hand in play: its bots play it out, but no longer
    count against the player's share, who plays now at another game at once."""
    lan = make_user()
    first, second = GAMES[0], GAMES[1]
    table = services.table_play_now(user=lan, game=first)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
    with pytest.raises(TooManyBots):  # the share is held: one table's bots
        services.table_play_now(user=lan, game=second)
    assert not Table.objects.filter(game=second).exists()  # refused, nothing changed
    services.table_leave(table_id=table.pk, user=lan)
    assert Seat.objects.filter(table=table, is_bot=True).exists()  # still in the hand

    other = services.table_play_now(user=lan, game=second)
    assert Seat.objects.filter(table=other, user=lan).exists()
    assert Seat.objects.filter(table=other, is_bot=True, bot_for=lan).count() >= 1


def test_bots_of_a_table_left_between_hands_to_others_stop_counting(shares, make_user, tables):
    """Two people at a play-now table: the one who asked for the bots leaves
    between hands; the bots stay with the other, counted against nobody."""
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game=GAMES[0], stake=10, seat_count=4)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    services.table_add_bot(table_id=table.pk, user=lan)
    services.table_leave(table_id=table.pk, user=lan)
    assert Seat.objects.filter(table=table, is_bot=True, bot_for=None).count() == 1
    other = services.table_play_now(user=lan, game=GAMES[1])
    assert Seat.objects.filter(table=other, user=lan).exists()


def test_play_now_tables_never_block_creating_a_table(settings, make_user, tables):
    """After play now at every game (still seated at each), the player may
    still open their MAX_OPEN_TABLES_PER_USER tables: play-now tables are the
    house's."""
    settings.MAX_BOT_SEATS_PER_USER = 50
    settings.BOT_SHARE_PER_USER_PERCENT = 100
    lan = make_user()
    for game in GAMES:
        table = services.table_play_now(user=lan, game=game)
        assert table.owner_id is None
    for _ in range(settings.MAX_OPEN_TABLES_PER_USER):
        services.table_create(owner=lan, game=GAMES[0], stake=2, seat_count=2)
    assert Table.objects.filter(owner=lan).count() == settings.MAX_OPEN_TABLES_PER_USER


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_whose_socket_has_gone_is_freed_between_hands(game, make_user, tables):
    """The tab closes mid-hand: the turn clock plays for the player as usual;
    when the hand is over and the socket has been gone for the table's ready
    clock, the seat is freed as a leave (chips back exactly, told why); its
    bots go back to the pool."""
    lan = make_user()
    start = balance(lan)
    catch_up(tables)
    table = services.table_play_now(user=lan, game=game)
    services.seat_presence(table_id=table.pk, user=lan, delta=1)
    services.seat_presence(table_id=table.pk, user=lan, delta=-1)
    hand = play_until_finished(tables, table)
    tables.drain()
    tables.clock.advance(seconds=table.ready_seconds + 1)
    table.refresh_from_db()
    while table.status == Table.Status.SUMMARY:
        tables.fire(table)
        tables.drain()
        table.refresh_from_db()
    assert not Seat.objects.filter(table=table, user=lan).exists()
    assert not Seat.objects.filter(table=table).exists()  # the bots went back too
    assert Departure.objects.get(table=table, user=lan).reason == Departure.Reason.NOT_READY
    net = HandPlayer.objects.get(hand=hand, user=lan).net
    assert net is not None  # settled
    assert balance(lan) == start + net
    assert wallet.account_for_user(user=lan).available == balance(lan)  # nothing held
    assert_money_consistent()


@pytest.mark.parametrize("game", GAMES)
def test_a_connected_seat_is_kept_between_hands(game, make_user, tables):
    """The rule frees only seats whose socket has gone: a player whose page is
    open stays seated, however long the hand took."""
    lan = make_user()
    catch_up(tables)
    table = services.table_play_now(user=lan, game=game)
    services.seat_presence(table_id=table.pk, user=lan, delta=1)
    play_until_finished(tables, table)
    tables.drain()
    tables.clock.advance(seconds=table.ready_seconds + 1)
    services.sockets_heartbeat([(table.pk, lan)])
    table.refresh_from_db()
    if table.status == Table.Status.SUMMARY:
        tables.fire(table)
        tables.drain()
    assert Seat.objects.filter(table=table, user=lan).exists()
