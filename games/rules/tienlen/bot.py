"""The bot policy: a pure function of one player's view (docs/rules.md 3; issue 4 item 5).

The bot splits its hand into a plan of combinations that needs few turns
(straights, pair runs, triples, pairs, singles; 2s kept apart) and then:
finishes when one play empties its hand; chops whenever it can; leads the
plan's weakest group, long ones first; follows only with whole plan groups;
spends 2s to take the lead near the end, or when an opponent is close to
finishing, so it is not caught holding them (thối).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..errors import RulesError
from ..game import JSON
from .combos import Combo, Play, classify, is_chop
from .moves import legal_plays
from .order import ACE_RANK, TWO_RANK, TlCard, parse_tl, tl_strs
from .rules import BOMBS, rules_from_dict

Shape = tuple[int, ...]
"""A group of the plan by ranks: sorted ranks with repeats (a pair of 5s is (2, 2))."""

URGENT_CARDS = 2  # an opponent this close to finishing is stopped with any play
LATE_CARDS = 4  # 2s are spent once someone holds this few cards...
LATE_GROUPS = 3  # ...or the bot's plan is down to this few groups


def choose_action(view: Mapping[str, Any], seed: int) -> JSON:
    """A legal action for the player to act, from that player's view only."""
    hand, table, plays = _position(view)
    if not plays:
        return {"type": "pass"}
    counts = view["card_counts"]
    fewest = min(c for i, c in enumerate(counts) if i != view["you"])
    choice = _choose(hand, table, plays, fewest, random.Random(seed))
    if choice is None:
        return {"type": "pass"}
    return {"type": "play", "cards": tl_strs(choice)}


def random_action(view: Mapping[str, Any], seed: int) -> JSON:
    """The baseline opponent: a uniformly random legal action (passing counts as one)."""
    _, table, plays = _position(view)
    pick = random.Random(seed).randrange(len(plays) + (table is not None))
    if pick == len(plays):
        return {"type": "pass"}
    return {"type": "play", "cards": tl_strs(plays[pick])}


def _position(view: Mapping[str, Any]) -> tuple[Play, Combo | None, list[Play]]:
    """The player's hand, the combination to beat and every legal play, from the view."""
    # Hints are set only for the viewer whose turn it is.
    if view.get("you") is None or view.get("hints") is None or view.get("finished"):
        raise RulesError("not_your_turn", "The bot acts only on its own turn")
    hand = parse_tl(view["hand"])
    table = classify(parse_tl(view["table"]["cards"])) if view["table"] else None
    must = parse_tl([view["must_include"]])[0] if view["must_include"] else None
    return hand, table, legal_plays(hand, table, rules_from_dict(view["rules"]), must)


def _choose(
    hand: Play, table: Combo | None, plays: list[Play], fewest: int, rng: random.Random
) -> Play | None:
    finishing = [p for p in plays if len(p) == len(hand)]
    if finishing:
        return finishing[0]
    groups = plan(hand)
    if table is None:
        return _lead(plays, groups, fewest, rng)
    return _follow(table, plays, groups, fewest, len(hand))


def plan(hand: Sequence[TlCard]) -> list[Shape]:
    """Split the hand into groups needing few turns; 2s are kept as their own groups."""
    counts = [0] * (TWO_RANK + 1)
    for card in hand:
        counts[card >> 2] += 1
    twos = counts[TWO_RANK]
    _, groups = _best_plan(tuple(counts[:TWO_RANK]))
    two_groups: list[Shape] = [(TWO_RANK,) * twos] if twos == 2 else [(TWO_RANK,)] * twos
    return [*groups, *two_groups]


@lru_cache(maxsize=1 << 16)
def _best_plan(counts: tuple[int, ...]) -> tuple[float, tuple[Shape, ...]]:
    """Fewest groups for the rank counts (3..A); lone low cards cost a little extra."""
    low = next((r for r, c in enumerate(counts) if c), None)
    if low is None:
        return 0.0, ()
    best: tuple[float, tuple[Shape, ...]] | None = None
    for shape in _shapes_from(counts, low):
        rest = list(counts)
        for r in shape:
            rest[r] -= 1
        cost, groups = _best_plan(tuple(rest))
        cost += 1.0 + (0.05 * (ACE_RANK - low) if len(shape) == 1 else 0.0)
        if best is None or cost < best[0]:
            best = (cost, (shape, *groups))
    assert best is not None
    return best


def _shapes_from(counts: tuple[int, ...], low: int) -> list[Shape]:
    """Every group that uses the lowest rank held."""
    shapes: list[Shape] = [(low,) * size for size in range(1, counts[low] + 1)]
    top = low
    while top + 1 <= ACE_RANK and counts[top + 1]:
        top += 1
        if top - low >= 2:
            shapes.append(tuple(range(low, top + 1)))
    for width in (3, 4):
        ranks = range(low, low + width)
        if low + width - 1 <= ACE_RANK and all(counts[r] >= 2 for r in ranks):
            shapes.append(tuple(r for r in ranks for _ in (0, 1)))
    return shapes


def _shape(play: Play) -> Shape:
    return tuple(c >> 2 for c in play)


def _is_control(shape: Shape) -> bool:
    """2s and bombs: kept to win a lead or to chop."""
    combo = classify(_cards_of(shape))
    return shape[-1] == TWO_RANK or (combo is not None and combo.kind in BOMBS)


def _cards_of(shape: Shape) -> list[TlCard]:
    """Distinct cards with the given ranks (suits in order), to classify a shape."""
    cards: list[TlCard] = []
    for r in shape:
        cards.append(r * 4 + sum(1 for c in cards if c >> 2 == r))
    return cards


def _lead(plays: list[Play], groups: list[Shape], fewest: int, rng: random.Random) -> Play:
    by_shape = _plays_by_shape(plays)
    planned = [g for g in groups if g in by_shape]
    if not planned:
        return min(plays, key=lambda p: (p[-1], -len(p)))
    ordinary = [g for g in planned if not _is_control(g)]
    if len(groups) == 2 and len(ordinary) < len(planned):
        return by_shape[next(g for g in planned if _is_control(g))][0]
    pool = ordinary or planned
    if fewest <= 1 and any(len(g) > 1 for g in pool):
        pool = [g for g in pool if len(g) > 1]
    elif fewest <= 1:
        return by_shape[max(pool)][-1]
    best = min(_lead_score(g) for g in pool)
    shape = rng.choice([g for g in pool if _lead_score(g) == best])
    return by_shape[shape][0]


def _lead_score(shape: Shape) -> int:
    """Lower leads first: low groups, and long groups before short ones."""
    return shape[-1] - 2 * (len(shape) - 1)


def _follow(
    table: Combo, plays: list[Play], groups: list[Shape], fewest: int, hand_size: int
) -> Play | None:
    chops = [p for p in plays if (c := classify(p)) is not None and is_chop(c, table)]
    if chops:
        return min(chops)
    by_shape = _plays_by_shape(plays)
    fitting = [g for g in groups if g in by_shape and not _is_control(g)]
    if fitting:
        return min((by_shape[g][0] for g in fitting), key=lambda p: p[-1])
    spend = min(fewest, hand_size) <= LATE_CARDS or len(groups) <= LATE_GROUPS
    twos = [g for g in groups if g in by_shape and g[-1] == TWO_RANK]
    if spend and twos:
        return min(by_shape[g][0] for g in twos)
    if fewest <= URGENT_CARDS:
        return min(plays, key=lambda p: p[-1])
    return None


def _plays_by_shape(plays: list[Play]) -> dict[Shape, list[Play]]:
    """Legal plays grouped by their ranks, lowest cards first."""
    by_shape: dict[Shape, list[Play]] = {}
    for p in sorted(plays, key=lambda p: p[-1]):
        by_shape.setdefault(_shape(p), []).append(p)
    return by_shape


def think(view: Mapping[str, Any], player: int) -> float:
    """How long ``player``'s decision takes, in ordinary decisions (1.0), read
    from the spectators' view only, so a bot's pause tells nothing its cards
    would: leading a new round (the whole hand to plan at the first lead) takes
    longer than following, answering a 2 (to chop or not) longer still, and an
    opponent close to going out makes every decision weigh more; with a card
    or two left there is little to think over."""
    counts = view["card_counts"]
    mine = counts[player]
    table = view["table"]
    if table is None:
        weight = 1.5 if mine == 13 else 1.2
    elif any(card.startswith("2") for card in table["cards"]):
        weight = 1.4
    else:
        weight = 0.8
    if any(c <= 2 for i, c in enumerate(counts) if i != player and not view["left"][i]):
        weight *= 1.3
    if mine <= 2:
        weight *= 0.6
    return weight
