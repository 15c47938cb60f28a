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
