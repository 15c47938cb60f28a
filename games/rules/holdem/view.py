"""What a player (or a spectator) may see of a hand: the only thing sent to clients.

A player sees their own hole cards; other hole cards only once shown at the
showdown; folded hands never. The board is what has been dealt so far.
"""

from __future__ import annotations

from ..cards import cards_str
from ..errors import RulesError
from .betting import legal_actions
from .pots import build_pots
from .state import HandState, json_copy
from .types import HoldemView, PersonalJSON, PotJSON


def current_pots(state: HandState) -> list[PotJSON]:
    """The pots collected from finished betting rounds (the current round's bets are
    still in front of the players); after the hand, the pots as paid, with winners."""
    if state.finished:
        return [
            PotJSON(
                amount=r["amount"], eligible=r["eligible"], winners=r["winners"], shares=r["shares"]
            )
            for r in state.log
            if r["kind"] == "pot_awarded"
        ]
    collected = [c - b for c, b in zip(state.committed, state.bets, strict=True)]
    live = [not f for f in state.folded]
    return [
        PotJSON(amount=pot.amount, eligible=list(pot.eligible), winners=[], shares=[])
        for pot in build_pots(collected, live)
    ]


def view(state: HandState, player: int | None) -> HoldemView:
    """The view of ``player`` (an index below ``state.players``), None for spectators.

    Whose turn it is is the table's (``status``); ``legal`` is the viewer's own,
    on their turn only. A player's view is the spectators' with
    :func:`personal_view` over it."""
    if player is None:
        return public_view(state)
    return {**public_view(state), **personal_view(state, player)}


def _check_player(state: HandState, player: object) -> None:
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < state.players:
        raise RulesError("bad_player", f"No player {player!r} in this hand")


def public_view(state: HandState) -> HoldemView:
    """The spectators' view (``you``, ``hole`` and ``legal`` None)."""
    actor = state.to_act
    legal = None if actor is None else legal_actions(state, actor)
    shown = [cards_str(state.hole[p]) if state.shown[p] else None for p in range(state.players)]
    return {
        "game": "holdem",
        "you": None,
        "players": state.players,
        "phase": state.phase,
        "finished": state.finished,
        "stake": state.stake,
        "small_blind_amount": state.small_blind_chips,
        "big_blind_amount": state.big_blind_chips,
        "ante": state.ante,
        "max_raise": state.max_raise,
        "button": state.button,
        "small_blind": state.small_blind,
        "big_blind": state.big_blind,
        "hole": None,
        "board": cards_str(state.board_dealt),
        "stacks": list(state.stacks),
        "bets": list(state.bets),
        "committed": list(state.committed),
        "folded": list(state.folded),
        "all_in": [state.stacks[p] == 0 and not state.folded[p] for p in range(state.players)],
        "pot": sum(state.committed) if not state.finished else 0,
        "pots": current_pots(state),
        "to_call": None if legal is None else legal.call or 0,
        "legal": None,
        "shown": shown,
        "action_clock_ms": state.rules.action_clock_ms,
        "time_banks_ms": list(state.time_banks),
        "timeouts": list(state.timeouts),
        "log": json_copy(state.log),
    }


def personal_view(state: HandState, player: int) -> PersonalJSON:
    """What ``player`` sees that spectators do not: who they are, their hole
    cards and, on their turn, what they may do."""
    _check_player(state, player)
    mine = legal_actions(state, player) if player == state.to_act else None
    return {
        "you": player,
        "hole": cards_str(state.hole[player]),
        "legal": None if mine is None else mine.as_dict(),
    }
