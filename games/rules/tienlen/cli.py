"""Tiến Lên ops for ``python -m games.rules``.

``tienlen.play`` deals the given hands, replays the actions in turn order
and answers ``{"finished", "winner", "instant", "units", "turn", "payments"}``.
``first`` is the player who leads (null: the first hand at a table, allowed
with ``first_lead = "three_spades"``). ``units`` is null until the hand is
finished; ``payments`` lists what is settled so far (chop chains of closed
rounds) and, once finished, every payment (``payer``, ``payee``, ``amount``,
``reason``, ``detail``). With an optional ``balances``
(units per player, checked in any case) a finished hand's answer adds
``capped_units``, the net after the balance cap. A key the op does not know
is refused, so a misspelt ``options`` or ``balances`` is not quietly ignored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import Card, ensure_distinct, parse_cards
from ..errors import RulesError
from ..game import payment_json
from . import hand
from .rules import TienLenRules, ruleset
from .settle import capped_units, outcome
from .state import HandState

Op = Callable[[dict[str, Any]], dict[str, Any]]

PLAY_KEYS = frozenset({"op", "preset", "options", "hands", "first", "actions", "balances"})


def _deal(request: dict[str, Any], rules: TienLenRules) -> list[Card]:
    items = request.get("hands")
    if not isinstance(items, list) or not rules.min_players <= len(items) <= rules.max_players:
        raise RulesError(
            "bad_request",
            f"hands must list {rules.min_players} to {rules.max_players} hands of cards",
        )
    hands = [
        parse_cards(h, count=rules.hand_size, field=f"hands[{i}]") for i, h in enumerate(items)
    ]
    ensure_distinct(hands)
    dealt = [c for h in hands for c in h]
    used = set(dealt)
    return dealt + [c for c in range(52) if c not in used]


def _first(value: object, players: int, rules: TienLenRules) -> int | None:
    if value is None and rules.first_lead == "three_spades":
        return None
    if value is None:
        raise RulesError("bad_request", "first must name the player who leads")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise RulesError("bad_setup", f"first must be a player index from 0 to {players - 1}")
    return value


def _action(item: object, index: int) -> dict[str, Any]:
    if item == "pass":
        return {"type": "pass"}
    if isinstance(item, list):
        return {"type": "play", "cards": item}
    raise RulesError("bad_action", 'An action is a list of cards or "pass"', index=index)


def play_hand(request: dict[str, Any]) -> HandState:
    """The state after dealing ``hands`` and applying ``actions`` (errors name the action)."""
    unknown = sorted(str(key) for key in set(request) - PLAY_KEYS)
    if unknown:
        known = ", ".join(sorted(PLAY_KEYS))
        raise RulesError(
            "bad_request", f"Unknown keys: {', '.join(unknown)} (known: {known})", keys=unknown
        )
    rules = ruleset(request.get("preset", "vipgame"), request.get("options", {}))
    deck = _deal(request, rules)
    players = len(request["hands"])
    first = _first(request.get("first"), players, rules)
    state, _ = hand.start(rules, deck, players, {"previous_winner": first})
    actions = request.get("actions", [])
    if not isinstance(actions, list):
        raise RulesError("bad_request", "actions must be a list")
    for index, item in enumerate(actions):
        action = _action(item, index)
        try:
            if state.turn is None:
                raise RulesError("hand_finished", "The hand is over")
            state, _ = hand.apply(state, state.turn, action)
        except RulesError as err:
            raise RulesError(err.code, err.message, **{**err.extra, "index": index}) from None
    return state


def op_play(request: dict[str, Any]) -> dict[str, Any]:
    state = play_hand(request)
    raw_balances = request.get("balances")
    balances = None if raw_balances is None else _balances(raw_balances, state.players)
    answer: dict[str, Any] = {
        "finished": state.finished,
        "winner": state.winner,
        "instant": state.instant.type if state.instant else None,
        "units": None,
        "turn": state.turn,
        "payments": [],
    }
    paid = state.settled
    if state.finished:
        result = outcome(state)
        answer["units"] = list(result.net)
        paid = result.payments
        if balances is not None:
            answer["capped_units"] = capped_units(result, balances)
    answer["payments"] = [payment_json(p) for p in paid]
    return answer


def _balances(value: object, players: int) -> list[int]:
    if (
        not isinstance(value, list)
        or len(value) != players
        or any(not isinstance(b, int) or isinstance(b, bool) or b < 0 for b in value)
    ):
        raise RulesError("bad_request", f"balances must list {players} non-negative integers")
    return value


OPS: dict[str, Op] = {"tienlen.play": op_play}
