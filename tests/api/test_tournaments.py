"""The tournaments API (issue 31): the Sit & Gos by game and buy-in, one
tournament, register and unregister (every refusal documented: conftest's
documented_errors; the money checked after each test, prize pools included)."""

from __future__ import annotations

import pytest

from tournaments import services
from tournaments.models import Tournament

from ..tournaments.helpers import balance, pool
from .helpers import error, url

pytestmark = pytest.mark.django_db


def sit_and_go(game="holdem", seats=6, buy_in=100, fee=10):
    return services.tournament_create(game=game, seats=seats, buy_in=buy_in, fee=fee)


def test_the_list_shows_open_ones_by_game_and_buy_in_to_anyone(api):
    cheap, dear = sit_and_go(buy_in=50), sit_and_go(buy_in=500)
    other = sit_and_go(game="tienlen", seats=4, buy_in=50)
    gone = sit_and_go()
    services.tournament_cancel(tournament_id=gone.pk, reason="test")

    everything = api().get(url("tournaments"))
    by_buy_in = api().get(url("tournaments"), {"game": "holdem", "buy_in_max": 100})
    cancelled = api().get(url("tournaments"), {"status": "cancelled"})

    assert everything.status_code == 200
    listed = [t["id"] for t in everything.json()["results"]]
    assert sorted(listed) == sorted([cheap.pk, dear.pk, other.pk])
    assert [t["id"] for t in by_buy_in.json()["results"]] == [cheap.pk]
    assert [t["id"] for t in cancelled.json()["results"]] == [gone.pk]
    first = by_buy_in.json()["results"][0]
    assert (first["registered"], first["seats"], first["fee"]) == (0, 6, 10)
    assert error(api().get(url("tournaments"), {"buy_in": 0})) == (400, "invalid")


def test_register_then_unregister_through_the_api(api, make_user):
    lan = make_user()
    tournament = sit_and_go()
    before = balance(lan)

    registered = api(lan).post(url(f"tournaments/{tournament.pk}/register"))
    again = api(lan).post(url(f"tournaments/{tournament.pk}/register"))

    assert registered.status_code == 201
    body = registered.json()
    assert body["mine"] is True
    assert body["registered"] == 1
    assert [e["user_id"] for e in body["entries"]] == [lan.pk]
    assert body["prizes"] == [390, 210]  # 65 / 35 of 6 x 100
    assert body["levels"][0] == {
        "number": 1,
        "seconds": 300,
        "stake": 20,
        "small_blind": 10,
        "big_blind": 20,
        "ante": 0,
    }
    assert error(again) == (409, "already_registered")
    assert (balance(lan), pool(tournament)) == (before - 110, 110)

    left = api(lan).post(url(f"tournaments/{tournament.pk}/unregister"))

    assert left.status_code == 200
    assert (left.json()["mine"], left.json()["entries"]) == (False, [])
    assert balance(lan) == before
    assert error(api(lan).post(url(f"tournaments/{tournament.pk}/unregister"))) == (
        409,
        "not_registered",
    )


def test_the_refusals(api, make_user):
    players = [make_user() for _ in range(2)]
    heads_up = sit_and_go(seats=2)
    for player in players:
        assert api(player).post(url(f"tournaments/{heads_up.pk}/register")).status_code == 201
    heads_up.refresh_from_db()
    assert heads_up.status == Tournament.Status.RUNNING
    late = make_user()

    assert error(api(late).post(url(f"tournaments/{heads_up.pk}/register"))) == (
        409,
        "tournament_started",
    )
    assert error(api(players[0]).post(url(f"tournaments/{heads_up.pk}/unregister"))) == (
        409,
        "tournament_started",
    )
    assert error(api(late).post(url("tournaments/0/register"))) == (404, "tournament_not_found")
    assert error(api().get(url("tournaments/0"))) == (404, "tournament_not_found")
    assert error(api().post(url(f"tournaments/{heads_up.pk}/register"))) == (
        401,
        "not_authenticated",
    )
    services.tournament_cancel(tournament_id=heads_up.pk, reason="test")
    assert error(api(late).post(url(f"tournaments/{heads_up.pk}/register"))) == (
        409,
        "tournament_over",
    )


def test_a_player_short_of_chips_is_told_what_is_needed(api, make_user):
    lan = make_user()
    tournament = sit_and_go(buy_in=balance(lan), fee=1)

    refused = api(lan, language="en").post(url(f"tournaments/{tournament.pk}/register"))

    assert error(refused) == (400, "insufficient_chips")
    assert pool(tournament) == 0


def test_the_detail_shows_places_and_prizes_when_it_is_over(api, make_user):
    lan, minh = make_user(), make_user()
    tournament = sit_and_go(seats=2, buy_in=100, fee=0)
    for player in (lan, minh):
        api(player).post(url(f"tournaments/{tournament.pk}/register"))
    services.players_out(tournament_id=tournament.pk, user_ids=[lan.pk])

    body = api().get(url(f"tournaments/{tournament.pk}")).json()

    assert body["status"] == "finished"
    assert body["mine"] is False
    assert {e["user_id"]: (e["place"], e["prize"]) for e in body["entries"]} == {
        lan.pk: (2, 0),
        minh.pk: (1, 200),
    }


def test_the_level_in_play_rises_with_time_once_it_runs(api, make_user, tables):
    tournament = services.tournament_create(
        game="holdem", seats=2, buy_in=10, fee=0, level_seconds=60
    )
    registering = api().get(url(f"tournaments/{tournament.pk}")).json()
    for player in (make_user(), make_user()):
        services.tournament_register(tournament_id=tournament.pk, user=player)

    first = api().get(url(f"tournaments/{tournament.pk}")).json()["level"]
    tables.clock.advance(seconds=150)
    third = api().get(url(f"tournaments/{tournament.pk}")).json()["level"]

    assert registering["level"] is None
    assert (first["number"], first["big_blind"], first["next_in"]) == (1, 20, 60)
    assert (third["number"], third["big_blind"], third["next_in"]) == (3, 40, 30)


# -- a player's own Sit & Go -------------------------------------------------

CREATE = {
    "game": "holdem",
    "seats": 2,
    "buy_in": 100,
    "allow_bots": True,
    "bots_after_seconds": 5,
    "level_seconds": 30,
    "starting_chips": 100,
}


def test_a_player_creates_a_sit_and_go_and_holds_its_first_place(api, make_user):
    lan = make_user()
    before = balance(lan)

    created = api(lan).post(url("tournaments"), CREATE, format="json")

    assert created.status_code == 201
    body = created.json()
    tournament = Tournament.objects.get(pk=body["id"])
    assert (tournament.created_by, tournament.fee, tournament.seats) == (lan, 0, 2)
    assert (tournament.allow_bots, tournament.bots_after_seconds) == (True, 5)
    assert (tournament.starting_chips, tournament.levels[0]["seconds"]) == (100, 30)
    assert (body["status"], body["registered"], body["mine"], body["fee"]) == (
        "registering",
        1,
        True,
        0,
    )
    assert [e["user_id"] for e in body["entries"]] == [lan.pk]
    assert (balance(lan), pool(tournament)) == (before - 100, 100)


def test_one_registering_sit_and_go_of_ones_own_at_a_time(api, make_user):
    lan, minh = make_user(), make_user()
    first = api(lan).post(url("tournaments"), CREATE, format="json").json()

    again = api(lan).post(url("tournaments"), {**CREATE, "buy_in": 50}, format="json")
    assert error(again) == (409, "too_many_tournaments")
    assert Tournament.objects.filter(created_by=lan).count() == 1

    # once it started (minh took the last place), another one is fine
    api(minh).post(url(f"tournaments/{first['id']}/register"))
    assert (
        api(lan).post(url("tournaments"), {**CREATE, "buy_in": 50}, format="json").status_code
        == 201
    )


def test_the_creation_is_refused_whole(api, make_user):
    lan = make_user()
    wallet_before = balance(lan)
    for bad in (
        {"game": "nosuchgame"},
        {"seats": 5},
        {"buy_in": 0},
        {"level_seconds": 29},
        {"starting_chips": 99},
        {"bots_after_seconds": -1},
    ):
        refused = api(lan).post(url("tournaments"), {**CREATE, **bad}, format="json")
        assert error(refused) == (400, "bad_tournament"), bad
    assert error(api(lan).post(url("tournaments"), {**CREATE, "seats": "two"}, format="json")) == (
        400,
        "invalid",
    )
    short = api(lan, language="en").post(
        url("tournaments"), {**CREATE, "buy_in": wallet_before + 1}, format="json"
    )
    assert error(short) == (400, "insufficient_chips")
    assert error(api().post(url("tournaments"), CREATE, format="json")) == (
        401,
        "not_authenticated",
    )
    assert not Tournament.objects.filter(created_by=lan).exists()
    assert balance(lan) == wallet_before


def test_too_many_tournaments_is_said_in_the_players_language(api, make_user):
    lan = make_user()
    api(lan).post(url("tournaments"), CREATE, format="json")

    vi = api(lan, language="vi").post(url("tournaments"), CREATE, format="json").json()
    en = api(lan, language="en").post(url("tournaments"), CREATE, format="json").json()

    assert en["message"].startswith("You already have a Sit & Go")
    assert vi["message"] != en["message"]


def test_a_repeated_creation_with_one_idempotency_key_creates_one(api, make_user):
    lan = make_user()
    client = api(lan)

    first = client.post(url("tournaments"), CREATE, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    second = client.post(url("tournaments"), CREATE, format="json", HTTP_IDEMPOTENCY_KEY="k-1")

    assert first.status_code == second.status_code == 201
    assert first.json()["id"] == second.json()["id"]
    assert Tournament.objects.filter(created_by=lan).count() == 1
