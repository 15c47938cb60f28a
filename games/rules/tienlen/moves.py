"""The legal-move generator and the validator it must agree with (docs/rules.md 3.2-3.4).

``legal_plays`` lists every play a hand may make now: every set of cards
(as a sorted tuple) that forms a combination beating the table, or any
combination when leading. ``check_play`` is the validator the engine applies
to a submitted play; property tests hold the two to the same answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, product

from ..errors import RulesError
from .combos import Combo, Play, beats, chopping_bombs, classify
from .order import ACE_RANK, RANK_COUNT, TlCard, tl_str
from .rules import (
    FOUR_PAIR_RUN,
    PAIR,
    QUAD,
    SINGLE,
    STRAIGHT,
    THREE_PAIR_RUN,
    TRIPLE,
    TienLenRules,
)

Buckets = list[list[TlCard]]

_SAME_RANK_SIZE = {SINGLE: 1, PAIR: 2, TRIPLE: 3, QUAD: 4}
_PAIR_RUN_LENGTH = {THREE_PAIR_RUN: 3, FOUR_PAIR_RUN: 4}


def buckets_of(hand: Sequence[TlCard]) -> Buckets:
    """The hand's cards grouped by rank, each group ascending."""
    buckets: Buckets = [[] for _ in range(RANK_COUNT)]
    for card in sorted(hand):
        buckets[card >> 2].append(card)
    return buckets


def legal_plays(
    hand: Sequence[TlCard],
    table: Combo | None,
    rules: TienLenRules,
    must_include: TlCard | None = None,
) -> list[Play]:
    """Every legal play; ``table`` None means the player leads a round."""
    return [play for _kind, play in named_legal_plays(hand, table, rules, must_include)]


def named_legal_plays(
    hand: Sequence[TlCard],
    table: Combo | None,
    rules: TienLenRules,
    must_include: TlCard | None = None,
) -> list[tuple[str, Play]]:
    """Every legal play with its combination's kind, in ``legal_plays``'s order."""
    buckets = buckets_of(hand)
    if table is None:
        plays = [
            (kind, p)
            for kind in (*_SAME_RANK_SIZE, STRAIGHT, *_PAIR_RUN_LENGTH)
            for p in _plays_of_kind(buckets, kind, None, -1)
        ]
    else:
        plays = [
            (table.kind, p) for p in _plays_of_kind(buckets, table.kind, table.length, table.top)
        ]
        plays += [
            (bomb, p)
            for bomb in chopping_bombs(table, rules)
            if bomb != table.kind
            for p in _plays_of_kind(buckets, bomb, None, -1)
        ]
    if must_include is not None:
        plays = [(k, p) for k, p in plays if must_include in p]
    return plays


def _plays_of_kind(
    buckets: Buckets, kind: str, length: int | None, above: TlCard
) -> Iterator[Play]:
    """Plays of one kind (and straight length, when given) whose top card is above ``above``."""
    if kind in _SAME_RANK_SIZE:
        size = _SAME_RANK_SIZE[kind]
        for bucket in buckets[max(above >> 2, 0) :]:
            for play in combinations(bucket, size):
                if play[-1] > above:
                    yield play
    elif kind == STRAIGHT:
        yield from _runs(buckets, [[(c,) for c in b] for b in buckets], length, above)
    else:
        pairs: list[list[Play]] = [list(combinations(b, 2)) for b in buckets]
        yield from _runs(buckets, pairs, _PAIR_RUN_LENGTH[kind], above)


def _runs(
    buckets: Buckets, parts: list[list[Play]], length: int | None, above: TlCard
) -> Iterator[Play]:
    """Runs over consecutive ranks up to A taking one part per rank.

    ``length`` None: every run of three ranks or more (straights).
    """
    lowest_top = max(above >> 2, 2)
    for top_rank in range(lowest_top, ACE_RANK + 1):
        spans = range(3, top_rank + 2) if length is None else (length,)
        for span in spans:
            start = top_rank - span + 1
            if start < 0 or not all(parts[r] for r in range(start, top_rank + 1)):
                continue
            tops = [p for p in parts[top_rank] if p[-1] > above]
            for lower in product(*parts[start:top_rank]):
                for top in tops:
                    yield sum(lower, ()) + top


def check_play(
    hand: Sequence[TlCard],
    cards: Play,
    table: Combo | None,
    rules: TienLenRules,
    must_include: TlCard | None = None,
) -> Combo:
    """The combination of a legal play, or ``RulesError("illegal_move")`` saying why."""
    missing = [c for c in cards if c not in hand]
    if missing:
        names = ", ".join(tl_str(c) for c in missing)
        raise RulesError("illegal_move", f"Not in your hand: {names}")
    combo = classify(cards)
    if combo is None:
        raise RulesError("illegal_move", "These cards do not form a combination")
    if must_include is not None and must_include not in cards:
        raise RulesError("illegal_move", f"The first play must include {tl_str(must_include)}")
    if table is not None and not beats(combo, table, rules):
        raise RulesError("illegal_move", "This play does not beat the cards on the table")
    return combo
