"""A hand belongs to the players dealt into it, not to whoever sits in their
seats now (issue: a new occupant was sent the previous player's hole cards and
named in the previous player's results)."""

import pytest

from games import selectors, services
from games.models import Hand, Table
from games.plugins import engine_for

from ..tables import assert_money_consistent, payload_cards
from .driver import play_until_finished, ready_all
from .test_leaks import dealt

pytestmark = pytest.mark.django_db


def test_a_new_occupant_of_a_seat_sees_only_the_public_side_of_the_old_hand(tables, make_user):
    alice, bob, carol = make_user(), make_user(), make_user()
    table = services.table_create(owner=alice, game="holdem", stake=2, seat_count=2)
    services.table_sit(table_id=table.pk, user=alice, position=0, buy_in=400)
    services.table_sit(table_id=table.pk, user=bob, position=1, buy_in=400)
    ready_all(table)
    table.refresh_from_db()
    assert table.current_hand_id is not None
    hand = Hand.objects.get(pk=table.current_hand_id)
    bob_index = next(i for i, p in enumerate(hand.players) if p["user_id"] == bob.pk)
    # Bob folds at once: his hole cards are never shown to anyone.
    bob_cards = dealt(hand)[1][bob_index]
    assert len(bob_cards) == 2
    assert bob_cards <= payload_cards(selectors.table_state(table_id=table.pk, user=bob))
    engine = engine_for("holdem")
    if bob_index not in engine.status(engine.loads(hand.state)).actors:
        services.table_act(table_id=table.pk, user=alice, action={"type": "call"})
    services.table_act(table_id=table.pk, user=bob, action={"type": "fold"})
    table.refresh_from_db()
    assert Hand.objects.get(pk=hand.pk).finished
    tables.drain()  # settled; the finished hand is still the table's hand

    services.table_leave(table_id=table.pk, user=bob)
    services.table_sit(table_id=table.pk, user=carol, position=1, buy_in=400)
    table.refresh_from_db()
    assert table.current_hand_id == hand.pk

    for state in (
        selectors.table_state(table_id=table.pk, user=carol, since=0),
        selectors.table_state(table_id=table.pk, user=carol),
    ):
        assert state["you"] is None
        assert state["seat"] == 1
        assert not bob_cards & payload_cards(state), "the old occupant's cards leaked"
        assert not [e for e in state["events"] if e["type"] == "dealt"]
        names = [p["name"] for p in state["hand"]["players"]]
        assert names[bob_index] == bob.shown_name  # the hand's own player, not Carol
        assert carol.shown_name not in names
    # Bob, now a spectator, still is not shown his folded cards as a player.
    spectator = selectors.table_state(table_id=table.pk, user=bob)
    assert spectator["you"] is None
    tables.drain()
    assert_money_consistent()


def test_a_new_occupant_gets_no_private_view_of_the_old_mau_binh_hand(tables, make_user):
    """Mậu Binh: after the hand Bob leaves and Carol takes his seat: she is not
    a player of that hand and gets none of its private view."""
    alice, bob, carol = make_user(), make_user(), make_user()
    table = services.table_create(owner=alice, game="maubinh", stake=1, seat_count=2)
    services.table_sit(table_id=table.pk, user=alice, position=0)
    services.table_sit(table_id=table.pk, user=bob, position=1)
    ready_all(table)
    table.refresh_from_db()
    hand = play_until_finished(tables, table)
    tables.drain()
    table.refresh_from_db()
    services.table_leave(table_id=table.pk, user=bob)
    services.table_sit(table_id=table.pk, user=carol, position=1)
    state = selectors.table_state(table_id=table.pk, user=carol, since=0)
    assert state["hand"]["id"] == hand.pk
    assert state["you"] is None
    view = state["hand"]["view"]
    assert not view.get("own"), "the new occupant got the old player's own view"
    assert Table.objects.get(pk=table.pk).current_hand_id == hand.pk
    assert_money_consistent()
