"""Every endpoint as anonymous, as another user (not at the table, not in the
hand) and as staff: exact status and code, and a refusal changes nothing."""

import pytest

from games import services
from games.models import Hand
from games.plugins import engine_for

from .helpers import url, world

pytestmark = pytest.mark.django_db
SEED = "ab" * 32


def folded_hand(tables, table, users):
    """Both players ready; whoever acts first folds: a finished Poker hand."""
    for user in users:
        services.table_ready(table_id=table.pk, user=user)
    table.refresh_from_db()
    assert table.current_hand_id is not None
    hand = Hand.objects.get(pk=table.current_hand_id)
    engine = engine_for("holdem")
    actor = engine.status(engine.loads(hand.state)).actors[0]
    mover = next(u for u in users if u.pk == hand.players[actor]["user_id"])
    services.table_act(table_id=table.pk, user=mover, action={"type": "fold"})
    tables.drain()
    return hand


def test_each_endpoint_for_anonymous_another_user_and_staff(tables, make_user, api):
    lan, minh = make_user(), make_user()
    public = services.table_create(owner=lan, game="holdem", stake=1, seat_count=3)
    for user in (lan, minh):
        services.table_sit(table_id=public.pk, user=user)
    hand = folded_hand(tables, public, [lan, minh])
    private = services.table_create(
        owner=lan, game="holdem", stake=1, seat_count=2, is_private=True
    )
    for user in (lan, minh):
        services.table_sit(table_id=private.pk, user=user, invite_code=private.invite_code)
    secret = folded_hand(tables, private, [lan, minh])
    people = {"anonymous": None, "other": make_user(), "staff": make_user(is_staff=True)}
    fairness = {"server_seed": SEED, "hand_id": "1-1"}
    signup = {"username": "x", "display_name": "X", "password": "Bai-Tien-Len-42"}

    rows = [
        ("get", "me", None, (401, "not_authenticated"), 200, 200),
        ("get", "wallet", None, (401, "not_authenticated"), 200, 200),
        ("get", "wallet/ledger", None, (401, "not_authenticated"), 200, 200),
        ("get", "tables", None, 200, 200, 200),
        ("get", f"tables/{public.pk}", None, 200, 200, 200),
        ("get", f"tables/{private.pk}", None, (403, "private_table"), (403, "private_table"), 200),
        (
            "post",
            f"tables/{private.pk}/sit",
            {},
            (401, "not_authenticated"),
            (403, "private_table"),
            (403, "private_table"),
        ),
        (
            "post",
            f"tables/{public.pk}/ready",
            {},
            (401, "not_authenticated"),
            (409, "not_seated"),
            (409, "not_seated"),
        ),
        (
            "post",
            f"tables/{public.pk}/leave",
            None,
            (401, "not_authenticated"),
            (409, "not_seated"),
            (409, "not_seated"),
        ),
        (
            "post",
            f"tables/{public.pk}/actions",
            {"id": "a", "action": {"type": "fold"}},
            (401, "not_authenticated"),
            (409, "not_seated"),
            (409, "not_seated"),
        ),
        (
            "post",
            f"tables/{public.pk}/buy-in",
            {"amount": 10},
            (401, "not_authenticated"),
            (409, "not_seated"),
            (409, "not_seated"),
        ),
        (
            "post",
            f"tables/{public.pk}/bots",
            {},
            (401, "not_authenticated"),
            (403, "permission_denied"),
            200,
        ),
        ("get", "hands", None, (401, "not_authenticated"), 200, 200),
        ("get", f"hands/{hand.pk}", None, (401, "not_authenticated"), 200, 200),
        ("get", f"hands/{hand.pk}/replay", None, (401, "not_authenticated"), 200, 200),
        ("get", f"hands/{hand.pk}/replay/steps", None, (401, "not_authenticated"), 200, 200),
        (
            "get",
            f"hands/{hand.pk}/phh",
            None,
            (401, "not_authenticated"),
            (403, "not_in_hand"),
            200,
        ),
        (
            "get",
            f"hands/{secret.pk}",
            None,
            (401, "not_authenticated"),
            (403, "private_table"),
            200,
        ),
        (
            "get",
            f"hands/{secret.pk}/replay",
            None,
            (401, "not_authenticated"),
            (403, "private_table"),
            200,
        ),
        (
            "get",
            f"hands/{secret.pk}/replay/steps",
            None,
            (401, "not_authenticated"),
            (403, "private_table"),
            200,
        ),
        (
            "get",
            f"hands/{secret.pk}/phh",
            None,
            (401, "not_authenticated"),
            (403, "private_table"),
            200,
        ),
        ("get", "leaderboard?game=holdem", None, 200, 200, 200),
        ("post", "fairness/verify", fairness, 200, 200, 200),
        ("post", "auth/signup", signup, 201, (400, "username_taken"), (400, "username_taken")),
        ("post", "tables", {"game": "tienlen", "stake": 1}, (401, "not_authenticated"), 201, 201),
        ("post", "wallet/bonus", None, (401, "not_authenticated"), 201, 201),
        ("post", "auth/logout", None, (401, "not_authenticated"), 204, 204),
    ]

    got, expected = [], []
    for method, path, body, *answers in rows:
        for (who, user), answer in zip(people.items(), answers, strict=True):
            before = world()
            response = getattr(api(user), method)(url(path), body)
            status = response.status_code
            result = status if status < 400 else (status, response.json()["code"])
            got.append((method, path, who, result))
            expected.append((method, path, who, answer))
            if status >= 400:
                assert world() == before, (method, path, who)
    assert got == expected
