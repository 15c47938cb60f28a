"""Issue 16 §2, the pages: my profile (the avatar I pick), the leaderboard,
the home page's welcome with the daily bonus and its game tiles, the table's
rules named as players read them. The live parts are in tests/e2e/test_identity.py."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from accounts.avatars import AVATARS
from accounts.models import User
from games import services
from games.plugins import PLUGINS
from games.selectors import week_start
from wallet.selectors import bonus_claimed_today

from ..api.test_leaderboard import settled

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_my_profile_offers_every_avatar_and_saves_the_one_i_pick(make_user):
    lan = make_user()
    client = logged_in(lan)

    page = client.get(reverse("profile")).content.decode()
    saved = client.post(reverse("profile"), {"avatar": "grandpa"}, follow=True)

    assert re.findall(r'data-avatar-choice="([^"]+)"', page) == list(AVATARS)
    assert f'value="{lan.avatar_key}" checked' in page
    assert User.objects.get(pk=lan.pk).avatar == "grandpa"
    assert saved.redirect_chain == [("/accounts/profile/", 302)]
    assert "Đã lưu ảnh đại diện của bạn." in saved.content.decode()
    assert 'data-my-avatar="grandpa"' in saved.content.decode()


@pytest.mark.parametrize("avatar", ["", "dragon", "../cap"])
def test_a_bad_pick_is_refused_and_changes_nothing(make_user, avatar):
    lan = make_user()
    lan.avatar = "cap"
    lan.save()

    response = logged_in(lan).post(reverse("profile"), {"avatar": avatar} if avatar else {})

    assert response.status_code == 400
    assert "Hãy chọn một trong các ảnh đại diện có sẵn." in response.content.decode()
    assert User.objects.get(pk=lan.pk).avatar == "cap"


def test_the_profile_needs_a_log_in():
    response = Client().get(reverse("profile"))

    assert (response.status_code, response["Location"]) == (
        302,
        "/accounts/login/?next=/accounts/profile/",
    )


def test_the_leaderboard_page_ranks_people_with_their_avatars(make_user):
    lan, minh = make_user(username="lan"), make_user(username="minh")
    minh.avatar = "uncle"
    minh.save()
    table = services.table_create(owner=lan, game="holdem", stake=10)
    settled(table, 1, week_start() + timedelta(hours=1), {lan: -1_500, minh: 1_500})

    week = Client().get(reverse("leaderboard"), {"game": "holdem"}).content.decode()
    other = Client().get(reverse("leaderboard"), {"game": "chess", "period": "x"})

    rows = re.findall(r'data-board-row="(\d+)"', week)
    assert rows == [str(minh.pk), str(lan.pk)]
    assert "/static/img/avatars/uncle.svg" in week
    assert "+1.500" in week
    assert "-1.500" in week
    assert other.status_code == 200
    assert 'data-leaderboard="maubinh" data-period="week"' in other.content.decode()


def test_every_page_links_the_leaderboard():
    page = Client().get(reverse("home")).content.decode()

    assert f'href="{reverse("leaderboard")}" data-nav-leaderboard' in page


def test_home_tiles_open_each_game_and_play_now():
    page = Client().get(reverse("home")).content.decode()

    for game in PLUGINS:
        assert f'href="/tables/?game={game}" data-game-lobby="{game}"' in page
        assert f'href="/tables/play/{game}/" data-home-play-now="{game}"' in page
    assert "data-welcome" not in page


def test_home_welcomes_me_with_the_daily_bonus_until_i_claim_it(make_user, settings):
    settings.DAILY_BONUS = 2_000
    lan = make_user(username="lan")
    client = logged_in(lan)

    before = client.get(reverse("home")).content.decode()
    claimed = client.post(reverse("wallet-bonus"), {"back": "home"}, follow=True)
    after = claimed.content.decode()

    assert "Chào mừng Lan!" in before
    assert "Thưởng hằng ngày 2.000 chip đang chờ bạn." in before
    assert "data-bonus-prompt" in before
    assert claimed.redirect_chain == [("/", 302)]
    assert bonus_claimed_today(lan)
    assert "Đã nhận thưởng hằng ngày: +2.000 chip." in after
    assert "data-bonus-prompt" not in after
    assert "data-bonus-claimed" in after


def test_the_wallet_page_still_claims_for_itself(make_user):
    response = logged_in(make_user()).post(reverse("wallet-bonus"))

    assert response["Location"] == reverse("wallet")


def test_the_table_names_its_rules_as_players_read_them(make_user):
    lan = make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=5, preset="classic")

    page = Client().get(reverse("table", args=[table.pk])).content.decode()

    assert "Luật: Cổ điển" in page
