"""API test helpers: clients with tokens, a snapshot of what refusals must not
change, and hands played through the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.test import APIClient

from accounts.sessions import token_issue
from games.models import ChatMessage, Hand, HandEvent, Seat, Table
from games.plugins import engine_for
from games.rules import fairness
from games.rules.cards import cards_str

from ..registry import facts
from ..tables import Harness, payload_cards
from ..wallet.helpers import snapshot as wallet_snapshot

PASSWORD = "Bai-Tien-Len-42"


def throttles_off(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"writes": None},
    }
    settings.SIGNUP_RATE = settings.LOGIN_RATE = settings.LOGIN_FAILURE_RATE = None
    settings.PASSWORD_RESET_RATE = settings.PASSWORD_RESET_ACCOUNT_RATE = None
    settings.EMAIL_VERIFY_RATE = None


def client_for(user: Any = None, language: str | None = None) -> APIClient:
    client = APIClient()
    headers: dict[str, str] = {}
    if user is not None:
        headers["HTTP_AUTHORIZATION"] = f"Token {token_issue(user=user)}"
    if language is not None:
        headers["HTTP_ACCEPT_LANGUAGE"] = language
    client.credentials(**headers)
    return client


def world() -> dict[str, Any]:
    """Everything a refused request must leave as it was."""
    return {
        "wallet": wallet_snapshot(),
        "tables": list(Table.objects.order_by("pk").values()),
        "seats": list(Seat.objects.order_by("pk").values()),
        "hands": list(Hand.objects.order_by("pk").values("pk", "state", "event_count")),
        "events": HandEvent.objects.count(),
        "chat": ChatMessage.objects.count(),
    }


def url(path: str) -> str:
    return f"/api/v1/{path}"


def error(response: Any) -> tuple[int, str]:
    """(status, code) of an error answer, checking the one error shape."""
    body = response.json()
    assert set(body) == {"code", "message", "details"}, body
    assert isinstance(body["message"], str)
    assert body["message"]
    assert isinstance(body["details"], dict)
    return response.status_code, body["code"]


Policy = Callable[[dict[str, Any], int], dict[str, Any]]


def bot_policy(game: str) -> Policy:
    engine = engine_for(game)
    return lambda view, step: dict(engine.bot_action(view, seed=step))


def play_via_api(
    harness: Harness,
    table: Table,
    clients: dict[int, APIClient],
    policy: Policy | None = None,
    max_steps: int = 500,
) -> Hand:
    """Play the current hand to its end: people move through
    ``POST /tables/<id>/actions`` with ``policy`` on the view the API gave them
    (the bot policy by default); bots through their tasks; clocks run out when
    only the clock can move the hand on."""
    engine = engine_for(table.game)
    policy = policy or bot_policy(table.game)
    for step in range(max_steps):
        harness.drain()
        table.refresh_from_db()
        assert table.current_hand_id is not None
        hand = Hand.objects.get(pk=table.current_hand_id)
        if hand.ended_at is not None:
            return hand
        actors = engine.status(engine.loads(hand.state)).actors
        movers = [i for i in actors if hand.players[i]["position"] in clients]
        if not movers:
            harness.fire(table)
            continue
        client = clients[hand.players[movers[0]]["position"]]
        state = client.get(url(f"tables/{table.pk}")).json()
        action = policy(state["hand"]["view"], step)
        response = client.post(
            url(f"tables/{table.pk}/actions"),
            {"id": f"m{step}", "v": state["v"], "action": action},
            format="json",
        )
        assert response.status_code == 200, response.json()
    raise AssertionError("the hand did not finish")


def dealt_cards(hand: Hand) -> tuple[list[str], list[set[str]]]:
    """The hand's deck and each player's own cards."""
    deck = cards_str(
        fairness.deal_deck(bytes.fromhex(hand.server_seed), hand.fair_id, hand.client_seeds)
    )
    size = facts(hand.game).hand_size
    own = [set(deck[i * size : (i + 1) * size]) for i in range(len(hand.players))]
    return deck, own


def phh_hole_cards(text: str) -> dict[int, str]:
    """``d dh pK <cards>`` lines of a PHH text: PHH player number to the cards written."""
    holes = {}
    for line in text.splitlines():
        words = line.strip().strip('",').split()
        if words[:2] == ["d", "dh"]:
            holes[int(words[2][1:])] = words[3]
    return holes


def split_cards(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(0, len(text), 2)} - {"??"}


def phh_cards(text: str) -> set[str]:
    """Every card a PHH text writes (dealt, board and shown)."""
    found: set[str] = set()
    for line in text.splitlines():
        words = line.strip().strip('",').split()
        if words[:2] in (["d", "dh"], ["d", "db"]) or words[1:2] == ["sm"]:
            found |= split_cards(words[-1].replace("?", ""))
    return found


def cards(payload: Any) -> set[str]:
    """Every card string anywhere in a payload."""
    return payload_cards(payload)
