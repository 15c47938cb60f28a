"""Hands over HTTP: history, detail, replay and PHH, played for real through
the API. A player never gets another's folded or unshown cards; staff see all."""

from base64 import b64encode
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Hand, HandEvent, HandPlayer

from ..services.driver import play_until_finished
from .helpers import (
    cards,
    dealt_cards,
    error,
    phh_cards,
    phh_hole_cards,
    play_via_api,
    split_cards,
    url,
    world,
)

pytestmark = pytest.mark.django_db


def open_table(tables, make_user, api, game, people, bots=0, **kwargs):
    """A table with people seated and ready through the API, and a hand dealt."""
    owner = people[0]
    table = services.table_create(
        owner=owner, game=game, stake=10, seat_count=len(people) + bots, **kwargs
    )
    clients = {}
    for position, user in enumerate(people):
        client = api(user)
        sat = client.post(
            url(f"tables/{table.pk}/sit"), {"position": position, "invite": table.invite_code}
        )
        assert sat.status_code == 200, sat.json()
        clients[position] = client
    for _ in range(bots):
        services.table_add_bot(table_id=table.pk, user=owner)
    tables.drain()
    for position, client in clients.items():
        # A player never uses a seed twice: one of its own for each table's first hand.
        seed = f"s{position}-{table.pk}"
        ready = client.post(url(f"tables/{table.pk}/ready"), {"client_seed": seed})
        assert ready.status_code == 200
    tables.drain()
    table.refresh_from_db()
    assert table.current_hand_id is not None
    return table, clients


def fold_first(view, step):
    """The hand's first decision folds; everyone else checks or calls to the showdown."""
    if not any(r["kind"] == "acted" for r in view["log"]):
        return {"type": "fold"}
    return {"type": "check"} if view["legal"]["check"] else {"type": "call"}


def all_fold(view, step):
    return {"type": "fold"}


def public_cards(hand):
    """Cards in the events everyone could see at the table."""
    public = HandEvent.objects.filter(hand=hand, visibility=HandEvent.Visibility.EVERYONE)
    return cards([e.payload for e in public])


def test_holdem_replays_and_phh_never_show_a_folded_or_unshown_hand(tables, make_user, api):
    people = [make_user() for _ in range(3)]
    staff, stranger = make_user(is_staff=True), make_user()
    table, clients = open_table(tables, make_user, api, "holdem", people)

    showdown = play_via_api(tables, table, clients, fold_first)
    tables.drain()
    deck, own = dealt_cards(showdown)
    assert showdown.result is not None
    summary = showdown.result["summary"]
    shown = {p["player"] for p in summary["shown"]}
    folded = ({0, 1, 2} - shown).pop()
    assert len(shown) == 2
    board = set(summary["board"])
    assert len(board) == 5
    secret = own[folded]

    for index, position in enumerate(p["position"] for p in showdown.players):
        client = clients[position]
        replay = client.get(url(f"hands/{showdown.pk}/replay")).json()
        seen = cards(replay)
        mine = own[index]
        assert replay["you"] == index
        assert mine <= seen
        others_shown = set().union(*(own[p] for p in shown if p != index))
        assert seen == mine | others_shown | board
        if index != folded:
            assert not secret & seen
        phh = client.get(url(f"hands/{showdown.pk}/phh")).json()
        assert phh["complete"] is False
        holes = phh_hole_cards(phh["phh"])
        written = {(p - 1 + showdown.setup["button"] + 1) % 3: c for p, c in holes.items()}
        for player, text in written.items():
            if player == index or player in shown:
                assert split_cards(text) == own[player]
            else:
                assert text == "????"
        assert phh_cards(phh["phh"]) <= seen
        assert replay["fairness"] == {
            "commitment": showdown.commitment,
            "server_seed": showdown.server_seed,
            "hand_id": showdown.fair_id,
            "client_seeds": [f"s{p}-{table.pk}" for p in (0, 1, 2)],
            "seed_sources": ["player", "player", "player"],
        }
        assert "deck" not in replay

    everything = api(staff).get(url(f"hands/{showdown.pk}/replay")).json()
    assert everything["deck"] == deck
    assert set().union(*own) <= cards(everything["events"])
    assert sorted(e["private_to"] for e in everything["events"] if e["type"] == "dealt") == [
        0,
        1,
        2,
    ]
    archive = api(staff).get(url(f"hands/{showdown.pk}/phh")).json()
    assert archive["complete"] is True
    assert "????" not in archive["phh"]
    assert {frozenset(split_cards(c)) for c in phh_hole_cards(archive["phh"]).values()} == {
        frozenset(o) for o in own
    }

    watcher = api(stranger).get(url(f"hands/{showdown.pk}/replay")).json()
    assert watcher["you"] is None
    assert cards(watcher) == set().union(*(own[p] for p in shown)) | board
    assert error(api(stranger).get(url(f"hands/{showdown.pk}/phh"))) == (403, "not_in_hand")

    services.table_timeout(table_id=table.pk, clock_version=table.clock_version)
    tables.fire(table)
    tables.drain()
    for client in clients.values():
        client.post(url(f"tables/{table.pk}/ready"), {"client_seed": "t"})
    tables.drain()
    table.refresh_from_db()
    uncontested = play_via_api(tables, table, clients, all_fold)
    tables.drain()
    _, own = dealt_cards(uncontested)
    assert uncontested.result is not None
    winner = uncontested.result["summary"]["winners"][0]
    assert uncontested.result["summary"]["shown"] == []
    for index, position in enumerate(p["position"] for p in uncontested.players):
        seen = cards(clients[position].get(url(f"hands/{uncontested.pk}/replay")).json())
        assert seen & set().union(*own) == own[index]
        holes = phh_hole_cards(
            clients[position].get(url(f"hands/{uncontested.pk}/phh")).json()["phh"]
        )
        assert sorted(holes.values()).count("????") == 2
    assert winner in {0, 1, 2}


def test_a_maubinh_player_who_left_before_the_reveal_keeps_their_cards_secret(
    tables, make_user, api
):
    people = [make_user() for _ in range(3)]
    staff = make_user(is_staff=True)
    table, clients = open_table(tables, make_user, api, "maubinh", people)
    leaver = clients.pop(2)
    assert leaver.post(url(f"tables/{table.pk}/leave")).status_code == 204

    hand = play_via_api(tables, table, clients)
    tables.drain()
    deck, own = dealt_cards(hand)
    undealt = set(deck[39:])

    for index in (0, 1):
        replay = clients[index].get(url(f"hands/{hand.pk}/replay")).json()
        detail = clients[index].get(url(f"hands/{hand.pk}")).json()
        seen = cards(replay) | cards(detail)
        assert seen == own[0] | own[1]
        assert [e["type"] for e in replay["events"]].count("dealt") == 1
        assert [e["type"] for e in replay["events"]].count("arranged") == 1
    own_view = leaver.get(url(f"hands/{hand.pk}/replay")).json()
    assert own[2] <= cards(own_view)
    assert not undealt & cards(own_view)
    everything = api(staff).get(url(f"hands/{hand.pk}/replay")).json()
    assert own[2] <= cards(everything["events"])
    assert everything["deck"] == deck
    assert error(clients[0].get(url(f"hands/{hand.pk}/phh"))) == (409, "phh_unavailable")


def test_a_tienlen_replay_has_only_the_callers_private_events(tables, make_user, api):
    people = [make_user() for _ in range(2)]
    stranger = make_user()
    table, clients = open_table(tables, make_user, api, "tienlen", people, bots=1)

    hand = play_until_finished(tables, table)
    tables.drain()

    private = HandEvent.objects.filter(hand=hand, visibility=HandEvent.Visibility.SEAT)
    for index, position in enumerate(p["position"] for p in hand.players):
        if position not in clients:
            continue
        replay = clients[position].get(url(f"hands/{hand.pk}/replay")).json()
        assert [e["seq"] for e in replay["events"]] == sorted(
            e.seq
            for e in HandEvent.objects.filter(hand=hand)
            if e.visibility == "all" or e.player == index
        )
        assert [e["cards"] for e in replay["events"] if e["type"] == "dealt"] == [
            private.get(player=index, type="dealt").payload["cards"]
        ]
    watcher = api(stranger).get(url(f"hands/{hand.pk}/replay")).json()
    assert [e["seq"] for e in watcher["events"]] == sorted(
        HandEvent.objects.filter(hand=hand, visibility="all").values_list("seq", flat=True)
    )
    assert cards(watcher["events"]) == public_cards(hand)


def test_history_lists_my_hands_with_filters_and_the_detail_itemises_the_result(
    tables, make_user, api
):
    lan, minh = make_user(), make_user()
    table, clients = open_table(tables, make_user, api, "tienlen", [lan, minh])
    hand = play_via_api(tables, table, clients)
    tables.drain()
    hand.refresh_from_db()
    nets = dict(HandPlayer.objects.filter(hand=hand).values_list("user", "net"))
    today = timezone.localdate().isoformat()
    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()

    mine = api(lan).get(url("hands")).json()
    same_day = api(lan).get(url("hands"), {"date_after": today, "date_before": today}).json()
    before = api(lan).get(url("hands"), {"date_before": yesterday}).json()
    other_game = api(lan).get(url("hands"), {"game": "holdem"}).json()
    nothing = api(make_user()).get(url("hands")).json()
    detail = api(lan).get(url(f"hands/{hand.pk}")).json()

    assert (len(mine["results"]), mine["next"], mine["previous"]) == (1, None, None)
    row = mine["results"][0]
    assert row == {
        "id": hand.pk,
        "table": table.pk,
        "game": "tienlen",
        "number": 1,
        "stake": 10,
        "started_at": row["started_at"],
        "ended_at": row["ended_at"],
        "settled": True,
        "voided": False,
        "you": 0,
        "position": 0,
        "net": nets[lan.pk],
        "timeouts": 0,
        "players": [
            {"position": 0, "user_id": lan.pk, "name": lan.display_name, "bot": False},
            {"position": 1, "user_id": minh.pk, "name": minh.display_name, "bot": False},
        ],
    }
    assert len(same_day["results"]) == 1
    assert before["results"] == other_game["results"] == nothing["results"] == []
    lan_net, minh_net = nets[lan.pk], nets[minh.pk]
    assert lan_net is not None
    assert minh_net is not None
    assert lan_net == -minh_net != 0
    assert detail["you"] == 0
    result = detail["result"]
    assert (result["game"], result["voided"], result["unit"]) == ("tienlen", False, 10)
    assert result["chips"] == [nets[lan.pk], nets[minh.pk]]
    assert [p["index"] for p in detail["players"]] == [0, 1]
    assert result["payments"]
    owed = {0: 0, 1: 0}
    for payment in result["payments"]:
        owed[payment["payer"]] -= payment["amount"]
        owed[payment["payee"]] += payment["amount"]
    assert hand.result is not None
    assert owed == dict(enumerate(result["net"]))
    assert result == hand.result
    assert result["summary"]["winner"] in {0, 1}
    bad = api(lan).get(url("hands"), {"date_after": "monday", "game": "chess"})
    assert error(bad) == (400, "invalid")
    assert set(bad.json()["details"]) == {"date", "game"}


def test_who_may_look_at_a_hand(tables, make_user, api):
    lan, minh = make_user(), make_user()
    stranger, staff = make_user(), make_user(is_staff=True)
    public, _ = open_table(tables, make_user, api, "tienlen", [lan, minh])
    public_hand = play_until_finished(tables, public)
    private, _ = open_table(tables, make_user, api, "tienlen", [lan, minh], is_private=True)
    private_hand = play_until_finished(tables, private)
    tables.drain()
    playing, _ = open_table(tables, make_user, api, "holdem", [make_user(), make_user()])
    live = Hand.objects.get(pk=playing.current_hand_id)
    before = world()

    def status(user, path):
        response = api(user).get(url(path))
        return response.status_code if response.status_code == 200 else error(response)

    for suffix in ("", "/replay", "/phh"):
        assert status(None, f"hands/{public_hand.pk}{suffix}") == (401, "not_authenticated")
        assert status(stranger, f"hands/{private_hand.pk}{suffix}") == (403, "private_table")
        assert status(stranger, f"hands/999999{suffix}") == (404, "hand_not_found")
        assert status(staff, f"hands/{live.pk}{suffix}") == (409, "hand_not_finished")
    for suffix in ("", "/replay"):
        assert status(stranger, f"hands/{public_hand.pk}{suffix}") == 200
        assert status(lan, f"hands/{private_hand.pk}{suffix}") == 200
        assert status(staff, f"hands/{private_hand.pk}{suffix}") == 200
    assert status(None, "hands") == (401, "not_authenticated")
    assert status(staff, "hands") == 200
    assert api(staff).get(url("hands")).json()["results"] == []
    assert world() == before


def test_history_is_paginated_by_cursor_and_a_new_hand_shifts_nothing(make_user, api):
    from .test_leaderboard import settled

    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    start = timezone.now() - timedelta(hours=1)
    ends = [start + timedelta(minutes=i // 2) for i in range(5)]  # two by two: ties
    hands = [settled(table, n + 1, end, {lan: n, minh: -n}) for n, end in enumerate(ends)]
    client = api(lan, language="en")

    first = client.get(url("hands"), {"page_size": 2}).json()
    settled(table, 6, timezone.now(), {lan: 6, minh: -6})  # while the player reads
    second = client.get(first["next"]).json()
    third = client.get(second["next"]).json()
    forged = b64encode(b"p=yesterday").decode()
    bad = client.get(url("hands"), {"cursor": forged})

    newest_first = [h.pk for h in reversed(hands)]
    seen = [row["id"] for page in (first, second, third) for row in page["results"]]
    assert seen == newest_first
    assert third["next"] is None
    assert error(bad) == (400, "invalid")
    assert list(bad.json()["details"]) == ["cursor"]
    assert error(client.get(url("hands"), {"page": 1})) == (400, "invalid")
