"""Issue 16, seat flow: auto-ready (the server readies a seat for each next
hand, with a fresh seed of the player's or one drawn for them), leaving after
the hand or now at the cost the rules tell, and a freed seat telling its
player why."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from games import clock, publish, selectors, services
from games.errors import AlreadyLeft, BadLeave, BadSwitch, NotSeated
from games.models import Departure, Hand, HandEvent, Seat, Table
from games.plugins.money import release_seat_hold
from games.services.seats import AWAY_AFTER_TIMEOUTS
from wallet import services as wallet
from wallet.models import Account

from ..seeds import ORDINARY
from ..tables import Harness
from .driver import play_until_finished
from .test_tables import table_snapshot

pytestmark = pytest.mark.django_db


def bot_table(make_user: Any, game: str = "tienlen", stake: int = 10) -> tuple[Table, Any]:
    """A two-seat "play now" table: the player at seat 0, a bot at seat 1."""
    lan = make_user()
    table = services.table_create(
        owner=lan, game=game, stake=stake, seat_count=2, fill_with_bots=True
    )
    services.table_sit(table_id=table.pk, user=lan, buy_in=1_000 if game == "holdem" else None)
    table.refresh_from_db()
    return table, lan


def seat_of(table: Table, user: Any) -> Seat:
    return Seat.objects.get(table=table, user=user)


def connect(table: Table, user: Any) -> None:
    services.seat_presence(table_id=table.pk, user=user, delta=1)


def hold_elsewhere(user: Any, amount: int) -> None:
    """Set ``amount`` of the user's chips aside (as another table's seat would)."""
    account = Account.objects.get(key=f"user:{user.pk}")
    wallet.hold_create(
        account=account, amount=amount, key=f"elsewhere:{user.pk}",
        expires_at=clock.now() + timedelta(days=1),
    )  # fmt: skip


def current_hand(table: Table) -> Hand:
    table.refresh_from_db()
    assert table.current_hand_id is not None
    return Hand.objects.get(pk=table.current_hand_id)


def deal_first_hand(tables: Harness, table: Table, user: Any) -> Hand:
    services.table_ready(table_id=table.pk, user=user, client_seed=f"first-{user.pk}")
    tables.drain()  # the bot readies: the hand is dealt
    hand = current_hand(table)
    assert hand is not None
    assert hand.number == 1
    return hand


def end_summary(tables: Harness, table: Table) -> None:
    """Settle the finished hand and let the result's pause run out."""
    tables.drain()
    table.refresh_from_db()
    assert table.status == Table.Status.SUMMARY
    assert tables.fire(table)
    tables.drain()  # the bots ready


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    messages: list[tuple[str, dict[str, Any]]] = []
    original = publish.send

    def send(batch: Any, **kwargs: Any) -> None:
        messages.extend(batch)
        original(batch, **kwargs)

    monkeypatch.setattr(publish, "send", send)
    return messages


def to_user(sent: list[tuple[str, dict[str, Any]]], table: Table, user: Any) -> list[Any]:
    group = publish.user_group(table.pk, user.pk)
    return [m["payload"] for g, m in sent if g == group]


# -- auto-ready -------------------------------------------------------------------


def test_auto_ready_is_on_at_tables_with_bots_unless_asked_otherwise(tables, make_user):
    table, lan = bot_table(make_user)
    assert seat_of(table, lan).auto_ready is True
    state = selectors.table_state(table_id=table.pk, user=lan)
    mine = next(s for s in state["table"]["seats"] if s["user_id"] == lan.pk)
    assert (mine["auto_ready"], mine["leave_after_hand"]) == (True, False)
    # a table of people only: off by default; a bot at the table: on; asked: as asked
    minh, hoa, tuan = make_user(), make_user(), make_user()
    plain = services.table_create(owner=minh, game="maubinh", stake=10, seat_count=4)
    services.table_sit(table_id=plain.pk, user=minh)
    services.table_add_bot(table_id=plain.pk, user=minh)
    services.table_sit(table_id=plain.pk, user=hoa)
    services.table_sit(table_id=plain.pk, user=tuan, auto_ready=False)
    assert [seat_of(plain, u).auto_ready for u in (minh, hoa, tuan)] == [False, True, False]


@pytest.mark.parametrize("bad", ["yes", 1, [], {"on": True}])
def test_a_bad_switch_is_refused_and_changes_nothing(tables, make_user, bad):
    table, lan = bot_table(make_user)
    before = table_snapshot(table)
    with pytest.raises(BadSwitch) as err:
        services.table_auto_ready(table_id=table.pk, user=lan, on=bad)
    assert err.value.code == "bad_switch"
    assert table_snapshot(table) == before
    minh = make_user()
    with pytest.raises(BadSwitch):
        services.table_sit(table_id=table.pk, user=minh, auto_ready=bad)
    assert not Seat.objects.filter(user=minh).exists()
    with pytest.raises(NotSeated):
        services.table_auto_ready(table_id=table.pk, user=minh, on=True)


def test_switching_auto_ready_is_idempotent_and_readies_a_waiting_seat(tables, make_user):
    table, lan = bot_table(make_user)
    tables.drain()  # the bot is ready: the table waits for lan
    services.table_auto_ready(table_id=table.pk, user=lan, on=False)
    table.refresh_from_db()
    version = table.version
    services.table_auto_ready(table_id=table.pk, user=lan, on=False)  # again: nothing
    table.refresh_from_db()
    assert table.version == version
    assert seat_of(table, lan).auto_ready is False
    # switched on while the table waits: ready now, and the hand is dealt
    services.table_auto_ready(table_id=table.pk, user=lan, on=True)
    hand = current_hand(table)
    assert hand is not None
    assert hand.number == 1
    assert hand.seed_sources == ["server", "bot"]


@pytest.mark.parametrize("game", ["tienlen", "maubinh"])
@pytest.mark.parametrize("sends_seed", [True, False], ids=["seed-sent", "no-seed"])
def test_auto_ready_deals_the_next_hand_with_a_fresh_seed(
    tables, dealer, make_user, settings, game, sends_seed
):
    settings.SEED_GRACE_MS = 1500
    dealer.stack(*ORDINARY)
    table, lan = bot_table(make_user, game)
    connect(table, lan)
    deal_first_hand(tables, table, lan)
    play_until_finished(tables, table)
    table.refresh_from_db()
    if sends_seed:  # the page sends a seed for the next commitment as soon as it sees it
        services.table_seed(
            table_id=table.pk, user=lan, client_seed="lan-2", commitment=table.next_commitment
        )

    end_summary(tables, table)

    table.refresh_from_db()
    if not sends_seed:
        # lan's socket is open: the deal waits a moment for its seed, then draws one
        assert table.clock == Table.Clock.SEEDS
        assert tables.fire(table)
    hand = current_hand(table)
    assert hand is not None
    assert hand.number == 2
    assert seat_of(table, lan).ready is True
    if sends_seed:
        assert (hand.client_seeds[0], hand.seed_sources) == ("lan-2", ["player", "bot"])
    else:
        assert hand.seed_sources == ["server", "bot"]
        assert len(hand.client_seeds[0]) == 32
    assert hand.client_seeds[0] != Hand.objects.get(table=table, number=1).client_seeds[0]


def test_auto_ready_waits_for_nobody_who_is_away(tables, dealer, make_user):
    """Switched on, but the page is closed: not readied; the ready clock runs
    and frees the seat, saying why."""
    dealer.stack(*ORDINARY)
    table, lan = bot_table(make_user)
    connect(table, lan)
    deal_first_hand(tables, table, lan)
    play_until_finished(tables, table)
    services.seat_presence(table_id=table.pk, user=lan, delta=-1)

    end_summary(tables, table)

    table.refresh_from_db()
    assert seat_of(table, lan).ready is False
    assert (table.status, table.clock) == (Table.Status.WAITING, Table.Clock.READY)
    assert tables.fire(table)
    assert not Seat.objects.filter(table=table).exists()  # the bot left with the last person
    assert Departure.objects.get(table=table, user=lan).reason == "not_ready"


def test_auto_ready_stops_after_the_clock_ran_out_twice_in_a_row(tables, dealer, make_user):
    dealer.stack(*ORDINARY)
    table, lan = bot_table(make_user)
    connect(table, lan)
    deal_first_hand(tables, table, lan)
    while (hand := current_hand(table)).ended_at is None:
        tables.drain()  # the bot's moves; lan never moves: its clock runs out
        if current_hand(table).ended_at is None:
            tables.fire(table)
    timeouts = HandEvent.objects.filter(hand=hand, type="timed_out").count()
    assert timeouts >= AWAY_AFTER_TIMEOUTS
    assert seat_of(table, lan).timeouts >= AWAY_AFTER_TIMEOUTS
    connect(table, lan)

    end_summary(tables, table)

    assert seat_of(table, lan).ready is False
    # pressing ready says the player is back
    services.table_ready(table_id=table.pk, user=lan, client_seed="back")
    assert seat_of(table, lan).timeouts == 0
    assert current_hand(table).number == 2


def test_a_move_of_the_player_resets_the_time_outs_in_a_row(tables, dealer, make_user):
    dealer.stack(*ORDINARY, first=1)  # the bot leads
    table, lan = bot_table(make_user)
    deal_first_hand(tables, table, lan)
    tables.drain()  # the bot leads; lan's turn
    tables.fire(table)  # lan's clock runs out: it passes
    assert seat_of(table, lan).timeouts == 1
    tables.drain()  # the bot leads again
    table.refresh_from_db()
    services.table_act(
        table_id=table.pk, user=lan, action={"type": "pass"}, client_id="p1", version=table.version
    )
    assert seat_of(table, lan).timeouts == 0


def test_auto_ready_without_the_chips_for_the_next_hand_frees_the_seat_saying_so(
    tables, dealer, make_user
):
    dealer.stack(*ORDINARY)
    table, lan = bot_table(make_user)
    connect(table, lan)
    deal_first_hand(tables, table, lan)
    play_until_finished(tables, table)
    tables.drain()  # settled: the minimum balance is held again
    # lan's chips go elsewhere before the next hand
    release_seat_hold(seat_of(table, lan))
    hold_elsewhere(lan, Account.objects.get(key=f"user:{lan.pk}").available)

    end_summary(tables, table)

    assert seat_of(table, lan).ready is False
    assert tables.fire(table)  # the ready clock
    assert Departure.objects.get(table=table, user=lan).reason == "no_chips"


# -- leaving after the hand, or now ------------------------------------------------


def test_leave_after_the_hand_plays_it_out_then_frees_the_seat(tables, dealer, make_user, sent):
    dealer.stack(*ORDINARY)
    table, lan = bot_table(make_user)
    deal_first_hand(tables, table, lan)
    table.refresh_from_db()
    version = table.version

    services.table_leave(table_id=table.pk, user=lan, when="after_hand")
    services.table_leave(table_id=table.pk, user=lan, when="after_hand")  # again: nothing more

    table.refresh_from_db()
    assert table.version == version + 1
    seat = seat_of(table, lan)
    assert (seat.leave_after_hand, seat.leaving) == (True, False)
    hand = current_hand(table)
    assert not HandEvent.objects.filter(hand=hand, type="left").exists()  # still playing
    assert selectors.leave_cost(table_id=table.pk, user=lan) is not None

    play_until_finished(tables, table)  # lan moves as usual
    tables.drain()

    assert not Seat.objects.filter(table=table).exists()
    assert Departure.objects.get(table=table, user=lan).reason == "left"
    last = to_user(sent, table, lan)[-1]
    assert last["seat"] is None
    assert last["removed"]["reason"] == "left"
    state = selectors.table_state(table_id=table.pk, user=lan)
    assert state["removed"] == last["removed"]
    # sitting again clears it
    services.table_sit(table_id=table.pk, user=lan)
    assert "removed" not in selectors.table_state(table_id=table.pk, user=lan)


def test_stay_cancels_leaving_after_the_hand(tables, dealer, make_user):
    dealer.stack(*ORDINARY)
    table, lan = bot_table(make_user)
    deal_first_hand(tables, table, lan)
    services.table_leave(table_id=table.pk, user=lan, when="after_hand")
    services.table_stay(table_id=table.pk, user=lan)
    table.refresh_from_db()
    version = table.version
    services.table_stay(table_id=table.pk, user=lan)  # nothing to cancel: nothing changes
    table.refresh_from_db()
    assert table.version == version

    play_until_finished(tables, table)
    tables.drain()

    assert seat_of(table, lan).leave_after_hand is False
    assert not Departure.objects.filter(table=table).exists()


def test_leaving_after_the_hand_and_staying_keeps_a_poker_seat_ready(tables, make_user):
    table, lan = bot_table(make_user, "holdem")
    deal_first_hand(tables, table, lan)
    services.table_leave(table_id=table.pk, user=lan, when="after_hand")
    services.table_stay(table_id=table.pk, user=lan)
    seat = seat_of(table, lan)
    assert (seat.ready, seat.leave_after_hand, seat.leaving) == (True, False, False)


def test_a_hand_left_now_cannot_be_stayed_in(tables, dealer, make_user):
    dealer.stack(*ORDINARY)
    table, lan = bot_table(make_user)
    deal_first_hand(tables, table, lan)
    services.table_leave(table_id=table.pk, user=lan, when="after_hand")
    services.table_leave(table_id=table.pk, user=lan)  # now after all
    assert seat_of(table, lan).leaving is True
    assert HandEvent.objects.filter(hand=current_hand(table), type="left").exists()
    before = table_snapshot(table)
    with pytest.raises(AlreadyLeft) as err:
        services.table_stay(table_id=table.pk, user=lan)
    assert err.value.code == "already_left"
    assert table_snapshot(table) == before


def test_leaving_after_the_hand_between_hands_leaves_at_once(tables, make_user):
    table, lan = bot_table(make_user)
    services.table_leave(table_id=table.pk, user=lan, when="after_hand")
    assert not Seat.objects.filter(table=table, user=lan).exists()
    assert Departure.objects.get(table=table, user=lan).reason == "left"


@pytest.mark.parametrize("bad", ["later", "", None, 1, ["now"]])
def test_a_bad_when_is_refused_and_changes_nothing(tables, make_user, bad):
    table, lan = bot_table(make_user)
    before = table_snapshot(table)
    with pytest.raises(BadLeave) as err:
        services.table_leave(table_id=table.pk, user=lan, when=bad)
    assert err.value.code == "bad_leave"
    assert table_snapshot(table) == before


# -- what leaving now costs --------------------------------------------------------


def test_leave_cost_is_the_rules_cong_in_chips_and_leaving_pays_it(tables, dealer, make_user):
    dealer.stack(*ORDINARY, first=1)  # the bot leads: lan has played nothing
    table, lan = bot_table(make_user)
    assert selectors.leave_cost(table_id=table.pk, user=lan) is None  # between hands
    deal_first_hand(tables, table, lan)
    # lan holds 2♠ 2♣: cóng 26 + two black twos (3 each) = 32 units of 10 chips
    cost = selectors.leave_cost(table_id=table.pk, user=lan)
    assert cost == {
        "chips": 320, "reason": "cong", "exact": False, "detail": {"cards": 13, "thoi": 6}
    }  # fmt: skip
    assert cost is not None
    before = table_snapshot(table)
    assert selectors.leave_cost(table_id=table.pk, user=lan) == cost  # a read: changes nothing
    assert table_snapshot(table) == before

    services.table_leave(table_id=table.pk, user=lan)
    assert selectors.leave_cost(table_id=table.pk, user=lan) is None  # already left
    hand = play_until_finished(tables, table)
    tables.drain()
    hand.refresh_from_db()
    assert hand.result is not None
    assert hand.result["chips"][0] == -cost["chips"]
    with pytest.raises(NotSeated):
        selectors.leave_cost(table_id=table.pk, user=lan)


def test_leave_cost_is_never_more_than_the_player_can_pay(tables, dealer, make_user):
    dealer.stack(*ORDINARY, first=1)
    table, lan = bot_table(make_user, stake=300)  # 32 units: 9.600 chips
    deal_first_hand(tables, table, lan)
    # 9.000 are held for this seat; 500 of the other 1.000 are set aside elsewhere
    hold_elsewhere(lan, 500)
    cost = selectors.leave_cost(table_id=table.pk, user=lan)
    assert cost is not None
    assert cost["chips"] == 9_500


def test_poker_leave_cost_is_the_chips_bet_exactly(tables, make_user):
    table, lan = bot_table(make_user, "holdem")
    deal_first_hand(tables, table, lan)
    hand = current_hand(table)
    blind = 20 if hand.setup["button"] == 1 else 10  # heads-up: the button posts the small one
    assert selectors.leave_cost(table_id=table.pk, user=lan) == {
        "chips": blind, "reason": "fold", "exact": True, "detail": {}
    }  # fmt: skip


# -- told why ----------------------------------------------------------------------


def test_a_closed_table_tells_each_player_why(tables, make_user, sent):
    table, lan = bot_table(make_user)
    services.table_close(table_id=table.pk, by=lan, reason="bye")
    last = to_user(sent, table, lan)[-1]
    assert (last["seat"], last["removed"]["reason"]) == (None, "closed")
    assert selectors.table_state(table_id=table.pk, user=lan)["removed"]["reason"] == "closed"
    assert "removed" not in selectors.table_state(table_id=table.pk, user=None)
