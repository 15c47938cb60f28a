"""What one player (or a spectator) may see of a hand (RULES.md 3; common brief: views)."""

from __future__ import annotations

from typing import Any

from ..errors import RulesError
from ..game import payment_json
from .moves import legal_plays
from .order import tl_str, tl_strs
from .rules import rules_to_dict
from .state import HandState, Move
from .types import ChainJSON, HintsJSON, MoveJSON, RulesJSON, TableJSON, TienLenView


def view(state: HandState, player: int | None) -> TienLenView:
    """The player's own cards, everyone's card counts and everything played.

    Other players' cards appear only once the hand is over. Whose turn it is
    and the result are the table's (``status`` and ``outcome``), not the view's.
    """
    if player is not None and (
        not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < state.players
    ):
        raise RulesError("bad_player", f"No player {player!r} in this hand")
    rules: dict[str, Any] = rules_to_dict(state.rules)
    data: TienLenView = {
        "game": "tienlen",
        "rules": RulesJSON(preset=rules["preset"], options=rules["options"]),
        "players": state.players,
        "you": player,
        "hand": None if player is None else tl_strs(state.hands[player]),
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
        "hints": _hints(state, player),
        "finished": state.finished,
    }
    if state.finished:
        data["winner"] = state.winner
        data["instant"] = state.instant.type if state.instant else None
        data["hands"] = [tl_strs(h) for h in state.hands]
    return data


# Each state's history as JSON, built once and shared by every view of that
# state (every player's and the public one repeat it). Keyed by the history
# tuple, kept with it so that the key stays its own.
_HISTORIES: dict[int, tuple[tuple[Move, ...], list[MoveJSON]]] = {}


def _history_json(history: tuple[Move, ...]) -> list[MoveJSON]:
    """Shared: never change the list it returns."""
    found = _HISTORIES.get(id(history))
    if found is not None and found[0] is history:
        return found[1]
    if len(_HISTORIES) >= 256:
        _HISTORIES.clear()
    data: list[MoveJSON] = [
        {
            "player": m.player,
            "action": "play" if m.cards else "pass",
            "cards": tl_strs(m.cards),
            "round": m.round,
            "chop": m.chop,
        }
        for m in history
    ]
    _HISTORIES[id(history)] = (history, data)
    return data


def _table(state: HandState) -> TableJSON | None:
    combo = state.table_combo
    if combo is None:
        return None
    return {"player": state.table_owner, "cards": tl_strs(state.table), "combination": combo.kind}


def _chain(state: HandState) -> ChainJSON | None:
    chain = state.chain
    if chain is None:
        return None
    return {"victim": chain.victim, "chopper": chain.chopper, "units": chain.units}


def _hints(state: HandState, player: int | None) -> HintsJSON | None:
    """For the player to act: the cards that are part of some legal play, and whether passing is."""
    if player is None or player != state.turn or state.finished:
        return None
    plays = legal_plays(state.hands[player], state.table_combo, state.rules, state.must_include)
    return {
        "cards": tl_strs(sorted({c for p in plays for c in p})),
        "can_pass": bool(state.table),
    }
