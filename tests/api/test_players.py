"""Players' identity: avatars (listed, picked, refused with stable codes) and
the card a tap on a seat shows (name, avatar, hands played, net chips this
week); bots' names."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from accounts import avatars
from accounts.avatars import AVATARS, default_avatar
from accounts.bots import BOT_FAMILY_NAMES, BOT_GIVEN_NAMES, bot_name
from accounts.models import User
from games import services
from games.selectors import week_start
from wallet.services import bot_signup

from .helpers import error, url
from .test_leaderboard import settled

pytestmark = pytest.mark.django_db
STATIC = Path(settings.BASE_DIR) / "static" / avatars.FOLDER


def test_the_avatar_files_are_the_generators_output():
    assert 12 <= len(AVATARS) <= 16
    assert sorted(p.name for p in STATIC.glob("*.svg")) == sorted(f"{k}.svg" for k in AVATARS)
    for face in avatars.FACES:
        drawn = avatars.svg(face)
        assert (STATIC / f"{face.key}.svg").read_text(encoding="utf-8") == drawn, face.key
        assert drawn.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
        assert "http" not in drawn.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert len({avatars.svg(face) for face in avatars.FACES}) == len(AVATARS)


def test_the_default_avatar_follows_the_id():
    assert [default_avatar(n) for n in range(len(AVATARS) + 1)] == [*AVATARS, AVATARS[0]]


def test_my_avatar_and_those_i_may_pick(make_user, api):
    lan = make_user()

    body = api(lan).get(url("me/avatar"), HTTP_ACCEPT_LANGUAGE="vi").json()

    assert body["avatar"] == default_avatar(lan.pk)
    assert body["picked"] is False
    assert [a["key"] for a in body["avatars"]] == list(AVATARS)
    assert body["avatars"][0] == {
        "key": "non-la",
        "name": "Nón lá",
        "url": "/static/img/avatars/non-la.svg",
    }


def test_picking_an_avatar_saves_it_and_tables_show_it(make_user, api):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=5)
    services.table_sit(table_id=table.pk, user=lan)

    response = api(lan).post(url("me/avatar"), {"avatar": "farmer"}, format="json")

    assert response.status_code == 200
    assert response.json()["avatar"] == "farmer"
    assert response.json()["avatar_url"] == "/static/img/avatars/farmer.svg"
    assert User.objects.get(pk=lan.pk).avatar == "farmer"
    assert api(lan).get(url("me/avatar")).json()["picked"] is True
    state = api(lan).get(url(f"tables/{table.pk}")).json()
    assert [(s["user_id"], s["avatar"]) for s in state["table"]["seats"]] == [(lan.pk, "farmer")]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"avatar": "dragon"}, "unknown_avatar"),
        ({"avatar": ""}, "unknown_avatar"),
        ({"avatar": 3}, "unknown_avatar"),
        ({"avatar": None}, "invalid"),
        ({"avatar": ["cap"]}, "unknown_avatar"),
        ({"avatar": "../../etc/passwd"}, "unknown_avatar"),
        ({}, "invalid"),
    ],
)
def test_a_bad_avatar_is_refused_and_changes_nothing(make_user, api, body, code):
    lan = make_user()
    lan.avatar = "cap"
    lan.save()

    response = api(lan, "en").post(url("me/avatar"), body, format="json")

    assert error(response) == (400, code)
    if code == "unknown_avatar":
        assert response.json()["message"] == "Pick one of the avatars offered."
        assert response.json()["details"] == {"avatars": list(AVATARS)}
    assert User.objects.get(pk=lan.pk).avatar == "cap"


def test_the_refusal_speaks_vietnamese_by_default(make_user, api):
    response = api(make_user()).post(url("me/avatar"), {"avatar": "x"}, format="json")

    assert error(response) == (400, "unknown_avatar")
    assert response.json()["message"] == "Hãy chọn một trong các ảnh đại diện có sẵn."


def test_avatars_need_a_log_in(api):
    assert error(api().get(url("me/avatar"))) == (401, "not_authenticated")
    assert error(api().post(url("me/avatar"), {"avatar": "cap"}, format="json")) == (
        401,
        "not_authenticated",
    )


def test_a_players_card_counts_settled_hands_and_this_weeks_net(make_user, api):
    lan, minh = make_user(username="lan"), make_user(username="minh")
    lan.avatar = "bun"
    lan.save()
    table = services.table_create(owner=lan, game="tienlen", stake=10)
    monday = week_start()
    settled(table, 1, monday - timedelta(seconds=1), {lan: 500, minh: -500})
    settled(table, 2, monday, {lan: -120, minh: 120})
    settled(table, 3, monday + timedelta(hours=2), {lan: 70, minh: -70})
    settled(table, 4, monday + timedelta(hours=3), {lan: 9_999, minh: -9_999}, voided=True)

    card = api().get(url(f"players/{lan.pk}")).json()

    assert card == {
        "id": lan.pk,
        "name": "Lan",
        "avatar": "bun",
        "avatar_url": "/static/img/avatars/bun.svg",
        "bot": False,
        "hands": 3,
        "net_week": -50,
        "since": monday.isoformat(),
    }
    assert api(minh).get(url(f"players/{minh.pk}")).json()["net_week"] == 50


def test_a_new_player_and_a_bot_seated_at_a_public_table_have_cards_too(make_user, api):
    lan = make_user(username="lan")
    table = services.table_create(owner=lan, game="tienlen", stake=5)
    services.table_sit(table_id=table.pk, user=lan)
    bot = services.table_add_bot(table_id=table.pk, user=lan).user

    fresh = api().get(url(f"players/{lan.pk}")).json()
    robot = api().get(url(f"players/{bot.pk}")).json()

    assert (fresh["hands"], fresh["net_week"], fresh["avatar"]) == (0, 0, default_avatar(lan.pk))
    assert (robot["name"], robot["bot"], robot["hands"]) == ("Minh Anh", True, 0)


def test_no_card_for_a_missing_or_deactivated_player(make_user, api):
    gone = make_user()
    gone.is_active = False
    gone.save()

    for user_id in (gone.pk, gone.pk + 1000):
        response = api().get(url(f"players/{user_id}"))
        assert error(response) == (404, "player_not_found")


# -- bots' names ---------------------------------------------------------------


def test_bot_names_are_ordinary_unique_and_without_digits():
    names = [bot_name(i) for i in range(len(BOT_GIVEN_NAMES) * (len(BOT_FAMILY_NAMES) + 1))]

    assert len(set(names)) == len(names)
    assert not [n for n in names if re.search(r"\d", n)]
    assert names[:2] == ["Minh Anh", "Quốc Bảo"]
    assert names[len(BOT_GIVEN_NAMES)] == "Nguyễn Minh Anh"
    assert len(set(names[: settings.BOT_POOL_SIZE])) == settings.BOT_POOL_SIZE


@override_settings(BOT_POOL_SIZE=3, BOT_SHARE_PER_USER_PERCENT=100)
def test_the_pool_names_its_bots_in_order(make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=5, seat_count=4)
    services.table_sit(table_id=table.pk, user=lan)
    for _ in range(3):
        services.table_add_bot(table_id=table.pk, user=lan)

    names = list(
        User.objects.filter(is_bot=True).order_by("pk").values_list("display_name", flat=True)
    )

    assert names == ["Minh Anh", "Quốc Bảo", "Thu Hà"]


def test_the_data_migration_renames_the_pools_bots():
    import importlib

    from django.apps import apps

    migration = importlib.import_module("accounts.migrations.0004_bot_names")
    old = [bot_signup(username=f"bot-{n}-aa", display_name=f"An {n}") for n in (1, 2)]

    migration.rename_bots(apps, None)

    assert [User.objects.get(pk=b.pk).display_name for b in old] == ["Minh Anh", "Quốc Bảo"]
