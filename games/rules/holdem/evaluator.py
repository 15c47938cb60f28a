"""Best five of 5, 6 or 7 cards (docs/rules.md 4), backed by phevaluator.

phevaluator is an exact C evaluator whose card ids are ``rank * 4 + suit``
like ours; its suit letters are in another order, which cannot change a
ranking because suits never rank (a suit bijection keeps every flush a flush).
It numbers the 7,462 distinct five-card hands 1 (royal flush) to 7,462 (7-5-4-3-2
high); we turn that around so that a higher :data:`rank` wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from phevaluator import _pheval  # type: ignore[import-untyped, unused-ignore]

from ..cards import Card, parse_cards
from ..errors import RulesError
from ..hand5 import CATEGORY_NAMES, Category

DISTINCT_HANDS = 7462

Evaluator = Callable[..., int]

_EVALUATORS: dict[int, Evaluator] = {
    5: _pheval.evaluate_5cards,
    6: _pheval.evaluate_6cards,
    7: _pheval.evaluate_7cards,
}
_EVALUATE5: Evaluator = _pheval.evaluate_5cards
_EVALUATE7: Evaluator = _pheval.evaluate_7cards

weakness7: Evaluator = _EVALUATE7
"""``weakness7(c1, ..., c7)``: seven distinct cards as arguments, **lower** wins
(1 is a royal flush; ``DISTINCT_HANDS + 1 - rank``). The inner loop of simulations."""

# The weakest hand of each category, as a rank (higher is better).
_CATEGORY_FLOORS: tuple[tuple[int, Category], ...] = (
    (DISTINCT_HANDS + 1 - 10, Category.STRAIGHT_FLUSH),
    (DISTINCT_HANDS + 1 - 166, Category.QUADS),
    (DISTINCT_HANDS + 1 - 322, Category.FULL_HOUSE),
    (DISTINCT_HANDS + 1 - 1599, Category.FLUSH),
    (DISTINCT_HANDS + 1 - 1609, Category.STRAIGHT),
    (DISTINCT_HANDS + 1 - 2467, Category.TRIPS),
    (DISTINCT_HANDS + 1 - 3325, Category.TWO_PAIR),
    (DISTINCT_HANDS + 1 - 6185, Category.PAIR),
    (1, Category.HIGH_CARD),
)


@dataclass(frozen=True)
class HandValue:
    """A hand's strength: ``rank`` 1..7462 (higher wins), its category and best five."""

    rank: int
    category: Category
    best: tuple[Card, ...]

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES[self.category]


def rank7(cards: Sequence[Card]) -> int:
    """The rank of exactly seven distinct cards; the fast path for simulations."""
    return DISTINCT_HANDS + 1 - _EVALUATE7(*cards)


def rank_of(cards: Sequence[Card]) -> int:
    """The rank of the best five of 5, 6 or 7 distinct cards (not checked)."""
    return DISTINCT_HANDS + 1 - _EVALUATORS[len(cards)](*cards)


def category_of(rank: int) -> Category:
    for floor, category in _CATEGORY_FLOORS:
        if rank >= floor:
            return category
    raise ValueError(f"rank out of range: {rank}")


def best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five cards that make the hand, strongest group first.

    Among equal-ranking choices (a board that plays, say) the first in
    combination order wins, which makes the choice deterministic.
    """
    target = _EVALUATORS[len(cards)](*cards)
    for five in combinations(cards, 5):
        if _EVALUATE5(*five) == target:
            return _display_order(five)
    raise AssertionError("no five cards reach the hand's own rank")


def _display_order(five: Sequence[Card]) -> tuple[Card, ...]:
    """Bigger groups first, then higher ranks: ``Kh Kd 9s 9c 2h``; wheels end with the ace."""
    counts: dict[int, int] = {}
    for card in five:
        counts[card >> 2] = counts.get(card >> 2, 0) + 1
    ordered = sorted(five, key=lambda c: (counts[c >> 2], c >> 2, c & 3), reverse=True)
    ranks = [c >> 2 for c in ordered]
    if ranks == [12, 3, 2, 1, 0]:
        ordered = [*ordered[1:], ordered[0]]
    return tuple(ordered)


def evaluate(cards: Sequence[Card]) -> HandValue:
    """Evaluate 5, 6 or 7 distinct cards, refusing anything else."""
    if len(cards) not in _EVALUATORS:
        raise RulesError(
            "wrong_card_count", f"A hand has 5 to 7 cards, got {len(cards)}", field="cards"
        )
    if len(set(cards)) != len(cards) or not all(0 <= c < 52 for c in cards):
        raise RulesError("duplicate_card", "A hand's cards must be distinct cards")
    rank = rank_of(cards)
    return HandValue(rank, category_of(rank), best_five(cards))


def evaluate_text(items: object) -> HandValue:
    """Evaluate card strings such as ``["Ah", "Kd", ...]`` (5 to 7 of them)."""
    return evaluate(parse_cards(items, count=(5, 6, 7)))
