"""The Mậu Binh shapes clients see: the view, the action, the result summary.

Shared by the engine (which builds them), the command line and the API schema
(``games/api/schema.py`` publishes them as components)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from ..game import PaymentJSON


class ArrangementJSON(TypedDict):
    chi1: list[str]
    chi2: list[str]
    chi3: list[str]


class SuggestionJSON(ArrangementJSON):
    expected_units: float


class SeatViewJSON(TypedDict):
    """One player as everyone sees them; from reveal step 1 also the chi
    revealed so far (``chi1``..``chi3``, null until shown), their hand names,
    the lủng flag and a public instant win."""

    player: int
    submitted: bool
    left: bool
    left_at: int | None
    auto: bool
    chi1: NotRequired[list[str] | None]
    chi2: NotRequired[list[str] | None]
    chi3: NotRequired[list[str] | None]
    hands: NotRequired[list[str]]
    lung: NotRequired[bool]
    instant: NotRequired[str | None]


class OwnViewJSON(TypedDict):
    """The viewer's own cards, submission and the arranger's suggestions."""

    cards: list[str]
    submission: ArrangementJSON | None
    lung: bool | None
    instant: str | None
    suggestion: SuggestionJSON
    hints: list[SuggestionJSON]
    instant_arrangement: ArrangementJSON | None


class MauBinhView(TypedDict):
    """What one player (or a spectator, ``you`` null) may see of a hand.

    ``you`` is the viewer's player index (the envelope's ``you``); who still
    arranges is the envelope's ``actors``."""

    game: Literal["maubinh"]
    preset: str
    phase: Literal["arrange", "reveal", "finished"]
    reveal_step: int
    you: int | None
    seats: list[SeatViewJSON]
    chi_units: list[list[int]]
    chi_payments: list[list[PaymentJSON]]
    own: NotRequired[OwnViewJSON]


class PersonalJSON(TypedDict):
    """The keys of a player's view that are not the spectators' (``view``)."""

    you: int
    own: OwnViewJSON


class PlayerSummaryJSON(TypedDict):
    arrangement: ArrangementJSON | None
    hands: list[str] | None
    lung: bool
    instant: str | None
    left_at: int | None
    auto: bool


class MauBinhSummary(TypedDict):
    """The result's ``summary``: each player's arrangement as shown, and the
    sweeps (``[winner, loser]`` pairs)."""

    preset: str
    players: list[PlayerSummaryJSON]
    sweeps: list[list[int]]


class SubmitAction(TypedDict):
    type: Literal["submit"]
    chi1: list[str]
    chi2: list[str]
    chi3: list[str]


MauBinhAction = SubmitAction


# -- events ---------------------------------------------------------------------
# What happens in a hand, in order (docs/protocol.md "Game events"): each one
# named by what happened, in the past tense, as in every game. Private ones
# (``dealt``, ``arranged``) reach only their player.


class HandDealtEvent(TypedDict):
    """The cards were dealt to ``players`` players, under the ``preset``'s rules."""

    type: Literal["hand_dealt"]
    players: int
    preset: str


class DealtEvent(TypedDict):
    """Private: your 13 cards, and the instant win (mậu binh tới trắng) they hold."""

    type: Literal["dealt"]
    cards: list[str]
    instant: str | None


class SubmittedEvent(TypedDict):
    """``player`` submitted an arrangement (may submit again until the reveal)."""

    type: Literal["submitted"]
    player: int


class ArrangedEvent(TypedDict):
    """Private: your arrangement as taken (by you, or by the server when your
    clock ran out), and whether it is lủng."""

    type: Literal["arranged"]
    chi1: list[str]
    chi2: list[str]
    chi3: list[str]
    lung: bool


class AutoArrangedEvent(TypedDict):
    """The arrange clock ran out: the server arranged these ``players``."""

    type: Literal["auto_arranged"]
    players: list[int]


class LeftEvent(TypedDict):
    """``player`` left the hand at reveal step ``reveal_step`` (0: arranging)."""

    type: Literal["left"]
    player: int
    reveal_step: int


class RevealedHandJSON(TypedDict):
    """One player's chi as turned up: its cards and its hand's name."""

    player: int
    cards: list[str]
    hand: str


class ChiRevealedEvent(TypedDict):
    """Chi ``step`` (1-3) was turned up: each player's ``hands`` on it, the lủng
    flags, the instant wins shown, the ``units`` each won on it."""

    type: Literal["chi_revealed"]
    step: int
    hands: list[RevealedHandJSON]
    lung: list[bool]
    instant: list[str | None]
    units: list[int]


class HandFinishedEvent(TypedDict):
    """The hand is over: each player's ``net`` units, the ``sweeps``
    (``[winner, loser]`` pairs)."""

    type: Literal["hand_finished"]
    net: list[int]
    sweeps: list[list[int]]


MauBinhEvent = (
    HandDealtEvent
    | DealtEvent
    | SubmittedEvent
    | ArrangedEvent
    | AutoArrangedEvent
    | LeftEvent
    | ChiRevealedEvent
    | HandFinishedEvent
)
