"""Tables over HTTP: the lobby, opening a table, the caller's view, and sit,
ready, act, leave, bots and buy-in through the same services as the socket."""

import pytest

from games import services
from games.models import Seat, Table
from wallet.models import Account

from ..seeds import ORDINARY
from .helpers import error, url, world

pytestmark = pytest.mark.django_db


def lobby_row(table, players=()):
    holdem = table.game == "holdem"
    seats = {s.position: s for s in Seat.objects.filter(table=table).select_related("user")}
    return {
        "id": table.pk,
        "game": table.game,
        "name": table.name,
        "preset": "vipgame",
        "stake": table.stake,
        "seat_count": table.seat_count,
        "private": False,
        "status": "waiting",
        "taken": len(players),
        "humans": sum(not seats[p].is_bot for p in players),
        "free_seats": table.seat_count - len(players),
        "buy_in": {"min": 40 * table.stake, "max": 200 * table.stake} if holdem else None,
        "min_balance": None if holdem else 30 * table.stake,
        "rules": [],
        "players": [
            {
                "position": p,
                "user_id": seats[p].user_id,
                "name": seats[p].user.shown_name,
                "avatar": seats[p].user.avatar_key,
                "bot": seats[p].is_bot,
            }
            for p in players
        ],
    }


def test_the_lobby_lists_open_public_tables_with_filters(tables, make_user, api, settings):
    settings.MAX_OPEN_TABLES_PER_USER = 10  # one player opens every table here
    lan = make_user()
    mb = services.table_create(owner=lan, game="maubinh", stake=10, seat_count=2, name="Một")
    tl = services.table_create(owner=lan, game="tienlen", stake=50)
    pk = services.table_create(owner=lan, game="holdem", stake=5, seat_count=6)
    services.table_create(owner=lan, game="tienlen", stake=50, is_private=True)
    closed = services.table_create(owner=lan, game="tienlen", stake=50)
    services.table_close(table_id=closed.pk, by=lan, reason="done")
    services.table_sit(table_id=mb.pk, user=lan)
    services.table_add_bot(table_id=mb.pk, user=lan)
    lobby = api()

    everything = lobby.get(url("tables"))
    full = lobby.get(url("tables"), {"free_seats": 1})
    cheap = lobby.get(url("tables"), {"stake_max": 10})
    by_game = lobby.get(url("tables"), {"game": "tienlen", "stake": 50})

    assert everything.status_code == 200
    assert everything.json() == {
        "count": 3,
        "next": None,
        "previous": None,
        "results": [lobby_row(pk), lobby_row(mb, players=[0, 1]), lobby_row(tl)],
    }
    assert [t["id"] for t in full.json()["results"]] == [pk.pk, tl.pk]
    assert [t["id"] for t in cheap.json()["results"]] == [pk.pk, mb.pk]
    assert [t["id"] for t in by_game.json()["results"]] == [tl.pk]
    bad = lobby.get(url("tables"), {"game": "poker", "free_seats": "x"})
    assert error(bad) == (400, "invalid")
    assert set(bad.json()["details"]) == {"game", "free_seats"}


def test_opening_a_table(tables, make_user, api):
    lan = make_user()

    response = api(lan).post(
        url("tables"), {"game": "holdem", "stake": 10, "seat_count": 6, "name": "Tối"}
    )

    table = Table.objects.get()
    assert response.status_code == 201
    assert response.json() == {
        "id": table.pk,
        "game": "holdem",
        "name": "Tối",
        "preset": "vipgame",
        "stake": 10,
        "seat_count": 6,
        "private": False,
        "status": "waiting",
        "invite_code": None,
    }
    assert table.owner == lan


def test_a_private_table_gets_an_invite_code(tables, make_user, api):
    response = api(make_user()).post(
        url("tables"), {"game": "tienlen", "stake": 1, "is_private": True}
    )

    table = Table.objects.get()
    assert response.status_code == 201
    assert response.json()["invite_code"] == table.invite_code
    assert len(table.invite_code) == 11


@pytest.mark.parametrize(
    ("data", "expected", "fields"),
    [
        ({"game": "tienlen", "stake": 1, "seat_count": 9}, (400, "invalid"), {"seat_count"}),
        ({"game": "holdem", "stake": 1, "max_raise": 1}, (400, "invalid"), {"max_raise"}),
        ({"game": "maubinh", "stake": 1, "preset": "nope"}, (400, "bad_table_settings"), None),
        ({"game": "tienlen", "stake": 1, "options": {"x": 1}}, (400, "bad_table_settings"), None),
        ({"game": "chess", "stake": 0}, (400, "invalid"), {"game", "stake"}),
        ({"stake": 10**7}, (400, "invalid"), {"game", "stake"}),
    ],
)
def test_bad_table_settings_open_nothing(tables, make_user, api, data, expected, fields):
    client = api(make_user())

    response = client.post(url("tables"), data)

    assert error(response) == expected
    if fields:
        assert set(response.json()["details"]) == fields
    assert not Table.objects.exists()


def test_opening_a_table_needs_a_user(tables, api):
    assert error(api().post(url("tables"), {"game": "tienlen", "stake": 1})) == (
        401,
        "not_authenticated",
    )
    assert not Table.objects.exists()


def dealt_table(make_user, game="tienlen", **kwargs):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game=game, stake=10, seat_count=2, **kwargs)
    buy_in = 400 if game == "holdem" else None
    for user in (lan, minh):
        services.table_sit(
            table_id=table.pk, user=user, buy_in=buy_in, invite_code=table.invite_code
        )
    return table, lan, minh


def test_the_table_state_is_the_callers_view(tables, dealer, make_user, api):
    # (a deck with no tới trắng: the hand is still in play, its seed secret;
    # the fair deck depends on the table's id, so on the tests run before)
    dealer.stack(*ORDINARY)
    table, lan, minh = dealt_table(make_user)
    services.table_ready(table_id=table.pk, user=lan, client_seed="a")
    services.table_ready(table_id=table.pk, user=minh, client_seed="b")
    table.refresh_from_db()

    mine = api(lan).get(url(f"tables/{table.pk}")).json()
    theirs = api(minh).get(url(f"tables/{table.pk}")).json()
    watcher = api().get(url(f"tables/{table.pk}")).json()
    missed = api(lan).get(url(f"tables/{table.pk}"), {"since": table.version - 1}).json()

    assert (mine["type"], mine["v"], mine["seat"], mine["resync"]) == (
        "state",
        table.version,
        0,
        False,
    )
    assert len(mine["hand"]["view"]["hand"]) == 13
    assert not set(mine["hand"]["view"]["hand"]) & set(theirs["hand"]["view"]["hand"])
    assert watcher["seat"] is None
    assert watcher["hand"]["view"]["hand"] is None
    assert watcher["hand"]["server_seed"] is None
    assert table.hands.get().server_seed not in str(mine)
    assert mine["events"] == []
    assert missed["resync"] is True
    assert {e["type"] for e in missed["events"]} >= {"hand_started"}
    assert "dealt" in {e["type"] for e in missed["events"]}
    assert [e for e in missed["events"] if e["type"] == "dealt"] == [
        {**e, "cards": mine["hand"]["view"]["hand"]}
        for e in missed["events"]
        if e["type"] == "dealt"
    ]


def test_a_private_table_shows_only_to_its_players_owner_staff_and_invitees(tables, make_user, api):
    table, lan, _ = dealt_table(make_user, is_private=True)
    path = url(f"tables/{table.pk}")
    stranger = api(make_user())

    assert error(api().get(path)) == (403, "private_table")
    assert error(stranger.get(path)) == (403, "private_table")
    assert error(stranger.get(path, {"invite": "wrong"})) == (403, "private_table")
    assert stranger.get(path, {"invite": table.invite_code}).status_code == 200
    assert api(make_user(is_staff=True)).get(path).status_code == 200
    assert api(lan).get(path).json()["seat"] == 0


def test_an_unknown_table_is_not_found(make_user, api):
    response = api(make_user()).get(url("tables/999999"))

    assert error(response) == (404, "table_not_found")
    assert error(api().post(url("tables/999999/sit"))) == (401, "not_authenticated")
    assert error(api(make_user()).post(url("tables/999999/sit"))) == (404, "table_not_found")


def test_sit_ready_and_the_deal_over_http(tables, make_user, api):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="holdem", stake=10, seat_count=2)

    sat = api(lan).post(url(f"tables/{table.pk}/sit"), {"buy_in": 1_000})
    api(minh).post(url(f"tables/{table.pk}/sit"), {"position": 1})
    api(lan).post(url(f"tables/{table.pk}/ready"), {"client_seed": "lan's seed"})
    dealt = api(minh).post(url(f"tables/{table.pk}/ready"))

    assert sat.status_code == 200
    assert sat.json()["seat"] == 0
    assert sat.json()["table"]["seats"][0]["chips"] == 1_000
    assert Account.objects.get(user=lan, kind="user").balance == 9_000
    assert Account.objects.get(user=minh, kind="user").balance == 9_600
    assert dealt.status_code == 200
    assert dealt.json()["seat"] == 1
    assert dealt.json()["table"]["status"] == "playing"
    assert len(dealt.json()["hand"]["view"]["hole"]) == 2
    hand = table.hands.get()
    # minh sent no seed: one was drawn for him (never an empty contribution).
    assert hand.client_seeds[0] == "lan's seed"
    assert len(hand.client_seeds[1]) == 32
    assert hand.seed_sources == ["player", "server"]


@pytest.mark.parametrize(
    ("who", "data", "expected"),
    [
        ("lan", {}, (409, "already_seated")),
        ("other", {"position": 0}, (409, "seat_taken")),
        ("other", {"position": 5}, (400, "no_such_seat")),
        ("other", {"position": 9}, (400, "invalid")),
        ("other", {"buy_in": 10}, (400, "bad_buy_in")),
        ("other", {"buy_in": "lots"}, (400, "invalid")),
        ("poor", {}, (400, "insufficient_chips")),
    ],
)
def test_sit_refusals_change_nothing(tables, make_user, api, who, data, expected):
    lan = make_user()
    table = services.table_create(owner=lan, game="holdem", stake=100, seat_count=2)
    services.table_sit(table_id=table.pk, user=lan, buy_in=4_000)
    users = {"lan": lan, "other": make_user(), "poor": make_user()}
    Account.objects.filter(user=users["poor"]).update(held=9_000)
    before = world()

    response = api(users[who]).post(url(f"tables/{table.pk}/sit"), data)

    assert error(response) == expected
    assert world() == before


def test_a_private_table_needs_its_invite_to_sit(tables, make_user, api):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, is_private=True)
    before = world()

    refused = api(minh).post(url(f"tables/{table.pk}/sit"))
    assert error(refused) == (403, "private_table")
    assert world() == before

    invited = api(minh).post(url(f"tables/{table.pk}/sit"), {"invite": table.invite_code})
    assert invited.json()["seat"] == 0


def test_moves_over_http_are_idempotent_and_checked_against_the_version(tables, make_user, api):
    table, lan, minh = dealt_table(make_user, game="holdem")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    state = api(lan).get(url(f"tables/{table.pk}")).json()
    (to_act,) = state["actors"]
    mover = [lan, minh][state["hand"]["players"][to_act]["position"]]
    waiter = minh if mover == lan else lan
    path = url(f"tables/{table.pk}/actions")
    move = {"id": "c1", "v": state["v"], "action": {"type": "call"}}
    stranger = make_user()

    first = api(mover).post(path, move)
    again = api(mover).post(path, move)

    assert first.status_code == 200
    assert first.json()["duplicate"] is False
    assert first.json()["v"] == state["v"] + 1
    assert first.json()["state"]["v"] == state["v"] + 1
    assert again.json()["duplicate"] is True
    assert again.json()["v"] == state["v"] + 1
    before = world()
    stale = api(waiter).post(path, {**move, "id": "c2"})
    wrong_turn = api(mover).post(
        path, {"id": "c3", "v": first.json()["v"], "action": {"type": "check"}}
    )
    not_understood = api(waiter).post(path, {"id": "c4", "action": "fold"})
    no_id = api(waiter).post(path, {"action": {"type": "fold"}})
    outsider = api(stranger).post(path, {"id": "c5", "action": {"type": "fold"}})
    assert error(stale) == (409, "stale_version")
    assert error(wrong_turn) == (409, "not_your_turn")
    assert error(not_understood) == (400, "invalid")
    assert list(not_understood.json()["details"]) == ["action"]
    assert error(no_id) == (400, "invalid")
    assert error(outsider) == (409, "not_seated")
    assert world() == before


def test_an_illegal_move_says_why_in_the_players_language(tables, dealer, make_user, api):
    dealer.stack(*ORDINARY, first=0)  # Lan leads and holds the 2♠
    table, lan, minh = dealt_table(make_user, game="tienlen")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    state = api(lan).get(url(f"tables/{table.pk}")).json()
    assert state["actors"] == [0]
    assert "2s" in ORDINARY[0].split()
    before = world()

    english = api(lan, language="en").post(
        url(f"tables/{table.pk}/actions"),
        {"id": "x", "action": {"type": "play", "cards": ["2s", "2s"]}},
        format="json",
    )

    assert error(english) == (409, "duplicate_card")
    assert english.json()["message"] == "A card appears twice."
    assert english.json()["details"] == {"rule": "Card 2s appears twice", "card": "2s"}
    assert world() == before


def test_leave_between_hands_frees_the_seat_and_returns_the_stack(tables, make_user, api):
    table, lan, minh = dealt_table(make_user, game="holdem")

    left = api(lan).post(url(f"tables/{table.pk}/leave"))
    again = api(lan).post(url(f"tables/{table.pk}/leave"))

    assert left.status_code == 204
    assert list(Seat.objects.filter(table=table).values_list("user", flat=True)) == [minh.pk]
    assert Account.objects.get(user=lan, kind="user").balance == 10_000
    assert error(again) == (409, "not_seated")


def test_bots_are_seated_by_the_owner_a_player_or_staff_only(tables, make_user, api):
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=4)
    minh = make_user()
    services.table_sit(table_id=table.pk, user=minh)
    path = url(f"tables/{table.pk}/bots")
    stranger, staff = make_user(), make_user(is_staff=True)
    before = world()

    refused = api(stranger).post(path)
    assert error(refused) == (403, "permission_denied")
    assert world() == before

    by_owner = api(lan).post(path, {"position": 3})
    by_player = api(minh).post(path)
    by_staff = api(staff).post(path)
    full = api(lan).post(path)

    assert by_owner.status_code == 200
    assert by_owner.json()["seat"] is None
    assert by_player.json()["seat"] == 0
    assert by_staff.status_code == 200
    assert sorted(
        Seat.objects.filter(table=table, is_bot=True).values_list("position", flat=True)
    ) == [1, 2, 3]
    assert error(full) == (409, "no_bot_seat")


def test_buy_in_between_hands_adds_to_the_stack(tables, make_user, api):
    table, lan, minh = dealt_table(make_user, game="holdem")
    path = url(f"tables/{table.pk}/buy-in")

    added = api(lan).post(path, {"amount": 600})
    before = world()
    too_much = api(lan).post(path, {"amount": 1_001})
    zero = api(lan).post(path, {"amount": 0})

    assert added.status_code == 200
    assert added.json()["table"]["seats"][0]["chips"] == 1_000
    assert Account.objects.get(user=lan, kind="user").balance == 9_000
    assert error(too_much) == (400, "bad_buy_in")
    assert error(zero) == (400, "invalid")
    assert world() == before
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    assert error(api(lan).post(path, {"amount": 1})) == (409, "hand_in_progress")


def test_buy_in_is_for_poker_only(tables, make_user, api):
    table, lan, _ = dealt_table(make_user, game="maubinh")

    assert error(api(lan).post(url(f"tables/{table.pk}/buy-in"), {"amount": 5})) == (
        400,
        "bad_action",
    )


def test_leave_after_the_hand_stay_auto_ready_and_the_leave_cost_over_http(
    tables, dealer, make_user, api
):
    dealer.stack(*ORDINARY, first=0)  # Lan leads: Minh has played nothing
    table, lan, minh = dealt_table(make_user, game="tienlen")
    base = f"tables/{table.pk}"
    assert api(minh).get(url(f"{base}/leave-cost")).json() == {"leave_cost": None}
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    stranger = make_user()
    before = world()

    cost = api(minh).get(url(f"{base}/leave-cost"))
    bad_when = api(minh).post(url(f"{base}/leave"), {"when": "soon"})
    bad_switch = api(minh, language="en").post(url(f"{base}/auto-ready"), {"on": "maybe"})
    nobody = api(stranger).get(url(f"{base}/leave-cost"))

    # Minh holds 2♦ (red, 6): cóng 26 + 6 = 32 units of 10 chips
    expected = {"chips": 320, "reason": "cong", "exact": False, "detail": {"cards": 13, "thoi": 6}}
    assert cost.json() == {"leave_cost": expected}
    assert error(bad_when) == (400, "invalid")
    assert error(bad_switch) == (400, "invalid")
    assert error(nobody) == (409, "not_seated")
    assert world() == before

    later = api(minh).post(url(f"{base}/leave"), {"when": "after_hand"})
    assert later.status_code == 204
    assert Seat.objects.get(table=table, user=minh).leave_after_hand
    stay = api(minh).post(url(f"{base}/stay"))
    assert stay.status_code == 200
    assert [s["leave_after_hand"] for s in stay.json()["table"]["seats"]] == [False, False]
    switched = api(minh).post(url(f"{base}/auto-ready"), {"on": True})
    assert [s["auto_ready"] for s in switched.json()["table"]["seats"]] == [False, True]
    now = api(minh).post(url(f"{base}/leave"), {"when": "now"})
    assert now.status_code == 204
    assert error(api(minh).post(url(f"{base}/stay"))) == (409, "already_left")


@pytest.mark.parametrize(
    "path", ["sit", "ready", "leave", "stay", "auto-ready", "actions", "bots", "buy-in"]
)
def test_table_actions_need_a_user(tables, make_user, api, path):
    table, _, _ = dealt_table(make_user)
    before = world()

    response = api().post(url(f"tables/{table.pk}/{path}"), {})

    assert error(response) == (401, "not_authenticated")
    assert world() == before
