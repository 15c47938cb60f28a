"""Thối grouping (docs/rules.md 3.5, 3.7) checked against a brute force, and payouts as data."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.tienlen.combos import Play, classify, two_value
from games.rules.tienlen.order import TWO_RANK, TlCard, parse_tl, tl_strs
from games.rules.tienlen.rules import BOMBS, INSTANT_TYPES, Penalties, ruleset
from games.rules.tienlen.scoring import leftover

PENALTIES = Penalties()
# A house rule where tứ quý outprices four 2s and 3 đôi thông is worth less than its cards.
HOUSE_PENALTIES = Penalties(three_pair_run=2, quad=20, four_pair_run=9)


def best_total_by_brute_force(hand: Play, penalties: Penalties, per_card: int) -> int:
    """The most any grouping of ``hand`` into disjoint bombs, 2s and ordinary cards pays."""
    bombs = [
        (frozenset(cards), penalties.bomb(combo.kind))
        for size in (4, 6, 8)
        for cards in combinations(hand, size)
        if (combo := classify(cards)) is not None and combo.kind in BOMBS
    ]

    def loose(cards: frozenset[TlCard]) -> int:
        return sum(two_value(c, penalties) if c >> 2 == TWO_RANK else per_card for c in cards)

    def best(start: int, free: frozenset[TlCard]) -> int:
        top = loose(free)
        for i in range(start, len(bombs)):
            cards, units = bombs[i]
            if cards <= free:
                top = max(top, units + best(i + 1, free - cards))
        return top

    return best(0, frozenset(hand))


@settings(max_examples=400, deadline=None)
@given(
    low=st.integers(0, 6),
    picks=st.lists(st.integers(0, 27), min_size=1, max_size=13, unique=True),
    four_twos=st.booleans(),
    cong=st.booleans(),
    penalties=st.sampled_from([PENALTIES, HOUSE_PENALTIES]),
)
def test_leftover_pays_the_most_of_any_grouping(
    low: int, picks: list[int], four_twos: bool, cong: bool, penalties: Penalties
) -> None:
    # given a leftover hand from six consecutive ranks and the 2s (so bombs abound)
    deck = [c for c in range(52) if low <= c >> 2 < low + 6 or c >> 2 == TWO_RANK]
    chosen = {deck[i] for i in picks[: 9 if four_twos else 13]}
    if four_twos:
        chosen |= set(deck[24:])  # the deck ends with the four 2s
    hand = tuple(sorted(chosen))
    per_card = 0 if cong else 1
    # when it is grouped for paying (by the preset's prices or a house rule's)
    result = leftover(hand, penalties, per_card)
    # then the items and ordinary cards split the hand exactly
    grouped = [c for item in result.items for c in item.cards]
    assert len(grouped) == len(set(grouped))
    assert set(grouped) <= set(hand)
    assert result.ordinary == len(hand) - len(grouped)
    # and the total is the largest any grouping pays
    total = sum(item.units for item in result.items) + per_card * result.ordinary
    assert total == best_total_by_brute_force(hand, penalties, per_card)


def test_a_quad_of_twos_pays_as_a_quad_only_when_a_ruleset_prices_the_quad_higher() -> None:
    twos = parse_tl(["2s", "2c", "2d", "2h"])
    default = leftover(twos, PENALTIES, 1)
    assert [(i.name, i.units) for i in default.items] == [
        ("black_two", 3),
        ("black_two", 3),
        ("red_two", 6),
        ("red_two", 6),
    ]
    house = leftover(twos, Penalties(quad=20), 1)
    assert [(i.name, tl_strs(i.cards), i.units) for i in house.items] == [
        ("quad", ["2s", "2c", "2d", "2h"], 20)
    ]
    assert house.ordinary == 0


def test_toi_trang_payouts_flat_and_tiered() -> None:
    # docs/rules.md 3.5: flat 26 by default; tiered 9, 8, 7, 6, 5, 4, 3, 2 from sảnh rồng down
    flat = ruleset("vipgame", {})
    tiered = ruleset("vipgame", {"toi_trang_payout": "tiered"})
    assert [flat.instant_payout(t) for t in INSTANT_TYPES] == [26] * 8
    assert [tiered.instant_payout(t) for t in INSTANT_TYPES] == [9, 8, 7, 6, 5, 4, 3, 2]
