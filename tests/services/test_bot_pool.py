"""Issue 34 S-08: ten accounts took the whole bot pool. Each player, and the
players of one client address together, hold at most their share of the pool;
the bots of a table whose people are gone go back to it; the pool grows on
demand up to BOT_POOL_SIZE, and its refusals and use are measured."""

import pytest
from django.utils import timezone, translation

from accounts.models import User
from games import services, tasks
from games.errors import GameError, TooManyBots, TooManyBotsAddress
from games.models import Departure, Seat, Table
from wallet import services as wallet
from wallet.models import Account

from ..ops.helpers import value
from ..seeds import ORDINARY
from ..tables import assert_money_consistent
from ..wallet.helpers import snapshot
from .bots_at_once import bots_asked_for_at_once
from .driver import play_until_finished

pytestmark = pytest.mark.django_db

LOAN = 60  # what a bot borrows at a stake-1 Tiến Lên table: twice its minimum balance


@pytest.fixture
def shares(settings):
    """The shipped defaults, whatever the environment says."""
    settings.BOT_POOL_SIZE = 50
    settings.MAX_BOT_SEATS_PER_USER = 6
    settings.BOT_SHARE_PER_USER_PERCENT = 8  # 4 bots
    settings.BOT_SHARE_PER_ADDRESS_PERCENT = 30  # 15 bots
    settings.BOT_RELEASE_SECONDS = 90
    return settings


def house() -> int:
    return wallet.house_account().balance


def seats() -> list[tuple[object, ...]]:
    return list(Seat.objects.order_by("pk").values_list())


def ask_until_refused(user: User, address: str, tables: list[Table], wanted: int) -> list[str]:
    """The player asks for ``wanted`` bots, filling their tables in turn:
    "seated" or the refusal's code for each."""
    answers = []
    for i in range(wanted):
        board = tables[i // 3]
        try:
            services.table_add_bot(table_id=board.pk, user=user, address=address)
            answers.append("seated")
        except GameError as err:
            answers.append(err.code)
    return answers


def two_tables(owner: User) -> list[Table]:
    return [
        services.table_create(owner=owner, game="tienlen", stake=1, seat_count=4) for _ in range(2)
    ]


def test_ten_accounts_asking_for_every_bot_leave_bots_for_an_eleventh(shares, make_user, tables):
    """The attack: ten accounts (ten addresses) each ask for the most bots
    they may have (MAX_BOT_SEATS_PER_USER). Each gets its share, four; the
    pool keeps ten bots, and an eleventh player's "play now" table fills."""
    attackers = [make_user() for _ in range(10)]
    for i, attacker in enumerate(attackers):
        answers = ask_until_refused(attacker, f"198.51.100.{i + 1}", two_tables(attacker), 6)
        assert answers == ["seated"] * 4 + ["too_many_bots"] * 2
    assert Seat.objects.filter(is_bot=True).count() == 40

    minh = make_user()
    board = services.table_create(
        owner=minh, game="tienlen", stake=1, seat_count=4, fill_with_bots=True
    )
    services.table_sit(table_id=board.pk, user=minh, address="203.0.113.50")

    assert Seat.objects.filter(table=board, is_bot=True).count() == 3
    assert Seat.objects.filter(is_bot=True).count() == 43
    assert User.objects.filter(is_bot=True).count() == 43
    assert_money_consistent()


def test_a_refused_bot_changes_nothing_and_says_so_in_both_languages(shares, make_user, tables):
    lan = make_user()
    boards = two_tables(lan)
    assert ask_until_refused(lan, "198.51.100.7", boards, 4) == ["seated"] * 4
    before = snapshot(), seats(), User.objects.filter(is_bot=True).count()

    with pytest.raises(TooManyBots) as err:
        services.table_add_bot(table_id=boards[1].pk, user=lan, address="198.51.100.7")

    assert err.value.code == "too_many_bots"
    assert (snapshot(), seats(), User.objects.filter(is_bot=True).count()) == before
    with translation.override("en"):
        assert str(err.value.message) == (
            "You already have 4 bots playing at your tables: no more for now."
        )


def test_the_accounts_of_one_address_hold_at_most_its_share(shares, make_user, tables):
    """Four accounts behind one address: 15 bots between them (30 % of 50),
    then ``too_many_bots_address`` for any of them, changing nothing; an
    account elsewhere, and staff, are not counted with them."""
    here = "203.0.113.7"
    players = [make_user() for _ in range(4)]
    answers = [ask_until_refused(p, here, two_tables(p), 4) for p in players]
    assert answers == [["seated"] * 4] * 3 + [["seated"] * 3 + ["too_many_bots_address"]]
    assert Seat.objects.filter(is_bot=True, bot_for_address=here).count() == 15

    fifth = make_user()
    board = services.table_create(owner=fifth, game="tienlen", stake=1, seat_count=4)
    before = snapshot(), seats(), User.objects.filter(is_bot=True).count()
    with pytest.raises(TooManyBotsAddress) as err:
        services.table_add_bot(table_id=board.pk, user=fifth, address=here)
    assert err.value.code == "too_many_bots_address"
    assert err.value.status == 409
    assert (snapshot(), seats(), User.objects.filter(is_bot=True).count()) == before
    assert str(err.value.message) == (
        "Mấy tài khoản chung địa chỉ mạng với bạn đang có 15 bot chơi rồi: "
        "tạm thời chưa thêm được nữa."
    )
    with translation.override("en"):
        assert str(err.value.message) == (
            "Players at your address already have 15 bots playing: no more for now."
        )

    services.table_add_bot(table_id=board.pk, user=fifth, address="203.0.113.8")
    staff = make_user(is_staff=True)
    services.table_add_bot(table_id=board.pk, user=staff, address=here)
    assert Seat.objects.filter(table=board, is_bot=True).count() == 2
    assert Seat.objects.filter(is_bot=True, bot_for_address=here).count() == 15

    # A "play now" table from that address is refused whole: no seat, no hold.
    sixth = make_user()
    play = services.table_create(
        owner=sixth, game="tienlen", stake=1, seat_count=4, fill_with_bots=True
    )
    unchanged = snapshot(), seats()
    with pytest.raises(TooManyBotsAddress):
        services.table_sit(table_id=play.pk, user=sixth, address=here)
    assert (snapshot(), seats()) == unchanged

    # Closing a table gives the address its bots back.
    closed = Seat.objects.filter(bot_for=players[0]).values_list("table_id", flat=True)[0]
    services.table_close(table_id=closed, by=players[0])
    services.table_add_bot(table_id=board.pk, user=fifth, address=here)


@pytest.mark.django_db(transaction=True)
def test_accounts_of_one_address_asking_at_once_stop_at_its_share(shares, make_user, tables):
    """Eight accounts behind one address, each at its own table, ask at the
    same moment: each request locks a different player's row and table, and
    the address's count is taken under the house's row: exactly its share."""
    shares.BOT_SHARE_PER_ADDRESS_PERCENT = 6  # 3 bots of 50
    here = "203.0.113.9"
    owners = [make_user() for _ in range(8)]
    boards = [services.table_create(owner=o, game="tienlen", stake=1, seat_count=2) for o in owners]
    float_ = house()

    answers = bots_asked_for_at_once([(b, o, here) for b, o in zip(boards, owners, strict=True)])

    assert answers == ["seated"] * 3 + ["too_many_bots_address"] * 5
    assert Seat.objects.filter(is_bot=True, bot_for_address=here).count() == 3
    assert house() == float_ - 3 * LOAN
    assert_money_consistent()


@pytest.mark.django_db(transaction=True)
def test_the_pool_grows_on_demand_up_to_its_cap_under_concurrent_requests(
    shares, make_user, tables
):
    """One bot exists and is busy; eight players ask at once, each from its
    own address. The pool creates accounts as needed, one at a time under the
    house's row, up to BOT_POOL_SIZE (4): three more, five refusals counted."""
    shares.BOT_POOL_SIZE = 4
    first = make_user()
    busy = services.table_create(owner=first, game="tienlen", stake=1, seat_count=2)
    services.table_add_bot(table_id=busy.pk, user=first, address="198.51.100.1")
    assert User.objects.filter(is_bot=True).count() == 1
    owners = [make_user() for _ in range(8)]
    boards = [services.table_create(owner=o, game="tienlen", stake=1, seat_count=2) for o in owners]
    refused = value("vipgame_bots_refused_total", reason="pool")
    float_ = house()

    answers = bots_asked_for_at_once(
        [
            (b, o, f"198.51.100.{10 + i}")
            for i, (b, o) in enumerate(zip(boards, owners, strict=True))
        ]
    )

    assert answers == ["no_bot_available"] * 5 + ["seated"] * 3
    assert User.objects.filter(is_bot=True).count() == 4
    assert Seat.objects.filter(is_bot=True).values("user").distinct().count() == 4
    assert house() == float_ - 3 * LOAN
    assert value("vipgame_bots_refused_total", reason="pool") == refused + 5
    assert value("vipgame_bots_in_use") == 4
    assert value("vipgame_bot_pool_size") == 4
    assert value("vipgame_bot_pool_cap") == 4
    assert_money_consistent()


def test_the_pool_metrics_follow_bots_in_and_out(shares, make_user, tables):
    shares.BOT_POOL_SIZE = 5
    shares.MAX_BOT_SEATS_PER_USER = 2
    shares.BOT_SHARE_PER_USER_PERCENT = 100
    shares.BOT_SHARE_PER_ADDRESS_PERCENT = 40  # 2 bots per address
    lan, minh = make_user(), make_user()
    board = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=4)
    other = services.table_create(owner=minh, game="tienlen", stake=1, seat_count=4)
    counted = {r: value("vipgame_bots_refused_total", reason=r) for r in ("player", "address")}

    for _ in range(2):
        services.table_add_bot(table_id=board.pk, user=lan, address="198.51.100.3")
    assert (value("vipgame_bots_in_use"), value("vipgame_bot_pool_size")) == (2, 2)
    assert value("vipgame_bot_pool_cap") == 5
    with pytest.raises(TooManyBots):
        services.table_add_bot(table_id=board.pk, user=lan, address="198.51.100.3")
    with pytest.raises(TooManyBotsAddress):
        services.table_add_bot(table_id=other.pk, user=minh, address="198.51.100.3")
    services.table_add_bot(table_id=other.pk, user=minh, address="198.51.100.4")

    assert value("vipgame_bots_refused_total", reason="player") == counted["player"] + 1
    assert value("vipgame_bots_refused_total", reason="address") == counted["address"] + 1
    assert (value("vipgame_bots_in_use"), value("vipgame_bot_pool_size")) == (3, 3)
    services.table_close(table_id=board.pk, by=lan)
    assert (value("vipgame_bots_in_use"), value("vipgame_bot_pool_size")) == (1, 3)


# -- bots of tables without people ---------------------------------------------------


def catch_up(tables) -> None:
    """The test clock to the wall clock (seats stamp ``joined_at`` with it)."""
    tables.clock.moment = max(tables.clock.moment, timezone.now())


def test_bots_go_back_when_the_people_have_been_gone_a_while(shares, make_user, tables):
    """Poker (no ready clock sends the player away). The player's socket
    closes; the table's ``active_at`` is bumped all along (as bots' moves
    would): after BOT_RELEASE_SECONDS without a connected person, the sweeper
    sends the bots back, their chips to the house. The player's seat, its
    socket gone, is not held either (issue 32): freed as a leave, the stack
    back in the wallet."""
    lan = make_user()
    start = wallet.account_for_user(user=lan).balance
    board = services.table_create(owner=lan, game="holdem", stake=1, seat_count=4)
    services.table_sit(table_id=board.pk, user=lan, buy_in=40, address="198.51.100.5")
    services.seat_presence(table_id=board.pk, user=lan, delta=1)
    for _ in range(2):
        services.table_add_bot(table_id=board.pk, user=lan, address="198.51.100.5")
    tables.drain()
    float_ = house()
    catch_up(tables)

    tables.clock.advance(minutes=10)  # connected: the bots stay, however long
    services.sockets_heartbeat([(board.pk, lan)])
    assert tasks.sweeper()["released"] == 0
    services.seat_presence(table_id=board.pk, user=lan, delta=-1)  # the socket closes
    for _ in range(89):
        tables.clock.advance(seconds=1)
        Table.objects.filter(pk=board.pk).update(active_at=tables.clock.now())
        assert tasks.sweeper()["released"] == 0
    assert Seat.objects.filter(table=board, is_bot=True).count() == 2

    tables.clock.advance(seconds=1)
    assert tasks.sweeper()["released"] == 1

    assert not Seat.objects.filter(table=board).exists()
    assert Table.objects.get(pk=board.pk).status == Table.Status.WAITING
    assert house() == float_ + 2 * 80  # each bot's Poker buy-in
    assert all(a.balance == 0 for a in Account.objects.filter(user__is_bot=True))
    assert Departure.objects.get(table=board).user == lan
    assert wallet.account_for_user(user=lan).available == start  # the 40 back
    assert_money_consistent()


def test_bots_at_a_table_nobody_sits_at_go_back(shares, make_user, tables):
    """The owner seats bots and never sits: no person is there; the bots go
    back BOT_RELEASE_SECONDS after the last one was seated."""
    lan = make_user()
    board = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=4)
    for _ in range(3):
        services.table_add_bot(table_id=board.pk, user=lan, address="198.51.100.6")
    tables.drain()
    catch_up(tables)

    tables.clock.advance(seconds=89)
    assert tasks.sweeper()["released"] == 0
    tables.clock.advance(seconds=2)
    assert tasks.sweeper()["released"] == 1

    assert not Seat.objects.filter(table=board).exists()
    assert ask_until_refused(lan, "198.51.100.6", [board], 3) == ["seated"] * 3


def test_bots_wait_for_the_end_of_a_hand_on(shares, make_user, tables, dealer):
    """The player is gone mid-hand: the bots stay until it is settled, then go."""
    dealer.stack(*ORDINARY)  # no tới trắng, which would end the hand at the deal
    lan = make_user()
    board = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    services.table_sit(table_id=board.pk, user=lan)
    services.table_add_bot(table_id=board.pk, user=lan)
    tables.drain()
    services.table_ready(table_id=board.pk, user=lan)
    assert Table.objects.get(pk=board.pk).status == Table.Status.PLAYING
    catch_up(tables)

    tables.clock.advance(seconds=200)
    assert services.table_release_bots(table_id=board.pk) == 0
    assert Seat.objects.filter(table=board, is_bot=True).count() == 1
    play_until_finished(tables, board)
    tables.drain()
    assert Table.objects.get(pk=board.pk).status == Table.Status.SUMMARY  # settled
    tables.clock.advance(seconds=200)
    assert services.table_release_bots(table_id=board.pk) == 1
    assert not Seat.objects.filter(table=board, is_bot=True).exists()


def test_the_api_counts_the_request_s_client_address(shares, make_user, tables):
    """The edge passes the request's client address (``kernel.net``): two
    accounts from one address share its budget, one elsewhere does not."""
    from rest_framework.test import APIClient

    from accounts.sessions import token_issue

    shares.BOT_SHARE_PER_ADDRESS_PERCENT = 2  # 1 bot of 50
    lan, minh, an = make_user(), make_user(), make_user()

    def ask(user: User, address: str) -> tuple[int, str]:
        board = services.table_create(owner=user, game="tienlen", stake=1, seat_count=4)
        api = APIClient(REMOTE_ADDR=address)
        api.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user)}")
        answer = api.post(f"/api/v1/tables/{board.pk}/bots", {}, format="json")
        return answer.status_code, answer.json().get("code", "")

    assert ask(lan, "203.0.113.20") == (200, "")
    before = snapshot(), seats()
    assert ask(minh, "203.0.113.20") == (409, "too_many_bots_address")
    assert (snapshot(), seats()) == before
    assert ask(an, "203.0.113.21") == (200, "")
    assert list(Seat.objects.filter(is_bot=True).values_list("bot_for_address", flat=True)) == [
        "203.0.113.20",
        "203.0.113.21",
    ]
