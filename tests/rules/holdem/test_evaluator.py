"""The hand evaluator (docs/rules.md 4): exact ranks, categories and best five cards."""

from __future__ import annotations

import array
import hashlib
import itertools
import json
import random
import sys
from pathlib import Path

import pytest
from treys import Card as TreysCard

from games.rules.cards import card_str, parse_cards
from games.rules.errors import RulesError
from games.rules.hand5 import category_of as hand5_category
from games.rules.hand5 import strength5
from games.rules.holdem.evaluator import DISTINCT_HANDS, category_of, evaluate, rank7, rank_of

from .support import TREYS

DIGEST = json.loads((Path(__file__).parent / "cases.json").read_text())["evaluator"]
TREYS_CARDS = [TreysCard.new(card_str(c)) for c in range(52)]


def treys_rank(cards: list[int]) -> int:
    t = [TREYS_CARDS[c] for c in cards]
    return DISTINCT_HANDS + 1 - TREYS.evaluate(t[:2], t[2:])


def test_all_five_card_hands_match_the_stored_ranking() -> None:
    # given every one of the 2,598,960 five-card hands
    ranks = array.array("H", (rank_of(c) for c in itertools.combinations(range(52), 5)))
    # when their ranks are hashed as big-endian 16-bit integers
    if sys.byteorder == "little":
        ranks.byteswap()
    # then the digest is the one bench/holdem.py derives from treys
    assert len(ranks) == 2_598_960
    assert hashlib.sha256(ranks.tobytes()).hexdigest() == DIGEST["five_card_ranking_sha256"]


@pytest.mark.parametrize("size", [5, 6, 7])
def test_random_hands_match_treys(size: int) -> None:
    # given 5,000 random hands of this size
    rng = random.Random(size)
    hands = [rng.sample(range(52), size) for _ in range(5000)]
    # then our rank is treys' rank turned round (higher wins)
    assert [rank_of(h) for h in hands] == [treys_rank(h) for h in hands]


def test_seven_card_fast_path_equals_the_general_one() -> None:
    rng = random.Random(77)
    hands = [rng.sample(range(52), 7) for _ in range(5000)]
    assert [rank7(h) for h in hands] == [rank_of(h) for h in hands]


def test_ordering_and_categories_agree_with_the_shared_five_card_ranking() -> None:
    # given random pairs of five-card hands
    rng = random.Random(5)
    for _ in range(20_000):
        a, b = rng.sample(range(52), 5), rng.sample(range(52), 5)
        # then hand5 (shared with Mậu Binh) orders them as the evaluator does
        assert (rank_of(a) > rank_of(b)) == (strength5(a) > strength5(b))
        assert (rank_of(a) == rank_of(b)) == (strength5(a) == strength5(b))
        assert category_of(rank_of(a)) == hand5_category(strength5(a))


def test_best_five_reach_the_hand_rank() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        cards = rng.sample(range(52), 7)
        value = evaluate(cards)
        assert len(value.best) == 5
        assert set(value.best) <= set(cards)
        assert rank_of(value.best) == value.rank


@pytest.mark.parametrize(
    ("cards", "category", "best"),
    [
        (["2h", "2d", "2c", "Ks", "Kd", "Kh", "9c"], "full_house", ["Kh", "Kd", "Ks", "2h", "2d"]),
        (
            ["5s", "6s", "7s", "8s", "9s", "Ts", "Ah"],
            "straight_flush",
            ["Ts", "9s", "8s", "7s", "6s"],
        ),
        (["Ac", "Kd", "9h", "7s", "5c", "3d", "2h"], "high_card", ["Ac", "Kd", "9h", "7s", "5c"]),
        (["Ac", "Ad", "Ah", "7s", "7c", "7d", "2h"], "full_house", ["Ah", "Ad", "Ac", "7c", "7s"]),
    ],
)
def test_known_hands(cards: list[str], category: str, best: list[str]) -> None:
    value = evaluate(parse_cards(cards))
    assert value.category_name == category
    assert [card_str(c) for c in value.best] == best


def test_refuses_repeated_cards() -> None:
    with pytest.raises(RulesError) as refused:
        evaluate([1, 1, 2, 3, 4])
    assert refused.value.code == "duplicate_card"
