"""Issue 13 item 3: every table number and rule option has a range, checked in
one place (games.limits) by the API, the lobby form, the services and any
save of a new table row; out of range is `invalid` with the allowed range,
and nothing is created. The table's own rules are shown before anyone sits."""

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.urls import reverse

from games import limits, services
from games.errors import BadTableSettings
from games.models import Seat, Table
from games.plugins import PLUGINS
from games.plugins.knobs import number

from ..migrating import back_at, models_at
from .helpers import error, url, world

pytestmark = pytest.mark.django_db
DOCS = Path(__file__).resolve().parents[2] / "docs" / "tables.md"


@pytest.mark.parametrize(
    ("data", "where", "allowed"),
    [
        # A 115-day Hold'em clock that overflowed the seat's time bank.
        (
            {"game": "holdem", "stake": 1, "options": {"time_bank_max_ms": 10**10}},
            ("options", "time_bank_max_ms"),
            "0 đến 300000",
        ),
        # Tiến Lên cóng of 10^30 units at a "stake 1" table.
        (
            {"game": "tienlen", "stake": 1, "options": {"cong_penalty": 10**30}},
            ("options", "cong_penalty"),
            "0 đến 52",
        ),
        # Mậu Binh multipliers of a million.
        (
            {"game": "maubinh", "stake": 1, "options": {"sweep_pair_multiplier": 10**6}},
            ("options", "sweep_pair_multiplier"),
            "1 đến 4",
        ),
        (
            {"game": "maubinh", "stake": 1, "options": {"bonus_quads_chi1": 10**6}},
            ("options", "bonus_quads_chi1"),
            "1 đến 30",
        ),
        (
            {"game": "maubinh", "stake": 1, "options": {"instant_units": {"dragon": 10**6}}},
            ("options", "instant_units.dragon"),
            "1 đến 100",
        ),
        (
            {"game": "holdem", "stake": 1, "options": {"big_blind_units": 10**6}},
            ("options", "big_blind_units"),
            "1 đến 10",
        ),
        (
            {"game": "tienlen", "stake": 1, "options": {"first_lead": "me"}},
            ("options", "first_lead"),
            "random, three_spades",
        ),
    ],
)
def test_out_of_range_options_are_invalid_with_the_range_and_open_nothing(
    tables, make_user, api, data, where, allowed
):
    lan = make_user()
    before = world()

    response = api(lan).post(url("tables"), data, format="json")
    english = api(lan, "en").post(url("tables"), data, format="json")

    assert error(response) == (400, "invalid")
    field, option = where
    problems = response.json()["details"][field][option]
    assert allowed in problems[0]
    assert allowed in response.json()["message"]
    assert error(english) == (400, "invalid")
    assert "must be" in english.json()["details"][field][option][0]
    assert world() == before
    assert not Table.objects.exists()


@pytest.mark.parametrize(
    ("data", "field", "vi", "en"),
    [
        ({"game": "tienlen", "stake": 10**9}, "stake", "từ 1 đến 1000000", "from 1 to 1000000"),
        ({"game": "tienlen", "stake": 0}, "stake", "từ 1 đến 1000000", "from 1 to 1000000"),
        ({"game": "tienlen", "stake": "many"}, "stake", "từ 1 đến 1000000", "from 1 to 1000000"),
        (
            {"game": "holdem", "stake": 1, "buy_in_max": 10**12},
            "buy_in_max",
            "từ 1 đến 1000",
            "from 1 to 1000",
        ),
        (
            {"game": "holdem", "stake": 1, "max_raise": 0},
            "max_raise",
            "từ 1 đến 1000000",
            "from 1 to 1000000",
        ),
        (
            {"game": "holdem", "stake": 1, "seat_count": 10},
            "seat_count",
            "từ 2 đến 9",
            "from 2 to 9",
        ),
    ],
)
def test_out_of_range_numbers_name_the_range_in_the_users_language(
    tables, make_user, api, data, field, vi, en
):
    """A table number out of range on the API: each field's problem names the
    allowed range (both ends), in Vietnamese or English as asked."""
    lan = make_user()
    before = world()

    response = api(lan).post(url("tables"), data, format="json")
    english = api(lan, "en").post(url("tables"), data, format="json")

    assert error(response) == (400, "invalid")
    assert error(english) == (400, "invalid")
    assert vi in response.json()["details"][field][0]
    assert en in english.json()["details"][field][0]
    assert world() == before


def test_the_lobby_form_names_the_range_of_a_number(tables, make_user, client):
    client.force_login(make_user())
    response = client.post(
        reverse("table-new"),
        {"game": "tienlen", "preset": "vipgame", "stake": 10**9, "seat_count": 4},
    )
    assert response.status_code == 400
    assert response.context["form"].errors["stake"] == ["stake phải là số nguyên từ 1 đến 1000000."]
    assert not Table.objects.exists()


def test_the_attacks_cannot_reach_a_table_by_any_path(tables, make_user, client):
    """The services, the ORM (what the admin or a shell would use) and the
    admin's add page all refuse the same settings."""
    lan, staff = make_user(), make_user(is_staff=True)
    attacks: list[dict[str, Any]] = [
        {"game": "holdem", "options": {"time_bank_max_ms": 10**10}},
        {"game": "tienlen", "options": {"cong_penalty": 10**30}},
        {"game": "maubinh", "options": {"sweep_village_multiplier": 10**6}},
    ]
    for attack in attacks:
        with pytest.raises(limits.InvalidTableSettings):
            services.table_create(owner=lan, stake=1, **attack)
        with pytest.raises(limits.InvalidTableSettings):
            Table.objects.create(
                game=attack["game"],
                settings=attack["options"],
                stake=1,
                seat_count=2,
                next_commitment="0",
            )
    with pytest.raises(limits.InvalidTableSettings):
        services.table_create(owner=lan, game="tienlen", stake=1, turn_seconds=10**5)
    with pytest.raises(limits.InvalidTableSettings):
        services.table_create(owner=lan, game="tienlen", stake=10**9)
    client.force_login(staff)
    assert client.get(reverse("admin:games_table_add")).status_code == 403
    assert not Table.objects.exists()


def test_the_lobby_form_uses_the_same_check(tables, make_user, client):
    client.force_login(make_user())
    response = client.post(
        reverse("table-new"),
        {
            "game": "holdem",
            "preset": "vipgame",
            "stake": 10,
            "seat_count": 6,
            "buy_in_min": 200,
            "buy_in_max": 100,
        },
    )
    assert response.status_code == 400
    assert response.context["form"].errors["buy_in_max"] == [
        "buy_in_max phải không nhỏ hơn buy_in_min."
    ]
    assert not Table.objects.exists()


def test_unknown_names_keep_their_own_code(tables, make_user):
    with pytest.raises(BadTableSettings) as err:
        services.table_create(owner=make_user(), game="tienlen", stake=1, options={"x": 1})
    assert err.value.code == "bad_table_settings"
    assert not Table.objects.exists()


def test_every_range_fits_its_model_field():
    """The documented ranges are checked against the columns that store them
    (and the Hold'em clock against the longest clock the docs state; the time
    bank is kept in the seat's ``carry``, no column of its own)."""
    for name, allowed in limits.FIELD_RANGES.items():
        field: Any = Table._meta.get_field(name)
        low, high = connection.ops.integer_field_range(field.get_internal_type())
        assert low is None or low <= allowed.low
        assert high is None or allowed.high <= high
    for game, plugin in PLUGINS.items():
        low, high = connection.ops.integer_field_range("PositiveSmallIntegerField")
        assert low <= plugin.seats.low, game
        assert plugin.seats.high <= high, game
    holdem = PLUGINS["holdem"].knobs
    bank_max, topup = holdem["time_bank_max_ms"].range, holdem["time_bank_topup_ms"].range
    assert bank_max is not None
    assert topup is not None
    longest_ms = limits.FIELD_RANGES["turn_seconds"].high * 1000 + bank_max.high + topup.high
    assert longest_ms <= 66 * 60 * 1000  # the longest clock docs/tables.md states


def test_docs_list_every_range_exactly():
    """docs/tables.md has a row per option and number with the code's range."""
    rows = dict(re.findall(r"^\| `([a-z_0-9.]+)` \| ([^|]+?) \|", DOCS.read_text(), re.M))
    expected = {name: f"{r.low} to {r.high}" for name, r in limits.FIELD_RANGES.items()}
    expected["seat_count"] = "2 to 4 (Poker 2 to 9)"
    for plugin in PLUGINS.values():
        for name, knob in plugin.knobs.items():
            r = knob.range
            if r is not None:
                expected[name] = f"{r.low} to {r.high}" + (" each" if knob.kind == "map" else "")
    for name, value in expected.items():
        assert rows.get(name) == value, name


def test_own_rules_are_shown_in_the_lobby_and_on_the_table_before_anyone_sits(
    tables, make_user, api, client
):
    lan = make_user()
    table = services.table_create(
        owner=lan,
        game="tienlen",
        stake=10,
        options={"cong_penalty": 13, "ket_3_bich": 26, "first_lead": "three_spades"},
    )
    plain = services.table_create(owner=lan, game="tienlen", stake=20)

    rows = {t["id"]: t for t in api().get(url("tables")).json()["results"]}
    lobby_page = client.get(reverse("lobby") + "?game=tienlen").content.decode()
    table_page = client.get(reverse("table", args=[table.pk])).content.decode()

    # ket_3_bich 26 is the preset's own value: not a change.
    own = [["cong_penalty", 13], ["first_lead", "three_spades"]]
    assert rows[table.pk]["rules"] == own
    assert rows[plain.pk]["rules"] == []
    lobby_json = re.search(
        r'<script id="lobby-tables" type="application/json">(.*?)</script>', lobby_page, re.S
    )
    assert lobby_json is not None
    shown = {t["id"]: t["rules"] for t in json.loads(lobby_json.group(1))}
    assert shown[table.pk] == own
    assert 'data-own-rule="cong_penalty">cong_penalty 13<' in table_page
    assert 'data-own-rule="first_lead">first_lead &quot;three_spades&quot;<' in table_page
    assert not Seat.objects.exists()


@pytest.mark.parametrize(
    "option",
    ["min_players", "max_players", "buy_in_min_big_blinds", "buy_in_max_big_blinds"],
)
def test_holdem_player_count_and_buy_in_have_one_home_each(tables, make_user, api, option):
    """Hold'em's player count is its seat count, its buy-in the table's
    buy_in_min/max: the rules' own copies are not a table's to set. (A table
    opened with {"min_players": 3} dealt at two ready players, where the engine
    refused: every Ready at it failed with a server error.)"""
    lan = make_user()
    data = {"game": "holdem", "stake": 10, "seat_count": 6, "options": {option: 3}}
    before = world()

    response = api(lan).post(url("tables"), data, format="json")
    english = api(lan, "en").post(url("tables"), data, format="json")

    assert error(response) == (400, "bad_table_settings")
    assert response.json()["message"] == f"Tùy chọn luật không xác định: {option}."
    assert error(english) == (400, "bad_table_settings")
    assert english.json()["message"] == f"Unknown rule option: {option}."
    assert world() == before
    assert not Table.objects.exists()


def test_a_holdem_table_deals_at_two_ready_players(tables, make_user, api):
    lan, minh = make_user(), make_user()
    created = api(lan).post(
        url("tables"), {"game": "holdem", "stake": 10, "seat_count": 6}, format="json"
    )
    table_id = created.json()["id"]

    api(lan).post(url(f"tables/{table_id}/sit"))
    api(minh).post(url(f"tables/{table_id}/sit"))
    api(lan).post(url(f"tables/{table_id}/ready"))
    dealt = api(minh).post(url(f"tables/{table_id}/ready"))

    assert created.status_code == 201
    assert dealt.status_code == 200
    assert dealt.json()["table"]["status"] == "playing"


def test_a_table_the_engine_could_not_deal_at_is_refused_for_its_seat_count(
    tables, make_user, api, monkeypatch
):
    """Whatever a game's options are, a table opens only if its engine deals a
    hand to every number of players it can seat (from two to its seat count):
    one check for every game, asked of the game's plugin. (A plugin that still
    offered min_players shows it.)"""
    holdem = PLUGINS["holdem"]
    monkeypatch.setattr(type(holdem), "knobs", {**holdem.knobs, "min_players": number(2, 9)})
    lan = make_user()
    data = {"game": "holdem", "stake": 10, "seat_count": 6, "options": {"min_players": 3}}
    before = world()

    response = api(lan).post(url("tables"), data, format="json")
    english = api(lan, "en").post(url("tables"), data, format="json")

    assert error(response) == (400, "invalid")
    assert response.json()["details"] == {
        "seat_count": ["Luật của bàn này không chia bài được cho 2 người chơi."]
    }
    assert error(english) == (400, "invalid")
    assert english.json()["details"] == {
        "seat_count": ["These rules cannot deal a hand to 2 players."]
    }
    with pytest.raises(limits.InvalidTableSettings):
        services.table_create(owner=lan, game="holdem", stake=10, options={"min_players": 3})
    assert world() == before
    assert not Table.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_data_migration_takes_the_duplicate_holdem_knobs_off_old_tables(make_user):
    """(Run at the schema it was written for: ``options`` became ``settings`` in 0013.)"""
    owner = make_user()
    with back_at("games", "0011_chat_reports_from_moderation") as forward:
        old = models_at("games", "0011_chat_reports_from_moderation").get_model("games", "Table")
        # Given tables saved before the knobs had one home (no check runs on them).
        table = {"stake": 2, "seat_count": 4, "next_commitment": "0", "owner_id": owner.pk}
        poker = old.objects.create(
            game="holdem",
            options={"min_players": 3, "buy_in_max_big_blinds": 50, "small_blind_units": 2},
            **table,
        )
        cards = old.objects.create(game="tienlen", options={"cong_penalty": 5}, **table)

        after = forward("0012_holdem_one_home_per_knob").get_model("games", "Table")

        assert after.objects.get(pk=poker.pk).options == {"small_blind_units": 2}
        assert after.objects.get(pk=cards.pk).options == {"cong_penalty": 5}
