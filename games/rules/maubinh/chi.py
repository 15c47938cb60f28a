"""Chi strength per ruleset (docs/rules.md 2.1 to 2.3, 2.5).

A chi's strength is one comparable int built on :mod:`games.rules.hand5`:
five-card and three-card chi share the scale (category first, then the
tie-break ranks both have), so ``chi_strength`` also decides binh lủng between
chi 2 and chi 3. ``maubinh_com`` layers its changes on top: four aces becomes a
category above straight flush, and straight flushes order 10-A > A-5 > others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..cards import Card, ensure_distinct, parse_cards
from ..errors import RulesError
from ..hand5 import ACE, CATEGORY_NAMES, CATEGORY_SHIFT, Category, pack, strength3, strength5
from .rules import Ruleset

FOUR_ACES = 9
ROYAL_TOP = 14
WHEEL_TOP = 13
_WHEEL_FIVE = 3
_RANK_BITS = (1 << CATEGORY_SHIFT) - 1

HAND_NAMES: dict[int, str] = {int(c): name for c, name in CATEGORY_NAMES.items()}
HAND_NAMES[FOUR_ACES] = "four_aces"


def category(strength: int) -> int:
    return strength >> CATEGORY_SHIFT


def top_rank(strength: int) -> int:
    """The first tie-break rank (0 = 2 ... 12 = A; 13/14 for the re-ordered straight flushes)."""
    return ((strength & _RANK_BITS) >> 16) - 1


def adjust_five(strength: int, rules: Ruleset) -> int:
    """Apply the ruleset's layer to a ``hand5.strength5`` value."""
    cat = category(strength)
    if rules.four_aces_top and cat == Category.QUADS and top_rank(strength) == ACE:
        return (FOUR_ACES << CATEGORY_SHIFT) | (strength & _RANK_BITS)
    if rules.straight_flush_order == "royal_wheel_high" and cat == Category.STRAIGHT_FLUSH:
        top = top_rank(strength)
        remapped = {ACE: ROYAL_TOP, _WHEEL_FIVE: WHEEL_TOP}.get(top, top)
        return pack(Category.STRAIGHT_FLUSH, (remapped,))
    return strength


def chi_strength(cards: Sequence[Card], rules: Ruleset) -> int:
    if len(cards) == 5:
        return adjust_five(strength5(cards), rules)
    if len(cards) == 3:
        return strength3(cards)
    raise RulesError("wrong_card_count", f"A chi has 5 or 3 cards, got {len(cards)}")


def tie_break_ranks(strength: int) -> tuple[int, ...]:
    """The tie-break ranks of a strength, high to low (unused slots dropped)."""
    nibbles = [(strength >> shift) & 15 for shift in range(16, -4, -4)]
    return tuple(n - 1 for n in nibbles if n)


def compare_chi(a: Sequence[Card], b: Sequence[Card], rules: Ruleset) -> int:
    """1 if chi ``a`` is stronger than ``b``, 0 if equal, -1 if weaker.

    Across sizes (docs/rules.md 2.3): category first, then only the tie-break ranks
    both hands have, so ``7s 7d Ah Kc Qd`` and ``7h 7c As`` are equal.
    """
    sa, sb = chi_strength(a, rules), chi_strength(b, rules)
    if len(a) != len(b) and category(sa) == category(sb):
        ra, rb = tie_break_ranks(sa), tie_break_ranks(sb)
        common = min(len(ra), len(rb))
        ra, rb = ra[:common], rb[:common]
        return (ra > rb) - (ra < rb)
    return (sa > sb) - (sa < sb)


def hand_name(strength: int) -> str:
    return HAND_NAMES[category(strength)]


def is_four_aces(strength: int) -> bool:
    cat = category(strength)
    return cat == FOUR_ACES or (cat == Category.QUADS and top_rank(strength) == ACE)


def chi_bonus(rules: Ruleset, chi: int, strength: int) -> int:
    """Units a chi pays when it wins with this hand (docs/rules.md 2.5): 1 unless a
    bonus applies."""
    cat = category(strength)
    if chi == 1 and is_four_aces(strength):
        return rules.bonus_four_aces_chi1
    if chi in (1, 2) and cat in (Category.QUADS, FOUR_ACES):
        return rules.bonus_quads_chi1 if chi == 1 else rules.bonus_quads_chi2
    if chi in (1, 2) and cat == Category.STRAIGHT_FLUSH:
        return _straight_flush_bonus(rules, chi, top_rank(strength))
    if chi == 2 and cat == Category.FULL_HOUSE:
        return rules.bonus_full_house_chi2
    if chi == 3 and cat == Category.TRIPS:
        return rules.bonus_trips_chi3
    return 1


def _straight_flush_bonus(rules: Ruleset, chi: int, top: int) -> int:
    if top in (ACE, ROYAL_TOP):
        return (rules.bonus_royal_straight_flush_chi1, rules.bonus_royal_straight_flush_chi2)[
            chi - 1
        ]
    if top in (_WHEEL_FIVE, WHEEL_TOP):
        return (rules.bonus_wheel_straight_flush_chi1, rules.bonus_wheel_straight_flush_chi2)[
            chi - 1
        ]
    return (rules.bonus_straight_flush_chi1, rules.bonus_straight_flush_chi2)[chi - 1]


@dataclass(frozen=True)
class Arrangement:
    """A player's three chi: 5, 5 and 3 cards."""

    chi1: tuple[Card, ...]
    chi2: tuple[Card, ...]
    chi3: tuple[Card, ...]

    @property
    def chis(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        return (self.chi1, self.chi2, self.chi3)

    def cards(self) -> tuple[Card, ...]:
        return self.chi1 + self.chi2 + self.chi3

    def strengths(self, rules: Ruleset) -> tuple[int, int, int]:
        return (
            chi_strength(self.chi1, rules),
            chi_strength(self.chi2, rules),
            chi_strength(self.chi3, rules),
        )

    def is_lung(self, rules: Ruleset) -> bool:
        """Binh lủng: a later chi strictly stronger than an earlier one (docs/rules.md 2.1)."""
        s1, s2, s3 = self.strengths(rules)
        return s2 > s1 or s3 > s2

    @classmethod
    def parse(cls, data: object) -> Arrangement:
        """From ``{"chi1": [5], "chi2": [5], "chi3": [3]}`` in text form."""
        if not isinstance(data, dict):
            raise RulesError("bad_arrangement", "An arrangement is an object with chi1, chi2, chi3")
        arrangement = cls(
            tuple(parse_cards(data.get("chi1"), count=5, field="chi1")),
            tuple(parse_cards(data.get("chi2"), count=5, field="chi2")),
            tuple(parse_cards(data.get("chi3"), count=3, field="chi3")),
        )
        ensure_distinct(arrangement.chis)
        return arrangement
