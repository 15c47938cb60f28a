"""The browser pages (games/views.py): lobby, play now, quick join, create,
table pages, history and replays. The live parts are tested in tests/e2e."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import ChatMessage, Hand, Seat, Table, TableSeed
from games.plugins import plugin_for

from ..services.driver import play_until_finished, ready_all

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def config_of(response) -> dict:
    html = response.content.decode()
    start = html.index('id="table-config"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


def test_lobby_is_vietnamese_by_default_and_english_on_request(make_user):
    response = Client().get(reverse("lobby"))
    assert response.status_code == 200
    assert "Bàn đang mở" in response.content.decode()
    english = Client()
    english.cookies["django_language"] = "en"
    assert "Open tables" in english.get(reverse("lobby")).content.decode()


def test_javascript_catalog_speaks_vietnamese():
    text = Client().get(reverse("javascript-catalog")).content.decode()
    assert '"Ready": "S\\u1eb5n s\\u00e0ng"' in text


def test_play_now_asks_a_visitor_to_log_in_and_comes_back():
    response = Client().get(reverse("play-now", args=["tienlen"]))
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=/tables/play/tienlen/"
    assert Client().post(reverse("play-now", args=["tienlen"])).status_code == 302
    assert Table.objects.count() == 0


def test_play_now_seats_the_player_with_bots_in_the_empty_seats(make_user, tables):
    lan = make_user()
    response = client_for(lan).post(reverse("play-now", args=["maubinh"]))
    table = Table.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/tables/{table.pk}/"
    seats = list(Seat.objects.filter(table=table).order_by("position"))
    assert [(s.position, s.is_bot) for s in seats] == [(0, False), (1, True), (2, True), (3, True)]
    assert seats[0].user == lan
    assert (table.stake, table.fill_with_bots, table.is_private) == (10, True, False)


def test_play_now_reuses_a_table_of_bots_nobody_is_at(make_user, tables):
    lan, minh = make_user(), make_user()
    client_for(lan).post(reverse("play-now", args=["tienlen"]))
    table = Table.objects.get()
    services.table_leave(table_id=table.pk, user=lan)  # the hand dealt at once plays out
    play_until_finished(tables, table)
    tables.drain()
    assert not Seat.objects.filter(table=table).exists()
    client_for(minh).post(reverse("play-now", args=["tienlen"]))
    assert Table.objects.count() == 1
    assert Seat.objects.get(table=table, is_bot=False).user == minh


def test_play_now_of_an_unknown_game_is_not_found(make_user):
    assert client_for(make_user()).get("/tables/play/chess/").status_code == 404


def test_quick_join_sits_at_an_open_table_of_that_stake(make_user, tables):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=50, seat_count=2)
    services.table_create(owner=lan, game="tienlen", stake=10, seat_count=2)
    response = client_for(minh).post(reverse("quick-join"), {"game": "tienlen", "stake": 50})
    assert response["Location"] == f"/tables/{table.pk}/"
    assert Seat.objects.get(user=minh).table == table


def test_quick_join_opens_a_new_table_when_none_has_a_seat(make_user, tables):
    lan, minh, an = make_user(), make_user(), make_user()
    full = services.table_create(owner=lan, game="tienlen", stake=50, seat_count=2)
    services.table_sit(table_id=full.pk, user=lan)
    services.table_sit(table_id=full.pk, user=minh)
    client_for(an).post(reverse("quick-join"), {"game": "tienlen", "stake": 50})
    table = Seat.objects.get(user=an).table
    assert table != full
    assert (table.game, table.stake, table.is_private, table.owner) == ("tienlen", 50, False, an)


def test_quick_join_refused_changes_nothing(make_user, tables):
    lan = make_user()
    client = client_for(lan)
    response = client.post(reverse("quick-join"), {"game": "maubinh", "stake": 1000}, follow=True)
    assert Table.objects.count() == 0
    assert Seat.objects.count() == 0
    assert "Bạn cần ít nhất 30.000 chip để ngồi vào bàn này." in response.content.decode()


def test_create_table_with_bad_settings_shows_the_form_again(make_user, tables):
    response = client_for(make_user()).post(
        reverse("table-new"), {"game": "maubinh", "preset": "vipgame", "stake": 10, "seat_count": 9}
    )
    assert response.status_code == 400
    assert response.context["form"].errors["seat_count"] == ["Trò chơi này dành cho 2 đến 4 người."]
    assert Table.objects.count() == 0


def test_create_private_poker_table_gives_an_invite_link(make_user, tables, settings):
    settings.TABLE_DEFAULTS = {"turn_seconds": 7}
    lan = make_user()
    response = client_for(lan).post(
        reverse("table-new"),
        {
            "game": "holdem", "preset": "vipgame", "stake": 5, "seat_count": 6, "name": "VIP",
            "is_private": "on", "max_raise": 10, "buy_in_min": 30, "buy_in_max": 80,
        },
    )  # fmt: skip
    table = Table.objects.get()
    assert response["Location"] == f"/tables/{table.pk}/?invite={table.invite_code}"
    knobs = table.settings
    limits = (table.seat_count, knobs["max_raise"], knobs["buy_in_min"], knobs["buy_in_max"])
    assert limits == (6, 10, 30, 80)
    assert (table.is_private, table.owner, table.turn_seconds, table.name) == (True, lan, 7, "VIP")
    page = client_for(lan).get(response["Location"])
    assert table.invite_code in page.content.decode()


def test_private_table_needs_the_invite(make_user, tables):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=10, is_private=True)
    assert client_for(minh).get(f"/tables/{table.pk}/").status_code == 403
    page = client_for(minh).get(f"/tables/{table.pk}/?invite={table.invite_code}")
    assert page.status_code == 200
    assert config_of(page)["invite"] == table.invite_code
    assert "data-invite-link" not in page.content.decode()  # only the owner is shown the link


def test_table_page_never_contains_the_next_server_seed(make_user, tables):
    lan = make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=10, preset="maubinh_com")
    page = client_for(lan).get(f"/tables/{table.pk}/")
    config = config_of(page)
    assert TableSeed.objects.get(table=table).server_seed not in page.content.decode()
    assert config["rules"] == {
        "preset": "maubinh_com", "four_aces_top": True, "straight_flush_order": "royal_wheel_high",
    }  # fmt: skip
    assert config["user"] == {"id": lan.pk, "name": lan.shown_name}


def test_table_page_chat_history_is_data_not_markup(make_user, tables):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=10)
    services.chat_post(table_id=table.pk, user=lan, text="<script>alert(1)</script>")
    page = Client().get(f"/tables/{table.pk}/")
    assert "<script>alert(1)</script>" not in page.content.decode()
    assert config_of(page)["chat"][0]["text"] == "<script>alert(1)</script>"
    assert ChatMessage.objects.count() == 1


def test_closed_table_page_shows_the_reason(make_user, tables):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=10)
    services.table_close(table_id=table.pk, by=lan, reason="Bảo trì")
    assert "Bàn đã đóng: Bảo trì" in Client().get(f"/tables/{table.pk}/").content.decode()


def test_missing_table_is_not_found():
    assert Client().get("/tables/999999/").status_code == 404


def _finished_hand(tables, game, owner, other):
    table = services.table_create(owner=owner, game=game, stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=owner)
    services.table_sit(table_id=table.pk, user=other)
    ready_all(table)
    return play_until_finished(tables, table)


def test_history_lists_my_hands_by_game_with_replays(make_user, tables):
    lan, minh, an = make_user(), make_user(), make_user()
    tienlen = _finished_hand(tables, "tienlen", lan, minh)
    maubinh = _finished_hand(tables, "maubinh", lan, minh)
    tables.drain()
    client = client_for(lan)
    page = client.get(reverse("history")).content.decode()
    assert f'data-history-hand="{tienlen.pk}"' in page
    assert f'data-history-hand="{maubinh.pk}"' in page
    only = client.get(reverse("history") + "?game=maubinh").content.decode()
    assert f'data-history-hand="{tienlen.pk}"' not in only
    assert f'data-history-hand="{maubinh.pk}"' in only
    assert "Bạn chưa chơi ván nào." in client_for(an).get(reverse("history")).content.decode()


def test_history_pages_by_twenty(make_user, tables, settings):
    settings.MAX_OPEN_TABLES_PER_USER = 30  # one table per hand here
    lan, minh = make_user(), make_user()
    for _ in range(21):
        _finished_hand(tables, "maubinh", lan, minh)
    client = client_for(lan)
    first = client.get(reverse("history"))
    second = client.get(reverse("history") + "?page=2")
    assert len(first.context["rows"]) == 20
    assert len(second.context["rows"]) == 1
    assert "Trang 2 / 2" in second.content.decode()


def test_replay_shows_my_events_only_and_the_seed(make_user, tables):
    lan, minh, an = make_user(), make_user(), make_user()
    hand = _finished_hand(tables, "maubinh", lan, minh)
    response = client_for(lan).get(reverse("replay", args=[hand.pk]))
    assert response.status_code == 200
    replay = response.context["replay"]
    dealt = [e for e in replay["events"] if e["type"] == "dealt"]
    assert [sorted(e["cards"]) for e in dealt] == [sorted(_cards_of(hand, replay["you"]))]
    assert replay["fairness"]["server_seed"] == hand.server_seed
    # the table at each step (tests/api/test_replay_steps.py), the result at the last
    steps = response.context["steps"]
    assert steps["you"] == replay["you"]
    assert [s["result"] for s in steps["steps"]][-2:] == [None, hand.result]
    assert response.context["config"] == {
        "rules": plugin_for("maubinh").client_rules(hand.table),
        "stake": 1,
        "seat_count": 2,
    }
    assert 'id="replay-steps"' in response.content.decode()
    assert client_for(an).get(reverse("replay", args=[hand.pk])).status_code == 404


def _cards_of(hand: Hand, index: int) -> list[str]:
    from games.rules import fairness

    deck = fairness.deal_deck(bytes.fromhex(hand.server_seed), hand.fair_id, hand.client_seeds)
    return ["23456789TJQKA"[c // 4] + "scdh"[c % 4] for c in deck[13 * index : 13 * index + 13]]


def test_replay_of_a_hand_in_play_is_not_found(make_user, tables):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh)
    ready_all(table)
    table.refresh_from_db()
    assert client_for(lan).get(reverse("replay", args=[table.current_hand_id])).status_code == 404


def test_a_page_that_is_not_there_says_so_in_the_site_in_the_players_language():
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert 'data-error-page="404"' in html
    assert "Không tìm thấy trang" in html
    assert 'class="site-header"' in html
    assert f'href="{reverse("lobby")}"' in html  # the way back
    english = Client()
    english.cookies["django_language"] = "en"
    assert "Page not found" in english.get("/no-such-page/").content.decode()


def test_a_server_error_page_needs_no_request_context_and_speaks_vietnamese(rf):
    from django.utils import translation

    from vipgame.api.views import server_error  # (handler500)

    with translation.override("vi"):
        response = server_error(rf.get("/lobby/"))  # (Django's page: an empty context)
    assert response.status_code == 500
    html = response.content.decode()
    assert 'data-error-page="500"' in html
    assert "Đã có lỗi xảy ra" in html
    assert "Traceback" not in html


def test_a_form_sent_back_without_its_token_gets_the_sites_page_and_changes_nothing(make_user):
    from wallet.models import LedgerTransaction

    user = make_user()
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(reverse("wallet-bonus"), {"back": "home"})  # no CSRF token
    assert response.status_code == 403
    html = response.content.decode()
    assert 'data-error-page="403"' in html
    assert "Biểu mẫu này đã hết hạn" in html
    assert not LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.DAILY_BONUS).exists()
