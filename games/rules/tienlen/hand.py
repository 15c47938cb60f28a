"""The hand as a state machine (docs/rules.md 3.4-3.6): deal, play, pass, time-out, leave.

Every function returns a new state and the events it caused; the input state
is never changed, so a refused action leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..cards import Card, ensure_distinct
from ..errors import RulesError
from ..game import Event, Payment, event
from .combos import Play, chopped_value, is_chop
from .moves import check_play
from .order import TlCard, parse_tl, tl_str, tl_strs, to_tl
from .rules import TienLenRules
from .scoring import instant_win
from .state import Chain, HandState, Link, Move
from .types import (
    ChopSettledEvent,
    DealtEvent,
    HandDealtEvent,
    HandFinishedEvent,
    InstantWonEvent,
    LeftEvent,
    PassedEvent,
    PlayedEvent,
    RoundStartedEvent,
    TimedOutEvent,
    combination,
    instant_kind,
)

Step = tuple[HandState, list[Event]]


def start(
    rules: TienLenRules, deck: Sequence[Card], players: int, setup: Mapping[str, Any]
) -> Step:
    """Deal ``hand_size`` cards to each player in deck order and pick who leads.

    ``setup``: ``previous_winner`` (index or None) leads when given; otherwise
    ``random_first`` (a fair index drawn by the service), or with
    ``first_lead = "three_spades"`` the holder of the lowest card dealt, who
    must include it in the first play. A tới trắng ends the hand at once.
    """
    _check_deal(rules, deck, players)
    size = rules.hand_size
    hands = tuple(
        tuple(sorted(to_tl(c) for c in deck[i * size : (i + 1) * size])) for i in range(players)
    )
    first, must_include = _first_player(rules, hands, setup)
    state = HandState(
        rules=rules,
        hands=hands,
        turn=first,
        table=(),
        table_owner=None,
        passed=(False,) * players,
        round=0,
        history=(),
        chain=None,
        settled=(),
        left=(False,) * players,
        must_include=must_include,
        first=first,
    )
    events = [
        event(DealtEvent(type="dealt", cards=tl_strs(h)), seat=i) for i, h in enumerate(hands)
    ]
    events.append(
        event(
            HandDealtEvent(
                type="hand_dealt",
                players=players,
                first=first,
                must_include=None if must_include is None else tl_str(must_include),
            )
        )
    )
    holders = [(i, w) for i, h in enumerate(hands) if (w := instant_win(h)) is not None]
    if holders:
        winner, instant = max(holders, key=lambda h: h[1].strength())
        state = replace(state, winner=winner, instant=instant, turn=None)
        events.append(
            event(
                InstantWonEvent(
                    type="instant_won",
                    player=winner,
                    kind=instant_kind(instant.type),
                    cards=tl_strs(hands[winner]),
                )
            )
        )
        events.append(_finished_event(state))
    return state, events


def _check_deal(rules: TienLenRules, deck: Sequence[Card], players: int) -> None:
    if not isinstance(players, int) or not rules.min_players <= players <= rules.max_players:
        raise RulesError(
            "bad_players",
            f"Tiến Lên is played by {rules.min_players} to {rules.max_players} players",
        )
    if len(deck) != 52 or any(not isinstance(c, int) or not 0 <= c < 52 for c in deck):
        raise RulesError("bad_deck", "The deck must hold the 52 card codes")
    ensure_distinct([deck])


def _first_player(
    rules: TienLenRules, hands: tuple[Play, ...], setup: Mapping[str, Any]
) -> tuple[int, TlCard | None]:
    players = len(hands)
    previous = setup.get("previous_winner")
    if previous is not None:
        return _index(previous, players, "previous_winner"), None
    if rules.first_lead == "three_spades":
        lowest = min(c for h in hands for c in h)
        return next(i for i, h in enumerate(hands) if lowest in h), lowest
    return _index(setup.get("random_first"), players, "random_first"), None


def _index(value: object, players: int, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise RulesError("bad_setup", f"{name} must be a player index below {players}")
    return value


def apply(state: HandState, player: int, action: Mapping[str, Any]) -> Step:
    """Play or pass for ``player``, then play the turns of players who left."""
    if state.finished:
        raise RulesError("hand_finished", "The hand is over")
    if not isinstance(action, Mapping) or action.get("type") not in ("play", "pass"):
        raise RulesError("bad_action", 'An action is {"type": "play", "cards": [...]} or pass')
    _check_player(state, player)
    if player != state.turn:
        raise RulesError("not_your_turn", "It is not your turn", turn=state.turn)
    if action["type"] == "pass":
        state, events = pass_turn(state, player)
    else:
        state, events = play(state, player, parse_tl(action.get("cards")))
    return _play_for_leavers(state, events)


def play(state: HandState, player: int, cards: Play) -> Step:
    rules = state.rules
    table = state.table_combo
    combo = check_play(state.hands[player], cards, table, rules, state.must_include)
    chop = table is not None and is_chop(combo, table)
    chain = state.chain
    if chop and table is not None and state.table_owner is not None:
        chopped = Link(
            state.table_owner, state.table, chopped_value(state.table, table, rules.chop_penalties)
        )
        chain = Chain((*(chain.links if chain else ()), chopped), player, cards)
    hands = list(state.hands)
    hands[player] = tuple(c for c in hands[player] if c not in cards)
    state = replace(
        state,
        hands=tuple(hands),
        table=cards,
        table_owner=player,
        history=(*state.history, Move(player, cards, state.round, chop)),
        chain=chain,
        must_include=None,
    )
    events = [
        event(
            PlayedEvent(
                type="played",
                player=player,
                cards=tl_strs(cards),
                combination=combination(combo.kind),
                chop=chop,
            )
        )
    ]
    if not hands[player]:
        state = replace(_settle_chain(state, events), winner=player, turn=None)
        events.append(_finished_event(state))
        return state, events
    return replace(state, turn=_next_in_round(state, player)), events


def pass_turn(state: HandState, player: int) -> Step:
    if not state.table:
        raise RulesError("illegal_move", "The player who leads may not pass")
    passed = tuple(p or i == player for i, p in enumerate(state.passed))
    state = replace(state, passed=passed, history=(*state.history, Move(player, (), state.round)))
    events = [event(PassedEvent(type="passed", player=player))]
    if passed.count(False) > 1:
        return replace(state, turn=_next_in_round(state, player)), events
    leader = passed.index(False)
    state = replace(
        _settle_chain(state, events),
        table=(),
        table_owner=None,
        passed=(False,) * state.players,
        round=state.round + 1,
        turn=leader,
    )
    events.append(event(RoundStartedEvent(type="round_started", leader=leader, round=state.round)))
    return state, events


def _next_in_round(state: HandState, player: int) -> int:
    n = state.players
    for step in range(1, n):
        candidate = (player + step) % n
        if not state.passed[candidate]:
            return candidate
    raise AssertionError("no player left in the round")


def _settle_chain(state: HandState, events: list[Event]) -> HandState:
    """Close the round's chop chain: the last one chopped pays the last chopper the sum."""
    chain = state.chain
    if chain is None:
        return state
    settled = ChopSettledEvent(
        type="chop_settled",
        payer=chain.victim,
        payee=chain.chopper,
        amount=chain.units,
        reason="chop",
        detail={
            "chain": [
                {"player": k.owner, "cards": tl_strs(k.cards), "units": k.units}
                for k in chain.links
            ],
            "chopper_cards": tl_strs(chain.chopper_cards),
        },
    )
    payment = Payment(chain.victim, chain.chopper, chain.units, "chop", dict(settled["detail"]))
    events.append(event(settled))
    return replace(state, chain=None, settled=(*state.settled, payment))


def timeout(state: HandState) -> Step:
    """Pass for the player to act, or when leading play their lowest single (docs/rules.md 3.6)."""
    if state.finished or state.turn is None:
        raise RulesError("hand_finished", "The hand is over")
    return _play_for_leavers(*_timeout_step(state))


def _timeout_step(state: HandState) -> Step:
    assert state.turn is not None
    player = state.turn
    if state.table:
        state, events = pass_turn(state, player)
    else:
        state, events = play(state, player, (min(state.hands[player]),))
    return state, [event(TimedOutEvent(type="timed_out", player=player)), *events]


def leave(state: HandState, player: int) -> Step:
    """From now on the engine plays ``player``'s turns with the time-out action."""
    _check_player(state, player)
    if state.finished or state.left[player]:
        return state, []
    left = tuple(x or i == player for i, x in enumerate(state.left))
    state = replace(state, left=left)
    return _play_for_leavers(state, [event(LeftEvent(type="left", player=player))])


def _check_player(state: HandState, player: object) -> None:
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < state.players:
        raise RulesError("bad_player", f"No player {player!r} in this hand")


def _play_for_leavers(state: HandState, events: list[Event]) -> Step:
    while not state.finished and state.turn is not None and state.left[state.turn]:
        state, more = _timeout_step(state)
        events += more
    return state, events


def _finished_event(state: HandState) -> Event:
    return event(
        HandFinishedEvent(
            type="hand_finished",
            winner=state.winner,
            instant=instant_kind(state.instant.type) if state.instant else None,
            hands=[tl_strs(h) for h in state.hands],
        )
    )
