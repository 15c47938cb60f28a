"""Player cards enumerate no one (issue 34): ``GET /api/v1/players/<id>``
answers only for a player the caller could meet at a table or in the
leaderboard, never for staff, never with a log-in name; every other id gets
the same 404 as an id that does not exist."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from games import services
from wallet.services import account_for_user, signup_grant

from .helpers import url
from .test_leaderboard import settled

pytestmark = pytest.mark.django_db


def card(client, user_id):
    response = client.get(url(f"players/{user_id}"), HTTP_ACCEPT_LANGUAGE="en")
    return response.status_code, response.json()


MISSING = (
    404,
    {"code": "player_not_found", "message": "That player does not exist.", "details": {}},
)


def test_sequential_ids_show_only_players_one_could_meet(make_user, api):
    """Walk every id: fresh accounts, staff and superusers are all "missing"."""
    staff = make_user(username="boss", is_staff=True)
    root = User.objects.create_superuser(username="root-login", password="x" * 20)
    fresh = make_user(username="fresh")
    seated = make_user(username="seated")
    played = make_user(username="played")
    table = services.table_create(owner=seated, game="tienlen", stake=5)
    services.table_sit(table_id=table.pk, user=seated)
    services.table_sit(table_id=table.pk, user=staff)
    settled(table, 1, timezone.now() - timedelta(days=30), {played: 40, staff: -40})
    top = User.objects.order_by("pk").last().pk  # type: ignore[union-attr]

    answers = {user_id: card(api(), user_id) for user_id in range(1, top + 5)}

    shown = {user_id for user_id, (status, _) in answers.items() if status == 200}
    assert shown == {seated.pk, played.pk}
    assert {user_id: answers[user_id] for user_id in answers if user_id not in shown} == {
        user_id: MISSING for user_id in answers if user_id not in shown
    }
    assert {staff.pk, root.pk, fresh.pk} <= set(answers)
    assert "root-login" not in str(answers)
    assert answers[seated.pk][1]["name"] == "Seated"


def test_a_logged_in_player_sees_no_more_of_strangers(make_user, api):
    fresh, other = make_user(username="fresh"), make_user(username="other")
    staff = make_user(username="boss", is_staff=True)

    assert card(api(other), fresh.pk) == MISSING
    assert card(api(fresh), staff.pk) == MISSING
    assert card(api(fresh), fresh.pk)[1]["name"] == "Fresh"  # one's own card


def test_at_a_private_table_only_those_seated_there_see_each_other(make_user, api):
    lan, minh, stranger = (make_user(username=n) for n in ("lan", "minh", "stranger"))
    table = services.table_create(owner=lan, game="tienlen", stake=5, is_private=True)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=minh, invite_code=table.invite_code)

    assert card(api(minh), lan.pk)[0] == 200
    assert card(api(lan), minh.pk)[0] == 200
    assert card(api(stranger), lan.pk) == MISSING
    assert card(api(), minh.pk) == MISSING


def test_a_player_who_leaves_the_only_table_is_no_longer_shown(make_user, api):
    lan = make_user(username="lan")
    table = services.table_create(owner=lan, game="tienlen", stake=5)
    services.table_sit(table_id=table.pk, user=lan)
    assert card(api(), lan.pk)[0] == 200

    services.table_leave(table_id=table.pk, user=lan)

    assert card(api(), lan.pk) == MISSING


def test_an_account_without_a_display_name_never_shows_its_log_in_name(make_user, api):
    root = User.objects.create_superuser(username="root-login", password="x" * 20)
    account_for_user(user=root)
    signup_grant(user=root)
    lan = make_user(username="lan")
    table = services.table_create(owner=lan, game="tienlen", stake=5)
    services.table_sit(table_id=table.pk, user=lan)
    services.table_sit(table_id=table.pk, user=root)
    settled(table, 1, timezone.now(), {lan: 10, root: -10})

    state = api(lan).get(url(f"tables/{table.pk}")).json()
    board = api().get(url("leaderboard"), {"game": "tienlen", "period": "all"}).json()

    names = {s["user_id"]: s["name"] for s in state["table"]["seats"]}
    assert names == {lan.pk: "Lan", root.pk: f"#{root.pk}"}
    assert [(e["user_id"], e["name"]) for e in board["entries"]] == [
        (lan.pk, "Lan"),
        (root.pk, f"#{root.pk}"),
    ]
    assert root.shown_name == f"#{root.pk}"
