"""The Tiến Lên shapes clients see: the view, the actions, the result summary.

Shared by the engine (which builds them), the command line and the API schema
(``games/api/schema.py`` publishes them as components)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from ..game import PaymentJSON


class RulesJSON(TypedDict):
    preset: str
    options: dict[str, Any]


class TableJSON(TypedDict):
    """The combination to beat and who played it."""

    player: int | None
    cards: list[str]
    combination: str


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


class HintsJSON(TypedDict):
    """For the player to act only: the cards that are part of a legal play."""

    cards: list[str]
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
    instant: NotRequired[str | None]
    hands: NotRequired[list[list[str]]]


class PersonalJSON(TypedDict):
    """The keys of a player's view that are not the spectators' (``view``)."""

    you: int
    hand: list[str]
    hints: HintsJSON | None


class TienLenSummary(TypedDict):
    """The result's ``summary``: the winner, an instant win, every hand left."""

    winner: int | None
    instant: str | None
    hands: list[list[str]]


class PlayAction(TypedDict):
    type: Literal["play"]
    cards: list[str]


class PassAction(TypedDict):
    type: Literal["pass"]


TienLenAction = PlayAction | PassAction
