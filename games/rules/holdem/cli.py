"""Hold'em ops for ``python -m games.rules``.

``holdem.play`` replays a hand from given cards and actions and answers
``{"finished", "stacks", "pots", "to_act", "legal"}``. ``stacks`` are the chips
behind (the final stacks once finished); ``pots`` are the pots collected from
finished betting rounds (during a round the bets are still in front of the
players), or once finished the pots as paid with their winners; ``legal`` is
``{"fold": bool, "check": bool, "call": chips or null, "raise": {"min": to,
"max": to} or null, "all_in": chips or null}`` where "to" amounts are the
player's total bet in the round.

``holdem.best`` answers ``{"category", "best", "rank"}`` for 5 to 7 cards.

A key an op does not know is refused (a misspelt ``max_raise`` must not
quietly mean "no cap"); ``max_raise`` and ``actions`` may be left out (no
cap, no actions yet), and ``preset`` (``vipgame``) and ``options`` (named
ruleset overrides such as ``{"short_blind_full_call": false}``) too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import cards_str, ensure_distinct, parse_cards
from ..errors import RulesError
from . import betting
from .evaluator import evaluate_text
from .rules import ruleset
from .state import HandState
from .view import current_pots

Op = Callable[[dict[str, Any]], dict[str, Any]]

_SIMPLE_ACTIONS = {"fold", "check", "call", "all_in"}
_PLAY_KEYS = frozenset(
    {
        "op",
        "preset",
        "options",
        "stake",
        "max_raise",
        "button",
        "stacks",
        "hole",
        "board",
        "actions",
    }
)
_BEST_KEYS = frozenset({"op", "cards"})


def _check_keys(request: dict[str, Any], known: frozenset[str]) -> None:
    unknown = sorted(str(key) for key in set(request) - known)
    if unknown:
        raise RulesError(
            "bad_request",
            f"Unknown keys for {request.get('op')}: {', '.join(unknown)}"
            f" (known: {', '.join(sorted(known))})",
            keys=unknown,
        )


def deck_for(hole: list[list[int]], board: list[int]) -> list[int]:
    """A deck that deals the given hole cards and board; the rest in card order."""
    dealt = [c for pair in hole for c in pair] + board
    used = set(dealt)
    return dealt + [c for c in range(52) if c not in used]


def _action(item: object, index: int) -> dict[str, Any]:
    if isinstance(item, str) and item in _SIMPLE_ACTIONS:
        return {"type": item}
    if isinstance(item, dict) and set(item) == {"raise_to"}:
        return {"type": "raise", "to": item["raise_to"]}
    raise RulesError(
        "bad_action",
        'An action is "fold", "check", "call", "all_in" or {"raise_to": n}',
        index=index,
    )


def play_hand(request: dict[str, Any]) -> HandState:
    _check_keys(request, _PLAY_KEYS)
    options = request.get("options")
    rules = ruleset(request.get("preset", "vipgame"), {} if options is None else options)
    stacks = request.get("stacks")
    if not isinstance(stacks, list):
        raise RulesError("bad_request", "stacks must be a list of chip counts, one per player")
    players = len(stacks)
    if not rules.min_players <= players <= rules.max_players:
        raise RulesError(
            "bad_player_count",
            f"Hold'em needs {rules.min_players} to {rules.max_players} players,"
            f" got {players} stacks",
        )
    hole_items = request.get("hole")
    if not isinstance(hole_items, list) or len(hole_items) != players:
        raise RulesError("bad_request", f"hole must list {players} pairs of cards")
    hole = [parse_cards(pair, count=2, field=f"hole[{i}]") for i, pair in enumerate(hole_items)]
    board = parse_cards(request.get("board"), count=5, field="board")
    ensure_distinct([*hole, board])
    setup = {key: request.get(key) for key in ("stake", "max_raise", "button", "stacks")}
    state = betting.start_hand(rules, deck_for(hole, board), players, setup)
    actions = request.get("actions", [])
    if not isinstance(actions, list):
        raise RulesError("bad_request", "actions must be a list")
    for index, item in enumerate(actions):
        action = _action(item, index)
        actor = state.to_act
        if actor is None:
            raise RulesError("illegal_move", "The hand is already over", index=index)
        try:
            state = betting.act(state, actor, action)
        except RulesError as err:
            code = "bad_action" if err.code == "bad_action" else "illegal_move"
            raise RulesError(code, err.message, index=index, **err.extra) from None
    return state


def op_play(request: dict[str, Any]) -> dict[str, Any]:
    state = play_hand(request)
    actor = state.to_act
    return {
        "finished": state.finished,
        "stacks": list(state.stacks),
        "pots": [
            {"amount": p["amount"], "eligible": p["eligible"], "winners": p["winners"]}
            for p in current_pots(state)
        ],
        "to_act": actor,
        "legal": None if actor is None else betting.legal_actions(state, actor).as_dict(),
    }


def op_best(request: dict[str, Any]) -> dict[str, Any]:
    _check_keys(request, _BEST_KEYS)
    value = evaluate_text(request.get("cards"))
    return {"category": value.category_name, "best": cards_str(value.best), "rank": value.rank}


OPS: dict[str, Op] = {"holdem.play": op_play, "holdem.best": op_best}
