"""What one player (or a spectator) may see of a hand (docs/rules.md 3; common brief: views)."""

from __future__ import annotations

import operator
from typing import Any

from ..errors import RulesError
from ..game import payment_json
from .moves import named_legal_plays
from .order import tl_str, tl_strs
from .rules import rules_to_dict
from .state import HandState, Move
from .types import (
    ChainJSON,
    HintsJSON,
    LegalPlayJSON,
    MoveJSON,
    PersonalJSON,
    RulesJSON,
    TableJSON,
    TienLenView,
    combination,
    instant_kind,
)


def view(state: HandState, player: int | None) -> TienLenView:
    """The player's own cards, everyone's card counts and everything played.

    Other players' cards appear only once the hand is over. Whose turn it is
    and the result are the table's (``status`` and ``outcome``), not the view's.
    A player's view is the spectators' with :func:`personal_view` over it.
    """
    if player is None:
        return public_view(state)
    return {**public_view(state), **personal_view(state, player)}


def public_view(state: HandState) -> TienLenView:
    """The spectators' view (``you``, ``hand`` and ``hints`` None)."""
    rules: dict[str, Any] = rules_to_dict(state.rules)
    data: TienLenView = {
        "game": "tienlen",
        "rules": RulesJSON(preset=rules["preset"], options=rules["options"]),
        "players": state.players,
        "you": None,
        "hand": None,
        "card_counts": [len(h) for h in state.hands],
        "first": state.first,
        "round": state.round,
        "table": _table(state),
        "passed": list(state.passed),
        "left": list(state.left),
        "must_include": None if state.must_include is None else tl_str(state.must_include),
        "chain": _chain(state),
        "history": _history_json(state.history),
        "settled": [payment_json(p) for p in state.settled],
        "hints": None,
        "finished": state.finished,
    }
    if state.finished:
        data["winner"] = state.winner
        data["instant"] = instant_kind(state.instant.type) if state.instant else None
        data["hands"] = [tl_strs(h) for h in state.hands]
    return data


def personal_view(state: HandState, player: int) -> PersonalJSON:
    """What ``player`` sees that spectators do not: who they are, their cards
    and, on their turn, the hints."""
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < state.players:
        raise RulesError("bad_player", f"No player {player!r} in this hand")
    return {"you": player, "hand": tl_strs(state.hands[player]), "hints": _hints(state, player)}


# Each state's history as JSON, built once and shared by every view of that
# state (every player's and the public one repeat it). Keyed by the history
# tuple, kept with it so that the key stays its own. The state after a move
# shares every earlier Move with the state before it: its list is that
# state's and one more item (_ENDING: the history that a Move ends).
_HISTORIES: dict[int, tuple[tuple[Move, ...], list[MoveJSON]]] = {}
_ENDING: dict[int, int] = {}


def _history_json(history: tuple[Move, ...]) -> list[MoveJSON]:
    """Shared: never change the list it returns (nor its items)."""
    found = _HISTORIES.get(id(history))
    if found is not None and found[0] is history:
        return found[1]
    if len(_HISTORIES) >= 256:
        _HISTORIES.clear()
        _ENDING.clear()
    data = None
    if len(history) > 1:
        shorter = _HISTORIES.get(_ENDING.get(id(history[-2]), -1))
        if (
            shorter is not None
            and len(shorter[0]) == len(history) - 1
            and all(map(operator.is_, shorter[0], history))
        ):
            data = [*shorter[1], _move_json(history[-1])]
    if data is None:
        data = [_move_json(m) for m in history]
    _HISTORIES[id(history)] = (history, data)
    if history:
        _ENDING[id(history[-1])] = id(history)
    return data


def _move_json(move: Move) -> MoveJSON:
    return {
        "player": move.player,
        "action": "play" if move.cards else "pass",
        "cards": tl_strs(move.cards),
        "round": move.round,
        "chop": move.chop,
    }


def _table(state: HandState) -> TableJSON | None:
    combo = state.table_combo
    if combo is None:
        return None
    return {
        "player": state.table_owner,
        "cards": tl_strs(state.table),
        "combination": combination(combo.kind),
    }


def _chain(state: HandState) -> ChainJSON | None:
    chain = state.chain
    if chain is None:
        return None
    return {"victim": chain.victim, "chopper": chain.chopper, "units": chain.units}


def _hints(state: HandState, player: int) -> HintsJSON | None:
    """For the player to act: every legal play with its combination, the
    cards that are part of one, and whether passing is legal."""
    if player != state.turn or state.finished:
        return None
    hand = state.hands[player]
    named = named_legal_plays(hand, state.table_combo, state.rules, state.must_include)
    plays: list[LegalPlayJSON] = [
        {"cards": tl_strs(p), "combination": combination(kind)} for kind, p in named
    ]
    return {
        "cards": tl_strs(sorted({c for _kind, p in named for c in p})),
        "plays": plays,
        "can_pass": bool(state.table),
    }
