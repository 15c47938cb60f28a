"""The Hold'em shapes clients see: the view, the actions, the result summary.

Shared by the engine (which builds them), the command line and the API schema
(``games/api/schema.py`` publishes them as components). Chips are integers."""

from __future__ import annotations

from typing import Any, Literal, TypedDict


class RaiseBounds(TypedDict):
    min: int
    max: int


# What the player to act may do: ``call`` and ``all_in`` are the chips they
# add, ``raise`` the totals for the round they may raise to.
LegalJSON = TypedDict(
    "LegalJSON",
    {
        "fold": bool,
        "check": bool,
        "call": int | None,
        "raise": RaiseBounds | None,
        "all_in": int | None,
    },
)


class PotJSON(TypedDict):
    amount: int
    eligible: list[int]
    winners: list[int]
    shares: list[int]


class HoldemView(TypedDict):
    """What one player (or a spectator, ``you`` null) may see of a hand.

    ``you`` is the viewer's player index (the envelope's ``you``); whose turn it
    is is the envelope's ``actors``. ``legal`` is set only on your turn. ``log``
    holds the hand's public records (the events' payloads, with ``kind``)."""

    game: Literal["holdem"]
    you: int | None
    players: int
    phase: str
    finished: bool
    stake: int
    small_blind_amount: int
    big_blind_amount: int
    max_raise: int | None
    button: int
    small_blind: int
    big_blind: int
    hole: list[str] | None
    board: list[str]
    stacks: list[int]
    bets: list[int]
    committed: list[int]
    folded: list[bool]
    all_in: list[bool]
    pot: int
    pots: list[PotJSON]
    to_call: int | None
    legal: LegalJSON | None
    shown: list[list[str] | None]
    action_clock_ms: int
    time_banks_ms: list[int]
    timeouts: list[int]
    log: list[dict[str, Any]]


class PersonalJSON(TypedDict):
    """The keys of a player's view that are not the spectators' (``view``)."""

    you: int
    hole: list[str]
    legal: LegalJSON | None


class ShownHandJSON(TypedDict):
    """A hand turned face up at the showdown: the player's hole ``cards``, its
    ``category`` (``high_card`` ... ``straight_flush``), ``best``: the five of the
    seven cards that make it (a pot's winning five are its winners' ``best``),
    and ``rank`` (1..7462, higher wins; equal ranks split)."""

    player: int
    cards: list[str]
    category: str
    best: list[str]
    rank: int


class HoldemSummary(TypedDict):
    """The result's ``summary``: the pots as paid, the hands shown, the stacks."""

    pots: list[dict[str, Any]]
    winners: list[int]
    shown: list[ShownHandJSON]
    uncalled: list[dict[str, Any]]
    board: list[str]
    start_stacks: list[int]
    stacks: list[int]
    time_banks_ms: list[int]
    timeouts: list[int]
    sit_out: list[int]


class FoldAction(TypedDict):
    type: Literal["fold"]


class CheckAction(TypedDict):
    type: Literal["check"]


class CallAction(TypedDict):
    type: Literal["call"]


class RaiseAction(TypedDict):
    """``to``: the player's total bet this round after the raise."""

    type: Literal["raise"]
    to: int


class AllInAction(TypedDict):
    type: Literal["all_in"]


HoldemAction = FoldAction | CheckAction | CallAction | RaiseAction | AllInAction
