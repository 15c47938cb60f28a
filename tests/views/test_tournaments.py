"""The tournament page (tournaments/views.py) and the lobby's tournaments tab
(its live parts: tests/e2e/test_tournament.py)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from tournaments import services
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def client_for(user=None, language="en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.cookies["django_language"] = language
    if user is not None:
        client.force_login(user)
    return client


def rows(html: str, attribute: str) -> list[str]:
    return re.findall(rf'{attribute}="([^"]*)"', html)


def test_a_registering_sit_and_go_shows_its_levels_prizes_and_players(make_user):
    lan = make_user()
    tournament = services.tournament_create_and_register(
        by=lan, game="holdem", seats=6, buy_in=100, level_seconds=60
    )

    html = client_for().get(f"/tournaments/{tournament.pk}/").content.decode()

    assert f"<h1>Sit &amp; Go #{tournament.pk} · Poker" in html
    assert rows(html, "data-entry") == [str(lan.pk)]
    assert rows(html, "data-prize-place") == ["1", "2"]  # 65 / 35 of 600
    assert ">390<" in html
    assert ">210<" in html
    assert html.count("<tr", html.index("data-levels")) == services.LEVEL_COUNT + 1
    assert "data-tournament-table" not in html
    assert 'src="/static/js/tournament.js"' in html


def test_a_running_one_leads_its_players_to_their_table(make_user, tables):
    lan, minh, watcher = make_user(), make_user(), make_user()
    tournament = services.tournament_create(game="tienlen", seats=4, buy_in=10)
    for player in (lan, minh, make_user(), make_user()):
        services.tournament_register(tournament_id=tournament.pk, user=player)
    table_id = tournament.tables.get().table_id

    mine = client_for(lan).get(f"/tournaments/{tournament.pk}/").content.decode()
    theirs = client_for(watcher).get(f"/tournaments/{tournament.pk}/").content.decode()

    assert f'href="/tables/{table_id}/" data-tournament-table' in mine
    assert "Open my table" in mine
    assert "Watch its table" in theirs
    assert "Level 1" in mine
    assert "next level in" in mine


def test_the_results_list_places_and_prizes_best_first(make_user):
    lan, minh = make_user(), make_user()
    tournament = services.tournament_create(game="holdem", seats=2, buy_in=100)
    for player in (lan, minh):
        services.tournament_register(tournament_id=tournament.pk, user=player)
    services.players_out(tournament_id=tournament.pk, user_ids=[lan.pk])

    html = client_for().get(f"/tournaments/{tournament.pk}/").content.decode()

    assert ">Results<" in html
    assert rows(html, "data-entry") == [str(minh.pk), str(lan.pk)]
    assert rows(html, "data-place") == ["1", "2"]
    assert rows(html, "data-prize") == ["200", "0"]
    assert "tournament.js" not in html  # (over: nothing changes any more)


def test_the_page_speaks_vietnamese_by_default(make_user):
    tournament = services.tournament_create(game="holdem", seats=2, buy_in=100)

    html = Client().get(f"/tournaments/{tournament.pk}/").content.decode()

    assert "Tiền thưởng theo hạng" in html
    assert "Prizes by place" not in html


def test_a_missing_tournament_is_not_found():
    assert Client().get("/tournaments/999999/").status_code == 404


def test_the_lobby_opens_on_the_tournaments_tab_when_asked(make_user):
    lan = make_user()

    games = client_for(lan).get("/tables/").content.decode()
    tab = client_for(lan).get("/tables/?tab=tournaments").content.decode()

    assert re.search(r"data-tournaments hidden", games)
    assert not re.search(r"data-tournaments hidden", tab)
    assert 'data-tournaments-tab aria-selected="true"' in tab
    assert tab.count("data-games-part hidden") == 3
    assert "data-sng-form" in tab
    assert "data-sng-form" not in Client().get("/tables/?tab=tournaments").content.decode()


def test_the_lobby_form_offers_the_services_ranges(make_user):
    """The create form's limits (the page's, in games: it cannot import
    tournaments) are the services' own."""
    html = client_for(make_user()).get("/tables/?tab=tournaments").content.decode()

    low, high = services.STARTING_CHIPS
    assert f'name="starting_chips" min="{low}" max="{high}"' in html
    low, high = services.LEVEL_SECONDS
    assert f'name="level_minutes" min="{low / 60:g}" max="{high / 60:g}"' in html
    assert 'name="bots_after_seconds" min="0" max="86400"' in html


def test_the_lobby_tells_the_games_sit_and_go_sizes(make_user):
    html = client_for(make_user()).get("/tables/").content.decode()
    start = html.index('id="lobby-games"')
    facts = json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])
    offered = {game: list(sizes) for game, sizes in services.sit_and_go_games()}

    assert {game: f["sit_and_go_seats"] for game, f in facts.items()} == {
        game: offered.get(game, []) for game in facts
    }
    assert Tournament.objects.count() == 0
