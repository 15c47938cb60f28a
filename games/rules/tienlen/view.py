"""What one player (or a spectator) may see of a hand (RULES.md 3; common brief: views)."""

from __future__ import annotations

from ..errors import RulesError
from ..game import JSON
from .moves import legal_plays
from .order import tl_str, tl_strs
from .rules import rules_to_dict
from .settle import outcome
from .state import HandState, payment_to_dict


def view(state: HandState, player: int | None) -> JSON:
    """The player's own cards, everyone's card counts and everything played.

    Other players' cards appear only once the hand is over.
    """
    if player is not None and (
        not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < state.players
    ):
        raise RulesError("bad_player", f"No player {player!r} in this hand")
    data: JSON = {
        "game": "tienlen",
        "rules": rules_to_dict(state.rules),
        "players": state.players,
        "seat": player,
        "hand": None if player is None else tl_strs(state.hands[player]),
        "card_counts": [len(h) for h in state.hands],
        "turn": state.turn,
        "first": state.first,
        "round": state.round,
        "table": _table(state),
        "passed": list(state.passed),
        "left": list(state.left),
        "must_include": None if state.must_include is None else tl_str(state.must_include),
        "chain": _chain(state),
        "history": [
            {
                "player": m.player,
                "action": "play" if m.cards else "pass",
                "cards": tl_strs(m.cards),
                "round": m.round,
                "chop": m.chop,
            }
            for m in state.history
        ],
        "settled": [payment_to_dict(p) for p in state.settled],
        "hints": _hints(state, player),
        "finished": state.finished,
    }
    if state.finished:
        result = outcome(state)
        data |= {
            "winner": state.winner,
            "instant": state.instant.type if state.instant else None,
            "hands": [tl_strs(h) for h in state.hands],
            "outcome": {
                "units": list(result.net),
                "payments": [payment_to_dict(p) for p in result.payments],
            },
        }
    return data


def _table(state: HandState) -> JSON | None:
    combo = state.table_combo
    if combo is None:
        return None
    return {"player": state.table_owner, "cards": tl_strs(state.table), "combination": combo.kind}


def _chain(state: HandState) -> JSON | None:
    chain = state.chain
    if chain is None:
        return None
    return {"victim": chain.victim, "chopper": chain.chopper, "units": chain.units}


def _hints(state: HandState, player: int | None) -> JSON | None:
    """For the player to act: the cards that are part of some legal play, and whether passing is."""
    if player is None or player != state.turn or state.finished:
        return None
    plays = legal_plays(state.hands[player], state.table_combo, state.rules, state.must_include)
    return {
        "cards": tl_strs(sorted({c for p in plays for c in p})),
        "can_pass": bool(state.table),
    }
