"""A Hold'em bot that decides from its own view only (docs/rules.md 4).

It estimates its equity by Monte Carlo against random hands for every live
opponent (a fixed number of deals, so it is deterministic for a seed and
takes a few milliseconds), then value-bets and raises strong hands, calls
when the price is right, folds weak hands to bets, and sometimes bluffs,
more often in position.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import Card, parse_cards
from ..errors import RulesError
from .evaluator import DISTINCT_HANDS, weakness7

EVALUATION_BUDGET = 600
MIN_SAMPLES = 100


@dataclass(frozen=True)
class Style:
    """The bot's tendencies; bet sizes are fractions of the pot."""

    strong_edge: float = 0.45
    medium_edge: float = 0.15
    call_margin: float = 0.03
    bluff_in_position: float = 0.12
    bluff_out_of_position: float = 0.04
    shove_ratio: float = 1.5
    medium_bet_rate: float = 0.5
    strong_raise_rate: float = 0.8
    value_bet: float = 0.75
    thin_bet: float = 0.5
    value_raise: float = 0.9


STYLE = Style()


@dataclass(frozen=True)
class Situation:
    """What the bot knows at its turn, read from its view."""

    share: float
    strong: bool
    medium: bool
    to_call: int
    pot: int
    top: int
    stack: int
    in_position: bool
    raise_bounds: tuple[int, int] | None
    all_in_allowed: bool


def equity(
    hole: Sequence[Card], board: Sequence[Card], opponents: int, rng: random.Random, samples: int
) -> float:
    """The share of the pot the hand wins on average against random opponent hands."""
    dead = {*hole, *board}
    deck = [c for c in range(52) if c not in dead]
    size = len(deck)
    missing = 5 - len(board)
    drawn = missing + 2 * opponents
    uniform = rng.random
    first, second = hole
    won = 0.0
    for _ in range(samples):
        # A partial Fisher-Yates shuffle: the first ``drawn`` cards become a uniform sample.
        for i in range(drawn):
            j = i + int(uniform() * (size - i))
            deck[i], deck[j] = deck[j], deck[i]
        full_board = (*board, *deck[:missing])
        mine = weakness7(first, second, *full_board)
        best = DISTINCT_HANDS + 1
        ties = 0
        for k in range(missing, drawn, 2):
            theirs = weakness7(deck[k], deck[k + 1], *full_board)
            if theirs < best:
                best, ties = theirs, 1
            elif theirs == best:
                ties += 1
        if mine < best:
            won += 1.0
        elif mine == best:
            won += 1.0 / (ties + 1)
    return won / samples


def _in_position(view: Mapping[str, Any], me: int) -> bool:
    """True when every other live player acts before this one after the flop."""
    players = int(view["players"])
    button = int(view["button"])
    order = [(button + 1 + k) % players for k in range(players)]
    live = [p for p in order if not view["folded"][p]]
    return live[-1] == me


def read_situation(view: Mapping[str, Any], rng: random.Random) -> Situation:
    me = int(view["you"])
    legal = view["legal"]
    hole = parse_cards(view["hole"], count=2)
    board = parse_cards(view["board"], count=(0, 3, 4, 5))
    opponents = sum(1 for p, folded in enumerate(view["folded"]) if not folded and p != me)
    samples = max(MIN_SAMPLES, EVALUATION_BUDGET // (opponents + 1))
    share = equity(hole, board, opponents, rng, samples)
    fair = 1.0 / (opponents + 1)
    to_call = int(legal["call"] or 0)
    bounds = legal["raise"]
    return Situation(
        share=share,
        strong=share >= fair + (1 - fair) * STYLE.strong_edge,
        medium=share >= fair + (1 - fair) * STYLE.medium_edge,
        to_call=to_call,
        pot=int(view["pot"]),
        top=int(view["bets"][me]) + to_call,
        stack=int(view["stacks"][me]),
        in_position=_in_position(view, me),
        raise_bounds=None if bounds is None else (int(bounds["min"]), int(bounds["max"])),
        all_in_allowed=legal["all_in"] is not None,
    )


def _raise(situation: Situation, pot: int, fraction: float) -> dict[str, Any]:
    assert situation.raise_bounds is not None
    low, high = situation.raise_bounds
    return {"type": "raise", "to": max(low, min(high, situation.top + int(pot * fraction)))}


def decide(s: Situation, rng: random.Random) -> dict[str, Any]:
    can_raise = s.raise_bounds is not None
    if (
        s.strong
        and can_raise
        and s.all_in_allowed
        and s.stack <= STYLE.shove_ratio * (s.pot + s.to_call)
    ):
        return {"type": "all_in"}
    if s.to_call == 0:
        if can_raise and s.strong:
            return _raise(s, s.pot, STYLE.value_bet)
        if can_raise and s.medium and rng.random() < STYLE.medium_bet_rate:
            return _raise(s, s.pot, STYLE.thin_bet)
        bluff = STYLE.bluff_in_position if s.in_position else STYLE.bluff_out_of_position
        if can_raise and rng.random() < bluff:
            return _raise(s, s.pot, STYLE.thin_bet)
        return {"type": "check"}
    if s.strong and can_raise and rng.random() < STYLE.strong_raise_rate:
        return _raise(s, s.pot + s.to_call, STYLE.value_raise)
    if s.medium or s.share >= s.to_call / (s.pot + s.to_call) + STYLE.call_margin:
        return {"type": "call"}
    return {"type": "fold"}


def choose_action(view: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """A legal action for the player whose view this is, the same for the same seed."""
    # Legal actions are in the view of the player to act only.
    if view.get("you") is None or not isinstance(view.get("legal"), Mapping):
        raise RulesError("not_your_turn", "The bot is not the player to act")
    rng = random.Random(seed)
    return decide(read_situation(view, rng), rng)


def think(view: Mapping[str, Any], player: int) -> float:
    """How long ``player``'s decision takes, in ordinary decisions (1.0), read
    from the spectators' view only (the price to call, the stack and the
    street are on the table for everyone), so a bot's pause tells nothing its
    cards would: a free check is quick, a call that costs much of the stack is
    slow, and decisions weigh more on later streets."""
    to_call = int(view["to_call"] or 0)
    stack = max(1, int(view["stacks"][player]))
    street = {0: 1.0, 3: 1.1, 4: 1.2}.get(len(view["board"]), 1.3)
    if to_call == 0:
        return 0.6 * street
    return (0.9 + 2.1 * min(1.0, to_call / stack)) * street
