"""Table services: seats, readiness, refusals, idempotency, leaving mid-hand."""

import pytest

from games import services
from games.errors import (
    AlreadySeated,
    BadBuyIn,
    IllegalMove,
    NotEnoughChips,
    NotSeated,
    PrivateTable,
    SeatTaken,
    StaleVersion,
    TableFull,
)
from games.models import Hand, HandEvent, Seat, Table
from games.plugins import engine_for
from wallet import services as wallet
from wallet.models import Account

from ..registry import GAMES, buy_in
from ..seeds import ORDINARY
from ..tables import assert_money_consistent
from ..wallet.helpers import snapshot
from .driver import play_until_finished

pytestmark = pytest.mark.django_db


def table_snapshot(table):
    table.refresh_from_db()
    hand = Hand.objects.filter(pk=table.current_hand_id).values("state", "event_count").first()
    seats = list(Seat.objects.filter(table=table).order_by("position").values())
    return (table.version, table.status, table.deadline, hand, seats, snapshot())


def two_player_table(make_user, game="tienlen", **kw):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game=game, stake=10, seat_count=2, **kw)
    buy = buy_in(game, 1_000)
    services.table_sit(table_id=table.pk, user=lan, buy_in=buy)
    services.table_sit(table_id=table.pk, user=minh, buy_in=buy)
    return table, lan, minh


def test_seat_refusals_change_nothing(tables, make_user):
    table, lan, _ = two_player_table(make_user)
    other = make_user()
    before = table_snapshot(table)

    with pytest.raises(AlreadySeated):
        services.table_sit(table_id=table.pk, user=lan)
    with pytest.raises(TableFull):
        services.table_sit(table_id=table.pk, user=other)
    with pytest.raises(NotSeated):
        services.table_ready(table_id=table.pk, user=other)

    assert table_snapshot(table) == before


def test_sitting_needs_thirty_stakes_and_holdem_a_buy_in_in_range(tables, make_user):
    poor, rich = make_user(), make_user()
    wallet.transfer(  # leave 299 chips: below 30 x the stake of 10
        source=Account.objects.get(user=poor),
        destination=Account.objects.get(user=rich),
        amount=9_701,
        key="spend",
    )
    table = services.table_create(owner=rich, game="maubinh", stake=10)
    with pytest.raises(NotEnoughChips) as err:
        services.table_sit(table_id=table.pk, user=poor)
    assert err.value.message == "Bạn cần ít nhất 300 chip để ngồi vào bàn này."

    poker = services.table_create(owner=rich, game="holdem", stake=10)
    with pytest.raises(BadBuyIn):
        services.table_sit(table_id=poker.pk, user=rich, buy_in=399)  # 20 big blinds = 400
    with pytest.raises(BadBuyIn):
        services.table_sit(table_id=poker.pk, user=rich, buy_in=2_001)
    services.table_sit(table_id=poker.pk, user=rich, buy_in=2_000, position=3)
    with pytest.raises(SeatTaken):
        services.table_sit(table_id=poker.pk, user=make_user(), buy_in=500, position=3)
    assert Account.objects.get(key=f"seat:{poker.pk}:3").balance == 2_000


def test_private_table_needs_its_invite_code(tables, make_user):
    owner, guest = make_user(), make_user()
    table = services.table_create(owner=owner, game="tienlen", stake=1, is_private=True)
    with pytest.raises(PrivateTable):
        services.table_sit(table_id=table.pk, user=guest)
    services.table_sit(table_id=table.pk, user=guest, invite_code=table.invite_code)
    assert Seat.objects.filter(table=table, user=guest).exists()


def test_players_not_ready_in_twenty_seconds_leave_the_table(tables, make_user):
    table, lan, _ = two_player_table(make_user)
    services.table_ready(table_id=table.pk, user=lan)
    table.refresh_from_db()
    assert table.clock == "ready"
    assert (table.deadline - tables.clock.now()).total_seconds() == 20

    tables.clock.advance(seconds=19)
    assert not services.table_timeout(table_id=table.pk, clock_version=table.clock_version)
    assert tables.fire(table)

    assert list(Seat.objects.filter(table=table).values_list("user", flat=True)) == [lan.pk]
    table.refresh_from_db()
    assert (table.status, table.clock) == ("waiting", "")


def test_a_repeated_client_id_is_applied_once(tables, make_user):
    table, lan, minh = two_player_table(make_user, game="holdem")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    table.refresh_from_db()
    hand = Hand.objects.get(pk=table.current_hand_id)
    # Heads-up the button posts the small blind and acts first (docs/rules.md 4).
    button_user = hand.players[hand.setup["button"]]["user_id"]
    mover = lan if button_user == lan.pk else minh
    act = services.table_act

    first = act(table_id=table.pk, user=mover, action={"type": "call"}, client_id="x1")
    again = act(table_id=table.pk, user=mover, action={"type": "call"}, client_id="x1")

    assert first["duplicate"] is False
    assert again == {"duplicate": True, "v": first["v"]}
    calls = list(HandEvent.objects.filter(hand=hand, type="acted"))
    assert [e.payload["action"] for e in calls if e.payload.get("player") is not None].count(
        "call"
    ) == 1


def test_stale_and_illegal_actions_are_refused_and_change_nothing(tables, make_user):
    table, lan, minh = two_player_table(make_user, game="holdem")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    table.refresh_from_db()
    hand = Hand.objects.get(pk=table.current_hand_id)
    button_user = lan if hand.players[hand.setup["button"]]["user_id"] == lan.pk else minh
    waiting_user = minh if button_user == lan else lan
    old_version = table.version - 1
    before = table_snapshot(table)

    with pytest.raises(StaleVersion):
        services.table_act(
            table_id=table.pk, user=button_user, action={"type": "call"}, version=old_version
        )
    with pytest.raises(IllegalMove) as err:
        services.table_act(table_id=table.pk, user=waiting_user, action={"type": "call"})
    assert err.value.code == "not_your_turn"
    assert err.value.message == "Chưa đến lượt bạn."
    with pytest.raises(IllegalMove) as err:
        services.table_act(table_id=table.pk, user=button_user, action={"type": "raise", "to": 1})
    assert err.value.code == "illegal_move"
    with pytest.raises(IllegalMove):
        services.table_act(table_id=table.pk, user=button_user, action={"type": "dance"})

    assert table_snapshot(table) == before


def test_a_stale_version_is_refused_only_once_the_turn_or_phase_moved_on(tables, make_user):
    """Mậu Binh players arrange at the same time: one's submission does not
    make another's stale. A new phase (the reveal) does."""
    table, lan, minh = two_player_table(make_user, game="maubinh")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    table.refresh_from_db()
    dealt_at = table.version
    hand = Hand.objects.get(pk=table.current_hand_id)
    engine = engine_for("maubinh")
    state = engine.loads(hand.state)

    def suggestion(user):
        player = next(i for i, p in enumerate(hand.players) if p["user_id"] == user.pk)
        return engine.bot_action(engine.view(state, player), seed=0)

    services.table_act(table_id=table.pk, user=lan, action=suggestion(lan), version=dealt_at)
    services.table_act(table_id=table.pk, user=minh, action=suggestion(minh), version=dealt_at)
    table.refresh_from_db()
    assert table.clock == "reveal"
    before = table_snapshot(table)

    with pytest.raises(StaleVersion):
        services.table_act(table_id=table.pk, user=lan, action=suggestion(lan), version=dealt_at)
    assert table_snapshot(table) == before


@pytest.mark.parametrize("game", GAMES)
def test_leaving_mid_hand_plays_on_and_frees_the_seat_after_settlement(
    tables, dealer, make_user, game
):
    dealer.stack(*ORDINARY)  # no instant win, which would end the hand at the deal
    table, lan, minh = two_player_table(make_user, game=game)
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    table.refresh_from_db()
    assert table.status == "playing"

    services.table_leave(table_id=table.pk, user=minh)

    seat = Seat.objects.get(table=table, user=minh)
    assert seat.leaving
    hand = play_until_finished(tables, table)
    tables.drain()
    hand.refresh_from_db()
    assert hand.settled
    assert not Seat.objects.filter(table=table, user=minh).exists()
    if game == "maubinh":
        assert hand.result is not None
        # Left before the reveal: loses each chi (1 unit each) to Lan's arrangement.
        assert [p["reason"] for p in hand.result["payments"]] == ["left"] * 3
        assert hand.result["net"] == [3, -3]
        assert hand.result["chips"] == [30, -30]
    assert_money_consistent()


def test_the_lobby_hears_about_seats(tables, make_user, monkeypatch):
    from games import publish

    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(publish, "send", lambda messages, **_: sent.extend(messages))
    lan = make_user()
    table = services.table_create(owner=lan, game="maubinh", stake=5)
    services.table_sit(table_id=table.pk, user=lan)

    lobby = [m for g, m in sent if g == publish.LOBBY_GROUP]
    assert [m["table"]["taken"] for m in lobby] == [0, 1]
    assert lobby[-1]["table"] == {
        "id": table.pk,
        "game": "maubinh",
        "name": "",
        "preset": "vipgame",
        "stake": 5,
        "seat_count": 4,
        "taken": 1,
        "humans": 1,
        "players": [
            {
                "position": 0,
                "user_id": lan.pk,
                "name": lan.shown_name,
                "avatar": lan.avatar_key,
                "bot": False,
            }
        ],
        "status": "waiting",
        "private": False,
        "rules": [],
    }


def test_a_private_tables_lobby_card_goes_to_its_own_people_only(tables, make_user, monkeypatch):
    from games import publish
    from kernel import notify

    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(notify, "send", lambda messages, **_: sent.extend(messages))
    lan, minh, khoa = make_user(), make_user(), make_user()
    make_user()  # nobody else hears of it, nor the lobby's group: the groups are all below
    table = services.table_create(owner=lan, game="maubinh", stake=5, is_private=True)
    services.invite_redeem(table_id=table.pk, user=minh, invite_code=table.invite_code)
    services.table_sit(table_id=table.pk, user=khoa, invite_code=table.invite_code)
    services.table_add_bot(table_id=table.pk, user=lan)

    def told() -> dict[str, list[int]]:
        cards: dict[str, list[int]] = {}
        for group, message in sent:
            if message["type"] == "lobby.table":
                cards.setdefault(group, []).append(message["table"]["taken"])
        sent.clear()
        return cards

    group = publish.lobby_user_group
    assert told() == {
        group(lan.pk): [0, 1, 2],  # opened, Khoa sat, a bot sat
        group(minh.pk): [0, 1, 2],  # invited (its own card), then as it changes
        group(khoa.pk): [1, 2],
    }
    services.table_leave(table_id=table.pk, user=khoa)
    # Who left hears too (the bot went with the last person: never told).
    assert told() == {group(u.pk): [0] for u in (lan, minh, khoa)}


def test_closing_a_table_mid_hand_voids_it_and_returns_the_stacks(tables, make_user):
    table, lan, minh = two_player_table(make_user, game="holdem")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    before = {u.pk: Account.objects.get(user=u, kind="user").balance for u in (lan, minh)}

    services.table_close(table_id=table.pk, by=lan, reason="closing time")

    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    hand = Hand.objects.get(pk=table.current_hand_id)
    assert (hand.voided, hand.settled) == (True, True)
    assert not Seat.objects.filter(table=table).exists()
    after = {u.pk: Account.objects.get(user=u, kind="user").balance for u in (lan, minh)}
    assert after == {k: v + 1_000 for k, v in before.items()}
    assert_money_consistent()


def test_holdem_clock_adds_the_time_bank_and_two_timeouts_sit_out(tables, make_user):
    table, lan, minh = two_player_table(make_user, game="holdem")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    table.refresh_from_db()
    # 20 s action clock + the 30 s bank (topped up, never above its maximum).
    assert (table.deadline - table.clock_started_at).total_seconds() == 50
    for _ in range(6):  # nobody ever acts
        if table.status != "playing":
            break
        hand = Hand.objects.get(pk=table.current_hand_id)
        while not Hand.objects.get(pk=hand.pk).ended_at:
            tables.fire(table)
            table.refresh_from_db()
        tables.drain()
        tables.fire(table)  # end of the summary pause
        table.refresh_from_db()
    seats = {s.user_id: s for s in Seat.objects.filter(table=table)}
    timed_out = [s for s in seats.values() if s.sitting_out]
    assert timed_out
    assert all(not s.ready and s.timeouts >= 2 for s in timed_out)
    assert table.status == "waiting"


def test_holdem_time_bank_is_charged_after_the_tables_own_turn_clock(tables, make_user):
    """A call 15 s into a 10 s turn costs 5 s of the bank (the engine once
    charged it after a fixed 20 s, leaving the bank untouched)."""
    table, lan, minh = two_player_table(make_user, game="holdem", turn_seconds=10)
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    table.refresh_from_db()
    assert (table.deadline - table.clock_started_at).total_seconds() == 10 + 30
    engine = engine_for("holdem")
    hand = Hand.objects.get(pk=table.current_hand_id)
    (actor,) = engine.status(engine.loads(hand.state)).actors
    mover = {lan.pk: lan, minh.pk: minh}[hand.players[actor]["user_id"]]

    tables.clock.advance(seconds=15)
    services.table_act(table_id=table.pk, user=mover, action={"type": "call"})

    view = engine.view(engine.loads(Hand.objects.get(pk=hand.pk).state), None)
    banks = [30_000, 30_000]
    banks[actor] = 25_000
    assert view["time_banks_ms"] == banks
    assert view["action_clock_ms"] == 10_000


@pytest.mark.parametrize(
    ("settings", "code", "problem"),
    [
        ({"game": "bridge", "stake": 1}, "bad_table_settings", "Trò chơi không xác định."),
        (
            {"game": "maubinh", "stake": 1, "seat_count": 5},
            "invalid",
            "Trò chơi này dành cho 2 đến 4 người.",
        ),
        ({"game": "holdem", "stake": 0}, "invalid", "stake phải là số nguyên từ 1 đến 1000000."),
        ({"game": "holdem", "stake": 5, "max_raise": 1}, "invalid", "từ 2 đến 1000000"),
        ({"game": "tienlen", "stake": 5, "preset": "southern"}, "bad_table_settings", None),
        (
            {"game": "tienlen", "stake": 5, "options": {"cong_penalty": -1}},
            "invalid",
            "cong_penalty phải là số nguyên từ 0 đến 52.",
        ),
    ],
)
def test_bad_table_settings_are_refused_and_create_nothing(
    tables, make_user, settings, code, problem
):
    # Out-of-range values are `invalid` with the allowed range (issue 13 item
    # 3); unknown names stay `bad_table_settings`.
    from games.errors import BadTableSettings

    with pytest.raises(BadTableSettings) as err:
        services.table_create(owner=make_user(), **settings)
    assert err.value.code == code
    if problem:
        assert problem in err.value.message
    assert not Table.objects.exists()


def test_a_process_heartbeats_go_together_in_two_statements(
    tables, make_user, django_assert_num_queries, monkeypatch
):
    """``sockets_heartbeat``: each socket's seat seen and its table's version,
    for a whole batch of them in two statements (games.heartbeats)."""
    from django.db import connection

    table, lan, minh = two_player_table(make_user)
    other, an, binh = two_player_table(make_user)
    for t, u in ((table, lan), (table, minh), (other, an), (other, binh)):
        services.seat_presence(table_id=t.pk, user=u, delta=1)
    table.refresh_from_db()
    other.refresh_from_db()
    tables.clock.advance(seconds=50)
    asked = [(table.pk, lan), (table.pk, None), (other.pk, an), (other.pk, binh),
             (table.pk, lan), (other.pk + 1000, None), (table.pk, minh)]  # fmt: skip

    with django_assert_num_queries(2):  # every seat still connected: nobody is told
        versions = services.sockets_heartbeat(asked)
    assert versions == [table.version, table.version, other.version, other.version,
                        table.version, None, table.version]  # fmt: skip
    for t, u in ((table, lan), (table, minh), (other, an), (other, binh)):
        assert Seat.objects.get(table=t, user=u).last_seen == tables.clock.moment
    assert services.sockets_heartbeat([]) == []

    # Minh's socket went quiet; Lan's did not: only Minh's seat looked gone,
    # and comes back (the others at the table told: a new version).
    tables.clock.advance(seconds=40)
    services.sockets_heartbeat([(table.pk, lan)])
    tables.clock.advance(seconds=25)
    assert not Seat.objects.get(table=table, user=minh).connected
    assert Seat.objects.get(table=table, user=lan).connected
    versions = services.sockets_heartbeat([(table.pk, minh), (table.pk, lan), (other.pk, None)])
    assert versions == [table.version + 1, table.version + 1, other.version]
    assert Table.objects.get(pk=table.pk).version == table.version + 1
    assert Seat.objects.get(table=table, user=minh).connected

    tables.clock.advance(seconds=10)
    with monkeypatch.context() as sqlite, django_assert_num_queries(3):
        sqlite.setattr(connection, "vendor", "sqlite")  # (the other databases: a seat a statement)
        assert services.sockets_heartbeat([(table.pk, minh), (table.pk, lan)]) == [
            table.version + 1, table.version + 1]  # fmt: skip
    assert Seat.objects.get(table=table, user=minh).last_seen == tables.clock.moment
    assert Seat.objects.get(table=table, user=lan).last_seen == tables.clock.moment
