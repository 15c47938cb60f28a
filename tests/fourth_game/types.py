"""The high card shapes clients see (published by the API schema)."""

from __future__ import annotations

from typing import Literal, TypedDict


class HighCardView(TypedDict):
    """One player's (or a spectator's, ``you`` null) view: ``card`` is your own
    card, ``shown`` every card shown so far (each player's, or null), all of
    them once the hand is over."""

    game: Literal["highcard"]
    players: int
    you: int | None
    card: str | None
    shown: list[str | None]
    left: list[bool]
    finished: bool
    winner: int | None


class HighCardSummary(TypedDict):
    """The result's ``summary``: the winner (null: a tie) and both cards."""

    winner: int | None
    cards: list[str]


class ShowAction(TypedDict):
    type: Literal["show"]


HighCardAction = ShowAction


class DealtEvent(TypedDict):
    """Private: your card."""

    type: Literal["dealt"]
    cards: list[str]


class CardsShownEvent(TypedDict):
    type: Literal["cards_shown"]
    player: int
    cards: list[str]


class TimedOutEvent(TypedDict):
    type: Literal["timed_out"]
    player: int


class LeftEvent(TypedDict):
    type: Literal["left"]
    player: int


HighCardEvent = DealtEvent | CardsShownEvent | TimedOutEvent | LeftEvent
