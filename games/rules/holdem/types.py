"""The Hold'em shapes clients see: the view, the actions, the result summary.

Shared by the engine (which builds them), the command line and the API schema
(``games/api/schema.py`` publishes them as components). Chips are integers."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

from ..game import EventLog


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
    ante: int
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
    log: Annotated[list[dict[str, Any]], EventLog(HoldemLogged)]


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


class AwardedPotJSON(TypedDict):
    """Pot ``index`` (0: the main pot) of ``amount`` chips, which ``eligible``
    players could win, as paid to ``winners`` (their ``shares``, in order)."""

    index: int
    amount: int
    eligible: list[int]
    winners: list[int]
    shares: list[int]


class UncalledJSON(TypedDict):
    """The part of ``player``'s bet nobody called, returned to their stack."""

    player: int
    amount: int


class HoldemSummary(TypedDict):
    """The result's ``summary``: the pots as paid, the hands shown, the stacks."""

    pots: list[AwardedPotJSON]
    winners: list[int]
    shown: list[ShownHandJSON]
    uncalled: list[UncalledJSON]
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


# -- events ---------------------------------------------------------------------
# What happens in a hand, in order (docs/protocol.md "Game events"): each one
# named by what happened, in the past tense, as in every game. ``dealt`` is
# private; the others are the public records the view's ``log`` holds too
# (there with ``kind`` for ``type``).

Street = Literal["preflop", "flop", "turn", "river"]


class HandDealtEvent(TypedDict):
    """The cards were dealt: ``players``, the ``button`` and blinds (player
    indices), the stake, the raise cap, the stacks and time banks; at a
    tournament table also ``blinds`` (``[small, big]`` chips, else they are 1
    and 2 units of the stake) and the ``ante`` (chips per player)."""

    type: Literal["hand_dealt"]
    players: int
    button: int
    small_blind: int
    big_blind: int
    stake: int
    max_raise: int | None
    stacks: list[int]
    time_banks_ms: list[int]
    blinds: NotRequired[list[int]]
    ante: NotRequired[int]


class DealtEvent(TypedDict):
    """Private: your two hole cards."""

    type: Literal["dealt"]
    cards: list[str]


class AntePostedEvent(TypedDict):
    """``player`` put ``amount`` chips of ante into the pot (dead money, not
    part of their bet), before the blinds; ``all_in``: that was their stack."""

    type: Literal["ante_posted"]
    player: int
    amount: int
    all_in: bool


class BlindPostedEvent(TypedDict):
    type: Literal["blind_posted"]
    player: int
    blind: Literal["small", "big"]
    amount: int
    all_in: bool


class ActedEvent(TypedDict):
    """``player`` folded, checked, called or raised on ``street``: ``amount``
    chips added, ``to`` their bet this round after it. ``auto``: checked for
    them (nothing left to decide), ``timeout``: their clock ran out,
    ``left``: they left (``out_of_turn``: not on their turn)."""

    type: Literal["acted"]
    street: Street
    player: int
    action: Literal["fold", "check", "call", "raise"]
    amount: int
    to: int
    all_in: bool
    auto: NotRequired[bool]
    timeout: NotRequired[bool]
    left: NotRequired[bool]
    out_of_turn: NotRequired[bool]


class BoardDealtEvent(TypedDict):
    """The flop, the turn or the river: the board's new ``cards``."""

    type: Literal["board_dealt"]
    street: Street
    cards: list[str]


class UncalledReturnedEvent(TypedDict):
    """The part of ``player``'s bet nobody called went back to their stack."""

    type: Literal["uncalled_returned"]
    player: int
    amount: int


class CardsShownEvent(TypedDict):
    """``player`` turned their hole ``cards`` up at the showdown."""

    type: Literal["cards_shown"]
    player: int
    cards: list[str]


class HandsRankedEvent(TypedDict):
    """The showdown: the hands shown, ranked."""

    type: Literal["hands_ranked"]
    hands: list[ShownHandJSON]


class PotAwardedEvent(TypedDict):
    """Pot ``index`` (0: the main pot) of ``amount`` chips, which ``eligible``
    players could win, went to ``winners`` (their ``shares``, in order)."""

    type: Literal["pot_awarded"]
    index: int
    amount: int
    eligible: list[int]
    winners: list[int]
    shares: list[int]


class HandFinishedEvent(TypedDict):
    """The hand is over: the ``stacks`` it leaves."""

    type: Literal["hand_finished"]
    stacks: list[int]


# The public events, which the view's ``log`` keeps as records (``kind``).
HoldemLogged = (
    HandDealtEvent
    | AntePostedEvent
    | BlindPostedEvent
    | ActedEvent
    | BoardDealtEvent
    | UncalledReturnedEvent
    | CardsShownEvent
    | HandsRankedEvent
    | PotAwardedEvent
    | HandFinishedEvent
)

HoldemEvent = DealtEvent | HoldemLogged
