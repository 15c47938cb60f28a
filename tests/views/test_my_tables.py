"""Your tables in the browser (issue 30, item 3): the home page and the lobby
list where you sit, what you own and where you were invited; the lobby shows
your private tables to you alone; the table page lets its owner close it,
after a confirmation. (lobby.js drawing them live: tests/e2e/test_site.py.)"""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Invitation, Seat, Table
from games.plugins import plugin_for

from .test_pages import client_for

pytestmark = pytest.mark.django_db


def json_script(response, name: str):
    html = response.content.decode()
    found = re.search(rf'<script id="{name}" type="application/json">(.*?)</script>', html, re.S)
    assert found is not None, name
    return json.loads(found.group(1))


def my_rows(response) -> dict[int, str]:
    """The home page's "your tables": table id -> the row's text, squeezed."""
    html = response.content.decode()
    rows = re.findall(r'<li class="my-table [a-z]+" data-my-table="(\d+)">(.*?)</li>', html, re.S)
    return {int(pk): " ".join(re.sub(r"<[^>]+>", " ", text).split()) for pk, text in rows}


def test_the_home_page_shows_where_you_sit_what_you_own_and_where_you_were_invited(
    make_user, tables, settings
):
    settings.MAX_OPEN_TABLES_PER_USER = 10
    lan, an = make_user(), make_user()
    owned = services.table_create(owner=lan, game="tienlen", stake=10, name="Bàn Lan")
    sitting = services.table_create(owner=an, game="maubinh", stake=20)
    services.table_sit(table_id=sitting.pk, user=lan)
    private = services.table_create(owner=an, game="holdem", stake=5, is_private=True)
    client_for(lan).get(f"/tables/{private.pk}/?invite={private.invite_code}")  # the link
    services.table_create(owner=an, game="tienlen", stake=1, name="Không phải của Lan")

    page = client_for(lan).get(reverse("home"))

    rows = my_rows(page)
    assert list(rows) == [sitting.pk, owned.pk, private.pk]
    held = plugin_for("maubinh").money.min_balance(sitting)  # the wallet hold of the seat
    assert rows[sitting.pk] == (
        f"Bàn {sitting.pk} Mậu Binh · Cược 20 · 1/4 ghế Đang chờ người chơi Bạn ngồi ở đây"
        f" Ghế của bạn đang giữ {held} chip Về ghế của bạn"
    )
    assert rows[owned.pk] == "Bàn Lan Tiến Lên · Cược 10 · 0/4 ghế Đang chờ người chơi Bàn của bạn"
    assert rows[private.pk].endswith("Bàn riêng Được mời")
    html = page.content.decode()
    for table in (owned, sitting, private):
        assert f'href="/tables/{table.pk}/"' in html
    assert "Không phải của Lan" not in html
    assert private.invite_code not in html
    assert "data-my-tables" not in client_for(make_user()).get(reverse("home")).content.decode()
    assert "data-my-tables" not in Client().get(reverse("home")).content.decode()


def test_the_home_page_says_when_you_are_in_the_hand_in_play(make_user, tables):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=minh, game="holdem", stake=1, seat_count=2)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user, buy_in=100)
        services.table_ready(table_id=table.pk, user=user)

    assert "Bạn đang chơi ở đây" in my_rows(client_for(lan).get(reverse("home")))[table.pk]
    english = client_for(lan)
    english.cookies["django_language"] = "en"
    row = my_rows(english.get(reverse("home")))[table.pk]
    assert row.endswith("You are playing here 100 chips held at your seat Back to your seat")


def test_the_lobby_page_lists_your_tables_and_your_private_ones_to_you_alone(make_user, tables):
    lan, minh, stranger = make_user(), make_user(), make_user()
    private = services.table_create(owner=lan, game="tienlen", stake=10, is_private=True)
    public = services.table_create(owner=make_user(), game="tienlen", stake=10)
    services.table_sit(table_id=private.pk, user=minh, invite_code=private.invite_code)

    for user in (lan, minh):
        page = client_for(user).get(reverse("lobby"))
        assert {t["id"] for t in json_script(page, "lobby-tables")} == {private.pk, public.pk}
        mine = json_script(page, "my-tables")
        assert mine["user"] == user.pk
        (entry,) = mine["tables"]
        assert entry["id"] == private.pk
        assert entry["players"][0]["user_id"] == minh.pk
        assert private.invite_code not in page.content.decode()
    assert {(e["owned"], e["invited"], e["seat"] is not None) for e in mine["tables"]} == {
        (False, True, True)
    }
    assert "data-my-tables-panel hidden" not in page.content.decode()
    for client in (client_for(stranger), Client()):
        page = client.get(reverse("lobby"))
        assert {t["id"] for t in json_script(page, "lobby-tables")} == {public.pk}
        assert json_script(page, "my-tables")["tables"] == []
        assert "data-my-tables-panel hidden" in page.content.decode()
    assert json_script(Client().get(reverse("lobby")), "my-tables")["user"] is None


def test_an_invite_link_opened_once_opens_the_table_from_then_on(make_user, tables):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=10, is_private=True)
    page = f"/tables/{table.pk}/"

    assert client_for(minh).get(page + "?invite=wrong").status_code == 403
    assert not Invitation.objects.exists()
    assert client_for(minh).get(f"{page}?invite={table.invite_code}").status_code == 200
    assert client_for(minh).get(page).status_code == 200
    assert Invitation.objects.get().user == minh
    assert client_for(make_user()).get(page).status_code == 403


def test_the_owner_closes_the_table_from_its_page_after_a_confirmation(make_user, tables):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=10)
    services.table_sit(table_id=table.pk, user=minh)
    page = f"/tables/{table.pk}/"
    close = reverse("table-close", args=[table.pk])

    owners = client_for(lan).get(page).content.decode()
    assert "data-close-table" in owners
    assert f'action="{close}"' in owners
    assert "Đóng hẳn bàn này?" in owners  # the confirmation, before the button
    for client in (client_for(minh), Client()):
        assert "data-close-table" not in client.get(page).content.decode()

    refused = client_for(minh).post(close, follow=True)
    assert "Chỉ chủ bàn mới làm được việc này." in refused.content.decode()
    assert Client().post(close)["Location"].startswith(reverse("login"))
    assert client_for(lan).get(close).status_code == 405
    assert Table.objects.get(pk=table.pk).status == Table.Status.WAITING

    closed = client_for(lan).post(close)

    assert closed.status_code == 302
    assert closed["Location"] == page
    table.refresh_from_db()
    assert (table.status, table.closed_reason) == (Table.Status.CLOSED, "Chủ bàn đã đóng bàn.")
    assert not Seat.objects.filter(table=table).exists()
    after = client_for(lan).get(page).content.decode()
    assert "Bàn đã đóng: Chủ bàn đã đóng bàn." in after
    assert "data-close-table" not in after
    assert client_for(lan).post(close).status_code == 302  # again: nothing more happens
    assert client_for(lan).post(reverse("table-close", args=[999999])).status_code == 404
