"""Your game found again (issue 30, item 3): ``GET /api/v1/me/tables`` (where
you sit, what you own, where you were invited), private tables listed to their
owner and invited players only, an owner closing their table exactly as a
moderator's force-close does, and the players' user ids in lobby entries.
(The lobby socket's side: tests/consumers/test_my_tables.py; the pages:
tests/views/test_my_tables.py.)"""

import pytest

from games import services
from games.models import Hand, Invitation, Seat, Table
from games.plugins import plugin_for
from moderation import services as moderation
from wallet.models import LedgerTransaction

from ..moderation.helpers import (
    current_hand,
    deal,
    holdings,
    move_once,
    players_total,
    wallets,
)
from ..registry import GAMES
from ..services.driver import play_until_finished
from ..wallet.helpers import snapshot
from .helpers import error, url, world

pytestmark = pytest.mark.django_db

POKER_BUY_IN = 100  # at stake 1: between 40 and 200


def lobby(client):
    """The lobby's entries as this client sees them, by table id."""
    response = client.get(url("tables"), {"page_size": 100})
    assert response.status_code == 200
    return {t["id"]: t for t in response.json()["results"]}


def mine(client):
    response = client.get(url("me/tables"))
    assert response.status_code == 200
    return response.json()


REASONS = ("seat", "owned", "invited", "invite_code")


def test_my_tables_says_where_i_sit_what_i_own_and_where_i_was_invited(
    tables, make_user, api, settings
):
    settings.MAX_OPEN_TABLES_PER_USER = 10
    lan, minh, an = make_user(), make_user(), make_user()
    owned = services.table_create(owner=lan, game="tienlen", stake=1, name="Bàn Lan")
    playing = services.table_create(owner=minh, game="holdem", stake=1, seat_count=2)
    for user in (lan, minh):
        services.table_sit(table_id=playing.pk, user=user, buy_in=POKER_BUY_IN)
    for user in (lan, minh):
        services.table_ready(table_id=playing.pk, user=user)
    services.table_leave(table_id=playing.pk, user=lan, when=services.LEAVE_AFTER_HAND)
    sitting = services.table_create(owner=an, game="maubinh", stake=1)
    services.table_sit(table_id=sitting.pk, user=lan)
    services.table_sit(table_id=sitting.pk, user=an)
    private = services.table_create(owner=an, game="tienlen", stake=1, is_private=True)
    opened = api(lan).get(url(f"tables/{private.pk}"), {"invite": private.invite_code})
    assert opened.status_code == 200
    closed = services.table_create(owner=lan, game="tienlen", stake=1)
    services.table_close(table_id=closed.pk, by=lan)
    services.table_create(owner=an, game="tienlen", stake=1)  # nothing of lan's
    assert Hand.objects.get(table=playing).ended_at is None

    listed = mine(api(lan))

    # Where I sit first (the newest first), then what I own, then invitations.
    assert [t["id"] for t in listed] == [sitting.pk, playing.pk, owned.pk, private.pk]
    assert [{k: t[k] for k in REASONS} for t in listed] == [
        {
            "seat": {
                "position": 0,
                "in_hand": False,
                "leaving": False,
                "leave_after_hand": False,
                # Mậu Binh: the wallet hold of the table's minimum balance
                "chips": plugin_for("maubinh").money.min_balance(sitting),
            },
            "owned": False,
            "invited": False,
            "invite_code": None,
        },
        {
            "seat": {
                "position": 0,
                "in_hand": True,
                "leaving": False,
                "leave_after_hand": True,
                "chips": POKER_BUY_IN,  # Poker: the stack (blinds move at the settlement)
            },
            "owned": False,
            "invited": False,
            "invite_code": None,
        },
        {"seat": None, "owned": True, "invited": False, "invite_code": None},
        {"seat": None, "owned": False, "invited": True, "invite_code": None},
    ]
    # Each is the lobby's own entry (the same serializer), with who sits by id.
    entries = lobby(api(lan))
    for entry in listed:
        assert {k: v for k, v in entry.items() if k not in REASONS} == entries[entry["id"]]
    assert [p["user_id"] for p in listed[0]["players"]] == [lan.pk, an.pk]
    assert [p["user_id"] for p in listed[1]["players"]] == [lan.pk, minh.pk]
    assert listed[3]["private"] is True
    # The others' lists, and nobody's without a token.
    assert [t["id"] for t in mine(api(minh))] == [playing.pk]
    assert {t["id"]: t["owned"] for t in mine(api(an))}[private.pk] is True
    assert error(api().get(url("me/tables"))) == (401, "not_authenticated")


def test_a_player_dealt_out_of_the_hand_in_play_is_seated_but_not_in_it(tables, make_user, api):
    lan, minh, an = make_user(), make_user(), make_user()
    table = services.table_create(owner=lan, game="holdem", stake=1, seat_count=3)
    for user in (lan, minh):
        services.table_sit(table_id=table.pk, user=user, buy_in=POKER_BUY_IN)
        services.table_ready(table_id=table.pk, user=user)
    services.table_sit(table_id=table.pk, user=an, buy_in=POKER_BUY_IN)  # after the deal

    (late,) = mine(api(an))
    (dealt,) = mine(api(minh))

    assert (late["seat"]["position"], late["seat"]["in_hand"]) == (2, False)
    assert (dealt["seat"]["position"], dealt["seat"]["in_hand"]) == (1, True)


def test_a_private_table_is_listed_to_its_owner_and_invited_players_only(tables, make_user, api):
    lan, minh, khoa, stranger = make_user(), make_user(), make_user(), make_user()
    private = services.table_create(
        owner=lan, game="tienlen", stake=1, is_private=True, name="Nhà Lan"
    )
    public = services.table_create(owner=lan, game="tienlen", stake=1)
    code = private.invite_code

    # Before anyone is invited: only its owner finds it.
    assert set(lobby(api(lan))) == {private.pk, public.pk}
    assert set(lobby(api(minh))) == set(lobby(api())) == {public.pk}
    assert {t["id"]: t["invite_code"] for t in mine(api(lan))} == {
        private.pk: code,
        public.pk: None,
    }

    # Opening it with a wrong code, or a public table with any, invites nobody.
    assert error(api(stranger).get(url(f"tables/{private.pk}"), {"invite": "wrong"})) == (
        403,
        "private_table",
    )
    api(stranger).get(url(f"tables/{public.pk}"), {"invite": code})
    api(lan).get(url(f"tables/{private.pk}"), {"invite": code})  # its owner is never invited
    assert not Invitation.objects.exists()

    # Minh opens it with the code (its link): he is invited from then on; Khoa
    # sits down with the code.
    assert api(minh).get(url(f"tables/{private.pk}"), {"invite": code}).status_code == 200
    sat = api(khoa).post(url(f"tables/{private.pk}/sit"), {"invite": code})
    assert sat.status_code == 200
    assert set(Invitation.objects.values_list("user_id", flat=True)) == {minh.pk, khoa.pk}

    for user in (lan, minh, khoa):
        entries = lobby(api(user))
        assert set(entries) == {private.pk, public.pk}
        assert entries[private.pk]["private"] is True
        assert [p["user_id"] for p in entries[private.pk]["players"]] == [khoa.pk]
    assert set(lobby(api(stranger))) == set(lobby(api())) == {public.pk}
    assert "Nhà Lan" not in str(api(stranger).get(url("tables")).json())
    # The code only to its owner.
    assert {t["id"]: t["invite_code"] for t in mine(api(lan))}[private.pk] == code
    for user in (minh, khoa, stranger):
        assert code not in str(api(user).get(url("tables")).json())
        assert code not in str(mine(api(user)))
    assert [(t["invited"], t["seat"] is not None) for t in mine(api(khoa))] == [(True, True)]
    assert mine(api(stranger)) == []

    # An invited player needs the code no more: to look, and to sit.
    assert api(minh).get(url(f"tables/{private.pk}")).json()["table"]["id"] == private.pk
    assert api(minh).post(url(f"tables/{private.pk}/sit")).json()["seat"] == 1
    assert error(api(stranger).get(url(f"tables/{private.pk}"))) == (403, "private_table")
    assert error(api(stranger).post(url(f"tables/{private.pk}/sit"))) == (403, "private_table")

    # Closed, it is nobody's to find.
    services.table_close(table_id=private.pk, by=lan)
    for user in (lan, minh, khoa):
        assert private.pk not in lobby(api(user))
        assert private.pk not in {t["id"] for t in mine(api(user))}


def test_the_lobby_names_each_player_by_user_id(tables, make_user, api):
    lan = make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=1, seat_count=3)
    services.table_sit(table_id=table.pk, user=lan)
    bot = services.table_add_bot(table_id=table.pk, user=lan)

    (entry,) = lobby(api()).values()

    assert entry["players"] == [
        {
            "position": 0,
            "user_id": lan.pk,
            "name": lan.shown_name,
            "avatar": lan.avatar_key,
            "bot": False,
        },
        {
            "position": 1,
            "user_id": bot.user_id,
            "name": bot.user.shown_name,
            "avatar": bot.user.avatar_key,
            "bot": True,
        },
    ]


def closed_picture(table, hand):
    """What a close left: the hand's result but its reason, the table's status,
    its seats, and the seat escrows."""
    hand.refresh_from_db()
    table.refresh_from_db()
    result = dict(hand.result)
    result.pop("reason")
    return {
        "hand": (hand.voided, hand.settled, hand.ended_at is not None, result),
        "table": table.status,
        "seats": Seat.objects.filter(table=table).count(),
        "settled": LedgerTransaction.objects.filter(
            idempotency_key=f"hand:{hand.pk}:settle"
        ).exists(),
    }


@pytest.mark.parametrize("game", GAMES)
def test_the_owner_closes_mid_hand_exactly_as_a_force_close_does(tables, make_user, api, game):
    staff = make_user(is_staff=True)
    forced, forced_players, forced_before = deal(make_user, game)
    table, players, before = deal(make_user, game)
    owner = players[0]
    assert table.owner == owner
    total = players_total()
    for t in (forced, table):
        move_once(t)
    forced_hand, hand = current_hand(forced), current_hand(table)
    assert hand is not None
    assert forced_hand is not None

    moderation.table_force_close(by=staff, table_id=forced.pk, reason="bot ring")
    response = api(owner).post(url(f"tables/{table.pk}/close"))

    assert response.status_code == 200
    state = response.json()
    assert (state["table"]["status"], state["table"]["seats"], state["seat"]) == (
        "closed",
        [],
        None,
    )
    assert state["table"]["closed_reason"] == "Chủ bàn đã đóng bàn."
    assert state["hand"]["result"]["voided"] is True
    assert state["hand"]["result"]["reason"] == "Chủ bàn đã đóng bàn."
    assert closed_picture(table, hand) == closed_picture(forced, forced_hand)
    assert closed_picture(table, hand)["hand"][:2] == (True, True)  # voided, nothing paid
    # Every chip where it was before the hand: wallets (Poker stacks back in them).
    assert holdings(players) == wallets(players) == before
    assert holdings(forced_players) == wallets(forced_players) == forced_before
    assert players_total() == total


def test_the_owner_closing_after_a_hand_ended_settles_it_first(tables, make_user, api):
    table, players, _ = deal(make_user, "holdem")
    held: list[int] = []
    tables.scheduler.settle = held.append
    hand = play_until_finished(tables, table)
    assert hand.settled is False

    assert api(players[0]).post(url(f"tables/{table.pk}/close")).status_code == 200

    hand.refresh_from_db()
    assert (hand.voided, hand.settled) == (False, True)
    assert hand.result is not None
    assert wallets(players) == {
        u.pk: 10_000 + hand.result["chips"][i] for i, u in enumerate(players)
    }


def test_only_the_owner_may_close_and_a_refusal_changes_nothing(tables, make_user, api):
    lan, minh, khoa, stranger = make_user(), make_user(), make_user(), make_user()
    staff = make_user(is_staff=True)
    public = services.table_create(owner=lan, game="tienlen", stake=1)
    private = services.table_create(owner=lan, game="tienlen", stake=1, is_private=True)
    services.table_sit(table_id=public.pk, user=minh)
    services.table_sit(table_id=private.pk, user=khoa, invite_code=private.invite_code)
    close = lambda table: url(f"tables/{table.pk}/close")  # noqa: E731
    before = world()

    assert error(api(stranger).post(close(public))) == (403, "not_table_owner")
    assert error(api(minh).post(close(public))) == (403, "not_table_owner")  # seated there
    assert error(api(staff).post(close(public))) == (
        403,
        "not_table_owner",
    )  # the admin's is audited
    assert error(api(stranger).post(close(private))) == (403, "private_table")
    assert error(api(khoa).post(close(private))) == (403, "not_table_owner")  # invited
    assert error(api().post(close(public))) == (401, "not_authenticated")
    assert error(api(lan).post(url("tables/999999/close"))) == (404, "table_not_found")
    assert world() == before
    english = api(stranger, language="en").post(close(public)).json()["message"]
    assert english == "Only the table's owner can do that."


def test_closing_a_closed_table_answers_the_same_and_refunds_nothing_twice(tables, make_user, api):
    table, players, before = deal(make_user, "holdem")
    move_once(table)
    owner = api(players[0])

    first = owner.post(url(f"tables/{table.pk}/close"))
    after_first = (snapshot(), Table.objects.filter(pk=table.pk).values().get())
    again = owner.post(url(f"tables/{table.pk}/close"))

    assert (first.status_code, again.status_code) == (200, 200)
    first_body, again_body = first.json(), again.json()
    first_body.pop("server_time")
    again_body.pop("server_time")
    assert again_body == first_body
    assert (snapshot(), Table.objects.filter(pk=table.pk).values().get()) == after_first
    assert wallets(players) == before
