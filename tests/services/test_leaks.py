"""Secrets never leave the server: over many hands of each game, no message sent
to a seat shows another seat's hidden cards, the undealt deck, or the seed
before the hand is over."""

import pytest

from games import publish, selectors
from games.models import Hand
from games.protocol import apply_delta
from games.rules import fairness
from games.rules.cards import cards_str

from ..registry import GAMES, facts
from ..tables import assert_money_consistent, payload_cards
from .driver import next_hand, play_until_finished, ready_all, seated_table

pytestmark = pytest.mark.django_db

HANDS = 6


@pytest.fixture
def sent(monkeypatch):
    messages = []
    original = publish.send

    def record(batch, **options):
        messages.extend(batch)
        original(batch, **options)

    monkeypatch.setattr(publish, "send", record)
    return messages


def dealt(hand: Hand) -> tuple[list[str], list[set[str]], set[str]]:
    """The deck, each player's own cards, and the cards nobody was dealt."""
    deck = cards_str(
        fairness.deal_deck(bytes.fromhex(hand.server_seed), hand.fair_id, hand.client_seeds)
    )
    n = len(hand.players)
    size = facts(hand.game).hand_size
    own = [set(deck[i * size : (i + 1) * size]) for i in range(n)]
    used = n * size + facts(hand.game).table_cards
    return deck, own, set(deck[used:])


@pytest.mark.parametrize("game", GAMES)
def test_no_seat_ever_sees_what_it_may_not(tables, make_user, sent, game):
    humans, bots = facts(game).seating
    table, users = seated_table(make_user, game, humans, bots)
    tables.drain()
    # What each recipient holds, kept from hand to hand as a client keeps it
    # (a ready before the deal is a seat delta on the state before).
    held = {
        publish.user_group(table.pk, u.pk): selectors.table_state(table_id=table.pk, user=u)
        for u in users
    }
    held[publish.public_group(table.pk)] = selectors.table_state(table_id=table.pk, user=None)
    sent.clear()
    ready_all(table)

    checked = 0
    for _ in range(HANDS):
        hand = play_until_finished(tables, table)
        checked += check_hand_messages(hand, users, sent, held)
        sent.clear()
        next_hand(tables, table)
    assert checked > HANDS * humans
    tables.drain()
    assert_money_consistent()


def rebuilt(sent, held: dict[str, dict]) -> list[tuple[str, dict, str]]:
    """Each group's states in order, deltas applied to the group's state
    before (games.protocol.apply_delta; ``held``: the states before, updated),
    with each message's own text."""
    out = []
    for group, message in sent:
        payload = message.get("payload")
        if not payload or payload.get("type") not in ("state", "delta"):
            continue
        if payload["type"] == "delta":
            state = apply_delta(held.get(group) or {}, payload)
            assert state is not None, f"a delta to {group} that does not apply"
        else:
            state = payload
        held[group] = state
        out.append((group, state, str(payload)))
    return out


def check_hand_messages(hand: Hand, users, sent, held: dict[str, dict]) -> int:
    _, own, undealt = dealt(hand)
    positions = [p["position"] for p in hand.players]
    checked = 0
    states = rebuilt(sent, held)
    public_by_version = {}
    for group, payload, _text in states:
        if (
            group == publish.public_group(hand.table_id)
            and (payload.get("hand") or {}).get("id") == hand.pk
        ):
            public_by_version[payload["v"]] = payload
    for _group, payload, text in states:
        if not payload.get("hand") or payload["hand"]["id"] != hand.pk:
            continue
        finished = payload["hand"]["finished"]
        if not finished:
            assert hand.server_seed not in text, "seed leaked before the hand ended"
            assert hand.server_seed not in str(payload), "seed leaked before the hand ended"
        seen = payload_cards(payload)
        assert not seen & undealt, "an undealt card was shown"
        you = payload["seat"]
        if you is None or you not in positions or finished:
            continue
        mine = own[positions.index(you)]
        public = payload_cards(public_by_version.get(payload["v"], {}))
        leaked = seen - mine - public
        assert not leaked, f"seat {you} saw {sorted(leaked)}"
        checked += 1
    return checked
