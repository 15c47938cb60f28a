"""How a tournament's prize pool is paid by finishing place. Pure.

The table of places (percent of the pool, by how many entered):

======================  =================
entrants                paid places (%)
======================  =================
2 or 3 (heads-up...)    100 (winner takes all)
4 or 5                  70 / 30
6 to 9                  65 / 35
10 to 17                50 / 30 / 20
18 or more              40 / 25 / 17 / 10 / 8
======================  =================

Exactly the pool is paid, never a chip more or less: each place gets its
percentage of the pool rounded down, and **the odd chips** (what the rounding
left, fewer than the number of paid places) **go to first place**. Players
who finish together (busted in the same hand) share the prizes of the places
they span equally; what does not divide goes one chip each to those of them
listed first (the caller lists them in its order: the one who had more chips
before the hand, then the earlier registration).
"""

from __future__ import annotations

from collections.abc import Sequence

#: (least entrants, the paid places' percentages), by least entrants, rising.
TABLE: tuple[tuple[int, tuple[int, ...]], ...] = (
    (2, (100,)),
    (4, (70, 30)),
    (6, (65, 35)),
    (10, (50, 30, 20)),
    (18, (40, 25, 17, 10, 8)),
)


class PayoutError(ValueError):
    """A pool or a field this module cannot pay (``percentages``, ``prizes``)."""


def percentages(entrants: int) -> tuple[int, ...]:
    """The paid places' percentages for a field of ``entrants`` (at least 2)."""
    if entrants < TABLE[0][0]:
        raise PayoutError("a tournament needs at least two entrants")
    found = TABLE[0][1]
    for least, shares in TABLE:
        if entrants >= least:
            found = shares
    return found


def prizes(pool: int, entrants: int) -> tuple[int, ...]:
    """Each paid place's chips, first place first: Σ = ``pool`` exactly."""
    if pool < 0:
        raise PayoutError("a pool is never negative")
    shares = [pool * percent // 100 for percent in percentages(entrants)]
    shares[0] += pool - sum(shares)  # the odd chips: to first place
    return tuple(shares)


def split_tied(prize_by_place: Sequence[int], groups: Sequence[Sequence[int]]) -> dict[int, int]:
    """What each player wins, from the prizes by place (``prizes``; places past
    them win nothing) and the finishing groups, best first: each group is the
    players (any ids) who finished together, in the order that gets the odd
    chips. A group spanning places k..k+n-1 shares their prizes equally.
    Σ of the result = Σ of the prizes paid to the places the groups cover."""
    won: dict[int, int] = {}
    place = 0
    for group in groups:
        if not group:
            raise PayoutError("a finishing group has at least one player")
        total = sum(prize_by_place[place : place + len(group)])
        share, odd = divmod(total, len(group))
        for index, player in enumerate(group):
            if player in won:
                raise PayoutError(f"player {player} finished twice")
            won[player] = share + (1 if index < odd else 0)
        place += len(group)
    return won


def place_of_groups(groups: Sequence[Sequence[int]]) -> dict[int, int]:
    """Each player's finishing place (1 = first): players who finished
    together share the best place of their group."""
    places: dict[int, int] = {}
    place = 1
    for group in groups:
        for player in group:
            places[player] = place
        place += len(group)
    return places
