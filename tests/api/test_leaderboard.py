"""The leaderboard: net chips per game, this week (from Monday 00:00 in
Asia/Ho_Chi_Minh) and all time; people only."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from accounts.avatars import default_avatar
from games import services
from games.models import Hand, HandPlayer
from games.selectors import week_start
from wallet.services import bot_signup

from .helpers import error, url

pytestmark = pytest.mark.django_db
SAIGON = ZoneInfo("Asia/Ho_Chi_Minh")


@pytest.mark.parametrize(
    ("now", "monday"),
    [
        (datetime(2026, 11, 22, 23, 30, tzinfo=SAIGON), datetime(2026, 11, 16, tzinfo=SAIGON)),
        (datetime(2026, 11, 23, 0, 0, tzinfo=SAIGON), datetime(2026, 11, 23, tzinfo=SAIGON)),
        (datetime(2026, 11, 22, 17, 30, tzinfo=UTC), datetime(2026, 11, 23, tzinfo=SAIGON)),
        (datetime(2026, 11, 22, 16, 59, tzinfo=UTC), datetime(2026, 11, 16, tzinfo=SAIGON)),
    ],
)
def test_the_week_starts_on_monday_midnight_in_saigon(now, monday):
    assert week_start(now) == monday


def settled(table, number, ended_at, nets, voided=False):
    hand = Hand.objects.create(
        table=table,
        number=number,
        game=table.game,
        commitment="c" * 64,
        server_seed="0" * 64,
        players=[
            {"position": i, "user_id": u.pk, "name": u.shown_name, "bot": u.is_bot}
            for i, u in enumerate(nets)
        ],
        ended_at=ended_at,
        settled=True,
        voided=voided,
    )
    for i, (user, net) in enumerate(nets.items()):
        HandPlayer.objects.create(
            hand=hand, user=user, index=i, position=i, net=None if voided else net
        )
    return hand


def test_people_ranked_by_net_chips_this_week_and_all_time(make_user, api):
    lan, minh, hoa, gone = (make_user(username=n) for n in ("lan", "minh", "hoa", "gone"))
    bot = bot_signup(username="bot-1", display_name="Minh Anh")
    hoa.avatar = "non-la"
    hoa.save()
    tienlen = services.table_create(owner=lan, game="tienlen", stake=10)
    holdem = services.table_create(owner=lan, game="holdem", stake=10)
    monday = week_start()
    last_week = monday - timedelta(seconds=1)
    settled(tienlen, 1, last_week, {lan: 500, minh: -500})
    settled(tienlen, 2, monday, {lan: -100, minh: 300, bot: -200})
    settled(tienlen, 3, monday + timedelta(hours=1), {hoa: 200, bot: 900, gone: -1100})
    settled(tienlen, 4, monday + timedelta(hours=2), {lan: 9_999, minh: -9_999}, voided=True)
    settled(holdem, 1, monday, {lan: 40, minh: -40})
    gone.is_active = False
    gone.save()

    week = api().get(url("leaderboard"), {"game": "tienlen"}).json()
    ever = api(lan).get(url("leaderboard"), {"game": "tienlen", "period": "all"}).json()
    top = api().get(url("leaderboard"), {"game": "tienlen", "period": "all", "limit": 1}).json()
    poker = api().get(url("leaderboard"), {"game": "holdem"}).json()

    assert week == {
        "game": "tienlen",
        "period": "week",
        "since": monday.isoformat(),
        "entries": [
            {
                "rank": 1,
                "user_id": minh.pk,
                "name": "Minh",
                "avatar": default_avatar(minh.pk),
                "net": 300,
                "hands": 1,
            },
            {
                "rank": 2,
                "user_id": hoa.pk,
                "name": "Hoa",
                "avatar": "non-la",
                "net": 200,
                "hands": 1,
            },
            {
                "rank": 3,
                "user_id": lan.pk,
                "name": "Lan",
                "avatar": default_avatar(lan.pk),
                "net": -100,
                "hands": 1,
            },
        ],
    }
    assert ever["since"] is None
    assert [(e["rank"], e["name"], e["net"], e["hands"]) for e in ever["entries"]] == [
        (1, "Lan", 400, 2),
        (2, "Hoa", 200, 1),
        (3, "Minh", -200, 2),
    ]
    assert [e["name"] for e in top["entries"]] == ["Lan"]
    assert [(e["name"], e["net"]) for e in poker["entries"]] == [("Lan", 40), ("Minh", -40)]


def test_equal_nets_share_a_rank(make_user, api):
    lan, minh, hoa = make_user(), make_user(), make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=10)
    settled(table, 1, week_start(), {lan: 100, minh: 100, hoa: -200})

    board = api().get(url("leaderboard"), {"game": "maubinh"}).json()

    assert [e["rank"] for e in board["entries"]] == [1, 1, 3]


@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ({}, {"game"}),
        ({"game": "chess"}, {"game"}),
        ({"game": "holdem", "period": "month", "limit": 0}, {"period", "limit"}),
    ],
)
def test_bad_leaderboard_queries(api, query, fields):
    response = api().get(url("leaderboard"), query)

    assert error(response) == (400, "invalid")
    assert set(response.json()["details"]) == fields
