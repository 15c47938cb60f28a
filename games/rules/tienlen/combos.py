"""Combinations, their comparison and chops (docs/rules.md 3.2, 3.3, 3.7).

Cards are Tiến Lên codes (:mod:`.order`), so a combination is compared by
its highest card with ``>``. Plays are sorted tuples of codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .order import ACE_RANK, TWO_RANK, TlCard, is_red
from .rules import (
    BOMBS,
    FOUR_PAIR_RUN,
    PAIR,
    PAIR_OF_TWOS,
    QUAD,
    SINGLE,
    STRAIGHT,
    THREE_PAIR_RUN,
    TRIPLE,
    TWO,
    Penalties,
    TienLenRules,
)

Play = tuple[TlCard, ...]

_SAME_RANK = {1: SINGLE, 2: PAIR, 3: TRIPLE, 4: QUAD}
_PAIR_RUNS = {6: THREE_PAIR_RUN, 8: FOUR_PAIR_RUN}


class Combo(NamedTuple):
    kind: str
    length: int
    top: TlCard


def classify(cards: Sequence[TlCard]) -> Combo | None:
    """The combination formed by ``cards`` (sorted ascending), or None."""
    n = len(cards)
    if n == 0:
        return None
    top = cards[-1]
    low_rank, top_rank = cards[0] >> 2, top >> 2
    if low_rank == top_rank:
        kind = _SAME_RANK.get(n)
        return Combo(kind, n, top) if kind else None
    if top_rank > ACE_RANK:
        return None
    if n >= 3 and top_rank - low_rank == n - 1 and _ranks_step(cards, 1):
        return Combo(STRAIGHT, n, top)
    kind = _PAIR_RUNS.get(n)
    if kind and top_rank - low_rank == n // 2 - 1 and _ranks_step(cards, 2):
        return Combo(kind, n, top)
    return None


def _ranks_step(cards: Sequence[TlCard], width: int) -> bool:
    """Whether the ranks go up by one every ``width`` cards (a straight, a pair run)."""
    low = cards[0] >> 2
    return all(c >> 2 == low + i // width for i, c in enumerate(cards))


def chop_target(combo: Combo) -> str | None:
    """What a combination counts as when a bomb lands on it, or None if it cannot be chopped."""
    if combo.kind in BOMBS:
        return combo.kind
    if combo.top >> 2 == TWO_RANK and combo.kind in (SINGLE, PAIR):
        return TWO if combo.kind == SINGLE else PAIR_OF_TWOS
    return None


def chopping_bombs(table: Combo, rules: TienLenRules) -> list[str]:
    """The kinds of bomb that may chop the table (a bomb of the table's kind must be higher)."""
    target = chop_target(table)
    return [bomb for bomb in BOMBS if target is not None and target in rules.chop_targets(bomb)]


def beats(new: Combo, table: Combo, rules: TienLenRules) -> bool:
    if new.kind == table.kind and new.length == table.length:
        return new.top > table.top
    return new.kind in chopping_bombs(table, rules)


def is_chop(new: Combo, table: Combo) -> bool:
    """Whether ``new`` (which beats ``table``) is a chop: a bomb on a 2 or a bomb."""
    return new.kind in BOMBS and chop_target(table) is not None


def two_value(card: TlCard, penalties: Penalties) -> int:
    return penalties.red_two if is_red(card) else penalties.black_two


def chopped_value(cards: Play, combo: Combo, penalties: Penalties) -> int:
    """What the owner of a chopped combination pays (docs/rules.md 3.3)."""
    if combo.kind in BOMBS:
        return penalties.bomb(combo.kind)
    return sum(two_value(c, penalties) for c in cards)
