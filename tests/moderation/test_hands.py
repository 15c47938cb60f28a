"""The hand inspector: every card, every event, the seeds and the settlement."""

import re

import pytest
from django.urls import reverse

from games.models import HandEvent
from games.rules import fairness
from games.rules.cards import card_display, cards_str, parse_card
from wallet.models import LedgerTransaction

from ..registry import GAMES, seat_count
from ..services.driver import play_until_finished
from .helpers import current_hand, deal, move_once

pytestmark = pytest.mark.django_db


def expected_deck(hand):
    return cards_str(
        fairness.deal_deck(bytes.fromhex(hand.server_seed), hand.fair_id, hand.client_seeds)
    )


def inspect_settled(tables, make_user, client, game):
    """A settled hand of ``game`` and its inspector, as a staff account sees it."""
    staff = make_user(is_staff=True)
    table, _users, _ = deal(make_user, game)
    hand = play_until_finished(tables, table)
    tables.drain()
    hand.refresh_from_db()
    client.force_login(staff)
    return hand, client.get(reverse("admin:games_hand_inspect", args=[hand.pk]))


@pytest.mark.parametrize("game", GAMES)
def test_staff_see_every_card_seed_and_event_of_a_settled_hand(tables, make_user, client, game):
    hand, response = inspect_settled(tables, make_user, client, game)

    assert response.status_code == 200
    context = response.context
    dealt = {
        e.player: e.payload["cards"] for e in HandEvent.objects.filter(hand=hand, type="dealt")
    }
    players = range(len(hand.players))  # (three; two at a two-seat game)
    assert set(dealt) == set(players)
    assert len(dealt) == min(3, seat_count(game))
    assert [p["dealt"] for p in context["players"]] == [dealt[i] for i in players]
    assert hand.result is not None
    assert [p["net"] for p in context["players"]] == hand.result["chips"]
    assert context["deck"] == expected_deck(hand)
    assert (context["commitment_ok"], context["deal_matches_seed"]) == (True, True)
    all_events = HandEvent.objects.filter(hand=hand).order_by("seq")
    assert [e.pk for e in context["events"]] == list(all_events.values_list("pk", flat=True))
    assert len(context["events"]) == hand.event_count
    private = [(e.type, e.player) for e in context["events"] if e.visibility == "seat"]
    assert [p for p in private if p[0] == "dealt"] == [("dealt", i) for i in players]
    page = response.content.decode()
    assert hand.server_seed in page
    assert all(seed in page for seed in hand.client_seeds)
    settlement = LedgerTransaction.objects.filter(idempotency_key=f"hand:{hand.pk}:settle").first()
    assert context["settlement"] == settlement
    assert context["settlement_key"] == f"hand:{hand.pk}:settle"
    if settlement is not None:
        url = reverse("admin:wallet_ledgertransaction_change", args=[settlement.pk])
        assert url in page
    if game == "holdem":
        assert context["board"] == cards_str(hand.state["board"])
        assert context["board"] == context["deck"][6:11]


def test_staff_see_no_seed_and_no_card_of_a_hand_still_in_play(tables, make_user, client):
    """Changed on purpose (issue 13): the inspector of an unfinished hand shows
    what a spectator sees, never its seed, deck or players' cards."""
    staff = make_user(is_staff=True)
    table, _users, _ = deal(make_user, "tienlen")
    move_once(table)
    hand = current_hand(table)
    assert hand is not None
    client.force_login(staff)

    response = client.get(reverse("admin:games_hand_inspect", args=[hand.pk]))

    assert response.status_code == 200
    page = response.content.decode()
    assert response.context["hidden"] is True
    assert response.context["deck"] == []
    assert all(p["dealt"] == [] for p in response.context["players"])
    assert {e.visibility for e in response.context["events"]} == {"all"}
    assert response.context["settlement"] is None
    assert response.context["payments"] == []
    assert "Hiện khi ván đã kết thúc." in page
    assert 'class="pcard ' not in page
    assert 'class="pcard"' not in page
    assert hand.server_seed not in page
    assert 'id="hand-hidden"' in page
    dealt = HandEvent.objects.filter(hand=hand, type="dealt")
    assert all(f'"{c}"' not in page for e in dealt for c in e.payload["cards"])


def test_players_cannot_open_the_hand_inspector(tables, make_user, client):
    table, users, _ = deal(make_user, "maubinh")
    hand = current_hand(table)
    assert hand is not None
    client.force_login(users[0])

    for url in (
        reverse("admin:games_hand_inspect", args=[hand.pk]),
        reverse("admin:games_hand_change", args=[hand.pk]),
        reverse("admin:games_hand_changelist"),
    ):
        response = client.get(url)
        assert response.status_code == 302
        assert response.url.startswith(reverse("admin:login"))
        assert hand.server_seed not in response.content.decode()


@pytest.mark.parametrize("game", GAMES)
def test_the_inspector_shows_cards_as_cards_payments_as_a_table_and_folds_the_json(
    tables, make_user, client, game
):
    hand, response = inspect_settled(tables, make_user, client, game)

    page = response.content.decode()
    context = response.context
    first = context["players"][0]
    dealt = re.findall(r'<span class="pcard( red)?" title="(\w+)">([^<]+)</span>', page)
    assert dealt[: len(first["dealt"])] == [
        (" red" if card[-1] in "dh" else "", card, card_display(parse_card(card)))
        for card in first["dealt"]
    ]
    deck = page[page.index('id="deck"') :]
    deck = deck[: deck.index("</p>")]
    assert re.findall(r'<span class="pcard( red)?">([^<]+)</span>', deck) == [
        (" red" if card[-1] in "dh" else "", card_display(parse_card(card)))
        for card in context["deck"]
    ]
    assert hand.result is not None
    payments = hand.result["payments"]
    unit = hand.table.stake if game != "holdem" else 1
    names = [p["name"] for p in hand.players]
    rows = [(r["from"], r["to"], r["units"], r["chips"], r["reason"]) for r in context["payments"]]
    assert rows == [
        (names[p["payer"]], names[p["payee"]], p["amount"], p["amount"] * unit, p["reason"])
        for p in payments
    ]
    assert page.count('<tr class="payment">') == len(payments)
    folded = page[page.index('<details class="raw" id="result-json">') :]
    assert folded.index("<pre>") < folded.index("</details>")
