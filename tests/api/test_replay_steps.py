"""A finished hand step by step (GET /api/v1/hands/<id>/replay/steps, the
visual replay's data): replayed through the rules it is the stored hand, and no
step shows a card, or the result, before its time."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import publish, selectors, services
from games.models import Hand
from games.plugins import engine_for

from ..registry import GAMES, seat_count
from ..seeds import ORDINARY
from ..services.driver import play_until_finished, ready_all, seated_table
from ..tables import payload_cards
from .helpers import error, url

pytestmark = pytest.mark.django_db


#: How many hands ``finished_hand`` deals at most before giving up.
DEALS = 8


def ended_at_the_deal(hand):
    """Whether the deal itself ended the hand (a Tiến Lên tới trắng): it has
    no step to replay but the deal."""
    engine = engine_for(hand.game)
    _rows, steps = selectors.hand_replayed(hand)
    return engine.status(steps[0].state).finished


def played_past_the_deal(tables, table):
    """``table``'s hands dealt and played to the end until one that the deal
    did not end at once. The deals are real, fair ones (a stacked deck does not
    replay), so a deal that ends the hand at once (a game's instant win, e.g.
    tới trắng) is possible for any game that has one: such a hand is passed
    over and the next one dealt, at most ``DEALS`` times."""
    for _ in range(DEALS):
        ready_all(table)
        tables.drain()
        hand = play_until_finished(tables, table)
        tables.drain()
        hand.refresh_from_db()
        if not ended_at_the_deal(hand):
            return hand
        tables.fire(table)  # its summary pause ends: ready for the next deal
    raise AssertionError(f"{DEALS} {table.game} deals in a row ended at once")


def finished_hand(tables, make_user, game):
    """A finished hand of two people and a bot (one person at a two-seat game)
    that the deal did not end at once (``played_past_the_deal``)."""
    table, users = seated_table(make_user, game, humans=seat_count(game, 3) - 1, bots=1)
    return played_past_the_deal(tables, table), users


def plain(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("game", GAMES)
def test_replaying_a_hand_through_the_rules_gives_the_stored_hand(tables, make_user, game):
    hand, _users = finished_hand(tables, make_user, game)
    engine = engine_for(game)

    rows, steps = selectors.hand_replayed(hand)

    # the rules make every recorded event (after the service's own first one)
    assert [(e.type, plain(e.data), e.seat) for s in steps for e in s.events] == [
        (r.type, r.payload, r.player if r.visibility == "seat" else None) for r in rows[1:]
    ]
    assert engine.dumps(steps[-1].state) == hand.state
    outcome = engine.outcome(steps[-1].state)
    assert hand.result is not None
    assert publish.hand_result(game, hand.result["unit"], outcome) == {**hand.result, "chips": None}
    assert len(steps) >= 3
    assert not any(engine.status(s.state).finished for s in steps[:-1])


@pytest.mark.parametrize("game", GAMES)
def test_each_step_shows_what_its_viewer_saw_then_and_the_result_last(tables, make_user, api, game):
    hand, users = finished_hand(tables, make_user, game)
    engine = engine_for(game)
    stranger = make_user()
    final = engine.loads(hand.state)

    for user in [*users, stranger]:
        client = api(user)
        answer = client.get(url(f"hands/{hand.pk}/replay/steps"))
        assert answer.status_code == 200
        body = answer.json()
        steps = body["steps"]
        player = body["you"]
        assert player == selectors.player_of(hand, user)
        assert (player is None) == (user == stranger)
        # the steps' events are the replay's (all this viewer could see), in order
        replay = client.get(url(f"hands/{hand.pk}/replay")).json()
        assert [e for s in steps for e in s["events"]] == replay["events"]
        assert all(s["events"] for s in steps)
        # the last step is the stored hand as this viewer saw it, with its result
        assert steps[-1]["view"] == plain(engine.view(final, player))
        assert steps[-1]["result"] == hand.result
        assert steps[-1]["finished"] is True
        assert steps[-1]["actors"] == []
        assert all(s["result"] is None and s["finished"] is False for s in steps[:-1])
        # no card shows before the events that showed it to this viewer
        known: set[str] = set()
        for k, step in enumerate(steps):
            known |= payload_cards(step["events"])
            assert payload_cards(step) <= known, (user, k)
        assert known == payload_cards(replay["events"])


def test_a_hand_whose_record_the_rules_do_not_replay_is_refused_and_the_page_says_so(
    tables, dealer, make_user, api, client
):
    # given a hand dealt from a stacked deck: its seeds do not deal its cards
    dealer.stack(ORDINARY[1], ORDINARY[0], first=1)
    table, users = seated_table(make_user, "tienlen", humans=2, bots=0)
    ready_all(table)
    hand = play_until_finished(tables, table)
    tables.drain()

    assert error(api(users[0]).get(url(f"hands/{hand.pk}/replay/steps"))) == (
        409,
        "replay_mismatch",
    )
    client.force_login(users[0])
    page = client.get(reverse("replay", args=[hand.pk]))
    assert page.status_code == 200
    assert page.context["steps"] is None
    assert "không cho lại đúng ván này" in page.context["unreplayable"]


def test_a_hand_in_play_has_no_steps(tables, make_user, api):
    table, users = seated_table(make_user, "maubinh", humans=2, bots=0)
    ready_all(table)
    table.refresh_from_db()
    assert table.current_hand_id is not None
    hand = Hand.objects.get(pk=table.current_hand_id)
    assert error(api(users[0]).get(url(f"hands/{hand.pk}/replay/steps"))) == (
        409,
        "hand_not_finished",
    )


def test_a_hand_voided_by_closing_its_table_replays_up_to_the_close(tables, make_user, api):
    table, users = seated_table(make_user, "tienlen", humans=2, bots=0)
    engine = engine_for("tienlen")
    for _ in range(DEALS):  # (a real deal may end at once, a tới trắng: the next one)
        ready_all(table)
        table.refresh_from_db()
        assert table.current_hand_id is not None
        hand = Hand.objects.get(pk=table.current_hand_id)
        actors = engine.status(engine.loads(hand.state)).actors
        if actors:
            break
        tables.drain()
        tables.fire(table)  # its summary pause ends: ready for the next deal
    else:
        raise AssertionError(f"{DEALS} deals in a row ended at once")
    first = actors[0]
    mover = next(u for u in users if u.pk == hand.players[first]["user_id"])
    view = engine.view(engine.loads(hand.state), first)
    services.table_act(table_id=table.pk, user=mover, action=engine.bot_action(view, 1))
    services.table_close(table_id=table.pk, by=users[0], reason="test")
    hand.refresh_from_db()
    assert hand.voided

    steps = api(users[1]).get(url(f"hands/{hand.pk}/replay/steps")).json()["steps"]

    assert len(steps) == 2  # the deal and the one move made before the close
    assert steps[-1]["result"] == hand.result
    assert steps[-1]["result"]["voided"] is True
    assert [s["finished"] for s in steps] == [False, False]
    player = selectors.player_of(hand, users[1])
    assert steps[-1]["view"] == plain(engine.view(engine.loads(hand.state), player))
