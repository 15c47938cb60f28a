"""Issue 13 item 6: no chip faucet. Caps on open tables and bot seats per
player, a bounded pool of bot accounts reused across tables, bot chips lent by
the house and taken back (never minted by issuance), idle tables closed, and
what bots win or lose in one place for staff."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import User
from accounts.sessions import token_issue
from games import services, tasks
from games.errors import NoBotAvailable, TooManyBots
from games.models import Hand, Seat, Table
from wallet import services as wallet
from wallet.models import Account, LedgerTransaction

from ..registry import GAMES, buy_in, seat_count
from ..tables import assert_money_consistent
from ..wallet.helpers import assert_ledger_consistent, snapshot
from .bots_at_once import bots_asked_for_at_once
from .driver import next_hand, play_until_finished

pytestmark = pytest.mark.django_db


def issuance() -> int:
    return Account.objects.get(kind=Account.Kind.ISSUANCE).balance


def house() -> int:
    return wallet.house_account().balance


def test_forty_tables_in_a_burst_stop_at_the_cap(tables, make_user, settings):
    settings.MAX_OPEN_TABLES_PER_USER = 3
    lan = make_user()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=lan)}")

    answers = [
        api.post("/api/v1/tables", {"game": "tienlen", "stake": 1}, format="json")
        for _ in range(40)
    ]

    assert [a.status_code for a in answers[:3]] == [201] * 3
    refused = answers[3:]
    assert {a.status_code for a in refused} == {409}
    assert {a.json()["code"] for a in refused} == {"too_many_tables"}
    assert "3" in refused[0].json()["message"]
    assert Table.objects.filter(owner=lan).count() == 3
    # Closing one frees a place.
    services.table_close(table_id=Table.objects.filter(owner=lan).earliest("pk").pk, by=lan)
    assert api.post("/api/v1/tables", {"game": "tienlen", "stake": 1}).status_code == 201


def test_bot_seats_past_the_cap_are_refused(tables, make_user, settings):
    settings.MAX_BOT_SEATS_PER_USER = 6
    settings.BOT_SHARE_PER_USER_PERCENT = 100  # the absolute cap is the lower one here
    lan = make_user()
    boards = [
        services.table_create(owner=lan, game="tienlen", stake=1, seat_count=4) for _ in range(3)
    ]
    for board in boards[:2]:
        for _ in range(3):
            services.table_add_bot(table_id=board.pk, user=lan)
    before = snapshot(), list(Seat.objects.order_by("pk").values())

    with pytest.raises(TooManyBots) as err:
        services.table_add_bot(table_id=boards[2].pk, user=lan)

    assert err.value.code == "too_many_bots"
    assert (snapshot(), list(Seat.objects.order_by("pk").values())) == before
    assert Seat.objects.filter(is_bot=True, bot_for=lan).count() == 6


@pytest.mark.django_db(transaction=True)
def test_bot_seats_asked_for_at_once_at_many_tables_stop_at_the_cap(tables, make_user, settings):
    """The burst: one player seated at eight tables asks for a bot at each at
    the same moment. Each request locks its own table, so the cap is counted
    under the player's own row: exactly the cap gets through."""
    settings.MAX_BOT_SEATS_PER_USER = 2
    lan = make_user()
    boards = []
    for _ in range(8):
        board = services.table_create(owner=make_user(), game="holdem", stake=1, seat_count=2)
        services.table_sit(table_id=board.pk, user=lan, buy_in=40)
        boards.append(board)
    float_ = house()

    answers = bots_asked_for_at_once([(board, lan, None) for board in boards])

    assert answers == ["seated"] * 2 + ["too_many_bots"] * 6
    assert Seat.objects.filter(is_bot=True, bot_for=lan).count() == 2
    assert house() == float_ - 2 * 80  # two bots lent a Poker buy-in each, no more
    assert_money_consistent()


def test_bot_requests_reuse_a_bounded_pool(tables, make_user, settings):
    settings.BOT_POOL_SIZE = 3
    settings.BOT_SHARE_PER_USER_PERCENT = 100
    lan, minh = make_user(), make_user()
    for _ in range(5):  # open, fill with bots, close: again and again
        board = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=4)
        for _ in range(3):
            services.table_add_bot(table_id=board.pk, user=lan)
        services.table_close(table_id=board.pk, by=lan)
    assert User.objects.filter(is_bot=True).count() == 3

    busy = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=4)
    for _ in range(3):
        services.table_add_bot(table_id=busy.pk, user=lan)
    other = services.table_create(owner=minh, game="tienlen", stake=1, seat_count=4)
    before = snapshot()
    with pytest.raises(NoBotAvailable):  # every bot of the pool is seated
        services.table_add_bot(table_id=other.pk, user=minh)
    assert snapshot() == before
    assert User.objects.filter(is_bot=True).count() == 3


@pytest.mark.django_db(transaction=True)
def test_bots_asked_for_at_once_at_many_tables_never_grow_the_pool_past_its_size(
    tables, make_user, settings
):
    """The burst: eight players each ask for a bot at their own table at the
    same moment, the pool empty. Each request saw an empty pool, so each would
    add an account: the pool grows one account at a time, and stops at its size."""
    settings.BOT_POOL_SIZE = 3
    owners = [make_user() for _ in range(8)]
    boards = [
        services.table_create(owner=owner, game="tienlen", stake=1, seat_count=2)
        for owner in owners
    ]
    float_, minted = house(), issuance()

    answers = bots_asked_for_at_once([(b, o, None) for b, o in zip(boards, owners, strict=True)])

    assert answers == ["no_bot_available"] * 5 + ["seated"] * 3
    assert User.objects.filter(is_bot=True).count() == 3
    seated = Seat.objects.filter(is_bot=True)
    assert seated.count() == 3
    assert len({s.user_id for s in seated}) == 3  # each bot at one table
    assert Account.objects.filter(user__is_bot=True).count() == 3
    # Three bots lent twice a stake-1 Tiến Lên table's minimum balance; the
    # refused requests moved nothing.
    assert house() == float_ - 3 * 60
    assert issuance() == minted
    assert_money_consistent()


@pytest.mark.parametrize("game", GAMES)
def test_bots_are_funded_by_the_house_and_issuance_never_moves(tables, make_user, game):
    lan = make_user()
    wallet.house_account()  # the house's float: once, before anything here
    minted = issuance()
    float_ = house()

    board = services.table_create(owner=lan, game=game, stake=10, seat_count=seat_count(game))
    services.table_sit(table_id=board.pk, user=lan, buy_in=buy_in(game, 400))
    for _ in range(seat_count(game, 3) - 1):
        services.table_add_bot(table_id=board.pk, user=lan)
    tables.drain()
    services.table_ready(table_id=board.pk, user=lan)
    for _ in range(3):
        play_until_finished(tables, board)
        next_hand(tables, board)
    # Bots are topped up by the house as they lose (never by issuance).
    assert issuance() == minted
    loans = LedgerTransaction.objects.filter(kind="bot_loan")
    assert loans.exists()
    assert all({e.account.kind for e in t.entries.all()} == {"house", "user"} for t in loans)

    services.table_close(table_id=board.pk, by=lan, reason="done")
    human = Account.objects.get(user=lan, kind="user").balance
    bots = Account.objects.filter(user__is_bot=True)

    # Every bot chip is back in the house: what the human won came from it.
    assert all(b.balance == 0 for b in bots)
    net_human = human - 10_000
    assert house() == float_ - net_human
    assert issuance() == minted
    assert_ledger_consistent()
    assert_money_consistent()


def test_beating_a_bot_moves_chips_from_the_house_not_issuance(tables, make_user):
    lan = make_user()
    board = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
    services.table_sit(table_id=board.pk, user=lan)
    float_ = house()  # the float (once) first
    minted = issuance()
    services.table_add_bot(table_id=board.pk, user=lan)
    tables.drain()
    bot = Seat.objects.get(table=board, is_bot=True).user
    lent = Account.objects.get(user=bot, kind="user").balance
    assert lent == 600  # twice the table's minimum balance, from the house
    assert house() == float_ - lent
    assert issuance() == minted

    services.table_ready(table_id=board.pk, user=lan)
    hand = play_until_finished(tables, board)
    tables.drain()
    hand = Hand.objects.get(pk=hand.pk)
    services.table_leave(table_id=board.pk, user=lan)
    services.table_close(table_id=board.pk, by=lan)

    assert hand.result is not None
    won = hand.result["chips"][[p["user_id"] for p in hand.players].index(lan.pk)]
    assert Account.objects.get(user=lan, kind="user").balance == 10_000 + won
    assert house() == float_ - won
    assert issuance() == minted
    assert Account.objects.get(user=bot, kind="user").balance == 0


def test_an_empty_house_seats_no_bot(tables, make_user, settings):
    settings.HOUSE_FLOAT = 100  # far below what a bot needs at stake 10
    lan = make_user()
    board = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
    wallet.house_account()
    before = snapshot()
    with pytest.raises(NoBotAvailable):
        services.table_add_bot(table_id=board.pk, user=lan)
    assert snapshot() == before


def test_idle_tables_are_closed_and_bots_return_their_chips(tables, make_user, settings):
    settings.TABLE_IDLE_MINUTES = 15
    lan = make_user()
    board = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=4)
    services.table_sit(table_id=board.pk, user=lan)
    services.table_add_bot(table_id=board.pk, user=lan)
    float_ = house()

    tables.clock.advance(minutes=14)
    assert tasks.close_idle_tables() == 0
    tables.clock.advance(minutes=2)
    assert tasks.close_idle_tables() == 1

    board.refresh_from_db()
    assert board.status == Table.Status.CLOSED
    assert board.closed_reason
    assert not Seat.objects.filter(table=board).exists()
    assert house() == float_ + 600  # the bot's loan came back
    assert Account.objects.get(user=lan, kind="user").held == 0


def test_staff_see_the_house_and_what_bots_won(tables, make_user, client):
    staff, lan = make_user(is_staff=True), make_user()
    board = services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
    services.table_sit(table_id=board.pk, user=lan)
    services.table_add_bot(table_id=board.pk, user=lan)
    client.force_login(staff)

    page = client.get(reverse("admin:wallet_account_house"))

    assert page.status_code == 200
    assert page.context["float"] == 1_000_000
    assert page.context["lent"] == 600
    assert page.context["bots_net"] == 0
    assert "bot_loan" not in page.content.decode()  # kinds are shown by name
    assert "Chip cho bot mượn" in page.content.decode()


def test_the_last_person_leaving_sends_the_bots_home(tables, make_user, settings):
    """Leaving a "play now" table frees its bots at once (pool, house, the
    player's bot-seat count), and the next person to sit fills it again: a
    player can go from table to table without reaching the bot cap."""
    settings.MAX_BOT_SEATS_PER_USER = 3
    lan = make_user()
    float_ = house()
    for game in [*GAMES, GAMES[1]]:  # (the second game's table again: filled again)
        table = Table.objects.filter(owner=lan, game=game).first() or services.table_create(
            owner=lan, game=game, stake=1, seat_count=seat_count(game), fill_with_bots=True
        )
        services.table_sit(table_id=table.pk, user=lan, buy_in=buy_in(game, 40))
        assert Seat.objects.filter(table=table, is_bot=True).count() == seat_count(game) - 1
        services.table_leave(table_id=table.pk, user=lan)
        assert not Seat.objects.filter(table=table).exists()
    assert house() == float_
    assert all(a.balance == 0 for a in Account.objects.filter(user__is_bot=True))
    assert Table.objects.filter(owner=lan).count() == len(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_leaving_mid_hand_frees_the_seat_and_the_bots_at_settlement(tables, make_user, game):
    lan = make_user()
    float_ = house()
    table = services.table_create(
        owner=lan, game=game, stake=1, seat_count=seat_count(game), fill_with_bots=True
    )
    services.table_sit(table_id=table.pk, user=lan, buy_in=buy_in(game, 40))
    tables.drain()
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    assert table.current_hand_id is not None

    services.table_leave(table_id=table.pk, user=lan)
    while not Hand.objects.get(pk=table.current_hand_id).settled:
        tables.drain()
        tables.fire(table)

    assert not Seat.objects.filter(table=table).exists()
    net = Account.objects.get(user=lan, kind="user").balance - 10_000
    assert house() == float_ - net
    assert Account.objects.get(user=lan, kind="user").held == 0
    assert_money_consistent()
