"""The Tiến Lên shapes clients see: the view, the actions, the result summary.

Shared by the engine (which builds them), the command line and the API schema
(``games/api/schema.py`` publishes them as components)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, get_args

from ..errors import RulesError
from ..game import PaymentJSON

# The combinations (docs/rules.md 3.2), a closed list.
Combination = Literal[
    "single", "pair", "triple", "straight", "three_pair_run", "quad", "four_pair_run"
]
COMBINATIONS: tuple[Combination, ...] = get_args(Combination)
# The instant wins (tới trắng, docs/rules.md 3.5), strongest first.
InstantKind = Literal[
    "dragon",
    "six_consecutive_pairs",
    "four_triples",
    "two_quads",
    "twelve_one_suit",
    "five_consecutive_pairs",
    "four_twos",
    "six_pairs",
]
INSTANT_KINDS: tuple[InstantKind, ...] = get_args(InstantKind)


def combination(kind: str) -> Combination:
    """``kind`` as a :data:`Combination` (a ``RulesError`` if it is none)."""
    for name in COMBINATIONS:
        if name == kind:
            return name
    raise RulesError("bad_combination", f"No combination {kind!r}")


def instant_kind(kind: str) -> InstantKind:
    """``kind`` as an :data:`InstantKind` (a ``RulesError`` if it is none)."""
    for name in INSTANT_KINDS:
        if name == kind:
            return name
    raise RulesError("bad_instant", f"No instant win {kind!r}")


class RulesJSON(TypedDict):
    preset: str
    options: dict[str, Any]


class TableJSON(TypedDict):
    """The combination to beat and who played it."""

    player: int | None
    cards: list[str]
    combination: Combination


class ChainJSON(TypedDict):
    """The current round's chops: who pays whom how many units if it stands."""

    victim: int
    chopper: int
    units: int


class MoveJSON(TypedDict):
    player: int
    action: Literal["play", "pass"]
    cards: list[str]
    round: int
    chop: bool


class LegalPlayJSON(TypedDict):
    """One play the rules allow now: its ``cards`` and their ``combination``."""

    cards: list[str]
    combination: Combination


class HintsJSON(TypedDict):
    """For the player to act only: every legal ``play`` now (each its cards
    and combination: play one of them as it is), the cards that are part of
    one (``cards``), and whether passing is legal."""

    cards: list[str]
    plays: list[LegalPlayJSON]
    can_pass: bool


class TienLenView(TypedDict):
    """What one player (or a spectator, ``you`` null) may see of a hand.

    ``you`` is the viewer's player index (the envelope's ``you``); whose turn it
    is is the envelope's ``actors``. ``hints`` is set only on your turn."""

    game: Literal["tienlen"]
    rules: RulesJSON
    players: int
    you: int | None
    hand: list[str] | None
    card_counts: list[int]
    first: int | None
    round: int
    table: TableJSON | None
    passed: list[bool]
    left: list[bool]
    must_include: str | None
    chain: ChainJSON | None
    history: list[MoveJSON]
    settled: list[PaymentJSON]
    hints: HintsJSON | None
    finished: bool
    winner: NotRequired[int | None]
    instant: NotRequired[InstantKind | None]
    hands: NotRequired[list[list[str]]]


class PersonalJSON(TypedDict):
    """The keys of a player's view that are not the spectators' (``view``)."""

    you: int
    hand: list[str]
    hints: HintsJSON | None


class TienLenSummary(TypedDict):
    """The result's ``summary``: the winner, an instant win, every hand left."""

    winner: int | None
    instant: InstantKind | None
    hands: list[list[str]]


class PlayAction(TypedDict):
    type: Literal["play"]
    cards: list[str]


class PassAction(TypedDict):
    type: Literal["pass"]


TienLenAction = PlayAction | PassAction


# -- events ---------------------------------------------------------------------
# What happens in a hand, in order (docs/protocol.md "Game events"): each one
# named by what happened, in the past tense, as in every game. Private ones
# (``dealt``) reach only their player.


class DealtEvent(TypedDict):
    """Private: the cards you were dealt."""

    type: Literal["dealt"]
    cards: list[str]


class HandDealtEvent(TypedDict):
    """The cards were dealt to ``players`` players; ``first`` leads, with
    ``must_include`` in the first play when the lowest card leads."""

    type: Literal["hand_dealt"]
    players: int
    first: int
    must_include: str | None


class InstantWonEvent(TypedDict):
    """Tới trắng: ``player`` wins at once with ``kind``, their ``cards`` shown."""

    type: Literal["instant_won"]
    player: int
    kind: InstantKind
    cards: list[str]


class PlayedEvent(TypedDict):
    """``player`` played ``cards``, a ``combination``; ``chop``: it chopped."""

    type: Literal["played"]
    player: int
    cards: list[str]
    combination: Combination
    chop: bool


class PassedEvent(TypedDict):
    type: Literal["passed"]
    player: int


class RoundStartedEvent(TypedDict):
    """Everyone else passed: ``leader`` leads round ``round``."""

    type: Literal["round_started"]
    leader: int
    round: int


class ChopLinkJSON(TypedDict):
    """One chopped play of a chain: whose, its cards, the units it is worth."""

    player: int
    cards: list[str]
    units: int


class ChopDetailJSON(TypedDict):
    chain: list[ChopLinkJSON]
    chopper_cards: list[str]


class ChopSettledEvent(TypedDict):
    """A round's chops were settled: the last one chopped (``payer``) pays the
    last chopper (``payee``) ``amount`` units (a payment, ``reason`` ``chop``)."""

    type: Literal["chop_settled"]
    payer: int
    payee: int
    amount: int
    reason: Literal["chop"]
    detail: ChopDetailJSON


class TimedOutEvent(TypedDict):
    """``player``'s clock ran out: the server passed, or led their lowest card."""

    type: Literal["timed_out"]
    player: int


class LeftEvent(TypedDict):
    """``player`` left the hand: the server plays their turns from now on."""

    type: Literal["left"]
    player: int


class HandFinishedEvent(TypedDict):
    """The hand is over: its ``winner``, an ``instant`` win, every hand left."""

    type: Literal["hand_finished"]
    winner: int | None
    instant: InstantKind | None
    hands: list[list[str]]


TienLenEvent = (
    DealtEvent
    | HandDealtEvent
    | InstantWonEvent
    | PlayedEvent
    | PassedEvent
    | RoundStartedEvent
    | ChopSettledEvent
    | TimedOutEvent
    | LeftEvent
    | HandFinishedEvent
)
