"""Deterministic seeds and chosen decks for the table services (games/seeds.py).

``SeedSource`` replaces the OS CSPRNG with a counter hashed under a label, so a
test's server seeds and drawn client seeds are the same on every run.
``Dealer`` deals chosen cards: ``stack(...)`` fixes the next deal's deck; a
deal with nothing stacked is the real, provably fair one.

A stacked hand's recorded seeds do not reproduce its cards, so a verifier
shown such a hand says it was not fair (tests/services/test_stacked_deck.py),
and the fairness and browser tests may not stack (tests/conftest.py refuses
the ``dealer`` fixture in tests/**/*fair* and tests/e2e). Only tests install
these: the project's packages never import ``tests`` (checked in
test_stacked_deck.py), and no setting selects another deal.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.rules import fairness
from games.rules.cards import Card, parse_card

# Four ordinary hands, dealt in this order: no tới trắng for 2 to 4 players, no
# Mậu Binh instant win under any preset (tests/services/test_stacked_deck.py).
ORDINARY = (
    "2s 2c 4c 6s 6h 8d 9h Jc Jd Qs Qc Ks Ad",
    "2d 3s 3h 4s 6d 7s 7h 8c Td Th Js Jh Ac",
    "2h 3d 4h 5h 6c 7d 9s 9c Ts Tc Kd As Ah",
    "3c 4d 5s 5c 5d 7c 8s 8h 9d Qd Qh Kc Kh",
)


def cards(*groups: str) -> list[Card]:
    """Cards from space-separated groups ("As Kd", "2c")."""
    return [parse_card(text) for group in groups for text in group.split()]


ORDINARY_DECK = cards(*ORDINARY)


def stacked_deck(*groups: str) -> list[Card]:
    """A deck with these cards on top, in order, then the rest of ORDINARY_DECK."""
    top = cards(*groups)
    if len(set(top)) != len(top):
        raise ValueError(f"a card is stacked twice: {' '.join(groups)}")
    return top + [c for c in ORDINARY_DECK if c not in top]


@dataclass
class SeedSource:
    """Stands in for ``games.seeds.token``: bytes from SHA-256 of a label and a counter."""

    label: str
    counter: itertools.count[int] = field(default_factory=itertools.count)

    def token(self, nbytes: int) -> bytes:
        out = b""
        while len(out) < nbytes:
            out += hashlib.sha256(f"{self.label}:{next(self.counter)}".encode()).digest()
        return out[:nbytes]


@dataclass
class Dealer:
    """Stands in for ``games.seeds.deal``: each stacked deck is dealt once, in order."""

    stacked: list[tuple[list[Card], int]] = field(default_factory=list)
    dealt: int = 0

    def stack(self, *groups: str, first: int = 0) -> None:
        """The next deal's deck: these groups of cards from the top (the engines
        deal in blocks: Tiến Lên and Mậu Binh 13 cards a player, Hold'em two,
        then the board), then the rest of ORDINARY_DECK. ``first`` is the fair
        stream's extra draw: Tiến Lên's first leader, Hold'em's first button."""
        self.stacked.append((stacked_deck(*groups), first))

    def deal(
        self, server_seed: bytes, hand_id: str, client_seeds: Sequence[str], bounds: Sequence[int]
    ) -> tuple[list[Card], list[int]]:
        if not self.stacked:
            return fairness.fair_draws(server_seed, hand_id, client_seeds, bounds)
        deck, first = self.stacked.pop(0)
        assert all(0 <= first < bound for bound in bounds), (first, bounds)
        self.dealt += 1
        return deck, [first for _ in bounds]


def ends_at_the_deal(deck: Sequence[Card], players: int) -> bool:
    """A Tiến Lên deal with a tới trắng: the hand ends at once."""
    from games.rules.tienlen.engine import ENGINE

    state, _ = ENGINE.start(ENGINE.ruleset("vipgame", {}), deck, players, {"random_first": 0})
    return bool(ENGINE.status(state).finished)


def seeds_for_a_hand_in_play(server_seed: str, hand_id: str, names: Sequence[str]) -> list[str]:
    """Client seeds (one per player, in order) with which the real, fair deal
    of ``hand_id`` leaves the hand in play (no tới trắng), for the tests that
    must check unstacked draws: chosen before the deal, as a player who knew
    the server seed could; nothing is dealt twice."""
    seed = bytes.fromhex(server_seed)
    for attempt in itertools.count():
        chosen = [f"{name}-{attempt}" for name in names]
        if not ends_at_the_deal(fairness.deal_deck(seed, hand_id, chosen), len(names)):
            return chosen
    raise AssertionError("unreachable")
