"""The auto-arranger's building blocks: split tables, chi classes, instant flags, hints."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.build_maubinh_tables import render
from games.rules.cards import parse_cards
from games.rules.maubinh import win_tables
from games.rules.maubinh.arranger import arrange, arranger_for, split_arrangement, stored_counts
from games.rules.maubinh.chi import chi_strength, hand_name
from games.rules.maubinh.classes import class_table, evaluate_hand
from games.rules.maubinh.instant import SPLIT_TYPES, qualifying_types
from games.rules.maubinh.rules import PRESETS
from games.rules.maubinh.splits import (
    FIVES,
    SPLIT_CHI1,
    SPLIT_CHI2,
    SPLIT_CHI3,
    SPLIT_COUNT,
    THREES,
    qualifying_splits,
)
from games.rules.maubinh.win_tables import TABLES

presets = st.sampled_from(sorted(PRESETS))
# Two suits and few ranks make straights, flushes and repeated ranks common.
crowded_hands = st.lists(
    st.sampled_from([r * 4 + s for r in range(13) for s in (0, 3)]),
    min_size=13,
    max_size=13,
    unique=True,
)
any_hands = st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True)
hands = st.one_of(crowded_hands, any_hands)


def test_split_tables_cover_every_split_once() -> None:
    assert (len(FIVES), len(THREES), SPLIT_COUNT) == (1287, 286, 72072)
    seen = set()
    for s in range(0, SPLIT_COUNT, 97):
        positions = [*FIVES[SPLIT_CHI1[s]], *FIVES[SPLIT_CHI2[s]], *THREES[SPLIT_CHI3[s]]]
        assert sorted(positions) == list(range(13))
        seen.add((int(SPLIT_CHI1[s]), int(SPLIT_CHI2[s])))
    assert len(seen) == len(range(0, SPLIT_COUNT, 97))


def test_class_counts() -> None:
    table = class_table(PRESETS["maubinh_com"])
    assert (table.five_count, table.three_count) == (7462, 455)


@settings(max_examples=60, deadline=None)
@given(presets, hands)
def test_vectorised_classes_match_chi_strength(preset: str, cards: list[int]) -> None:
    rules = PRESETS[preset]
    table = class_table(rules)
    hand = evaluate_hand(cards, table)
    for i in range(0, len(FIVES), 37):
        subset = [cards[p] for p in FIVES[i]]
        assert table.five_strength[hand.five[i]] == chi_strength(subset, rules)
    for i in range(0, len(THREES), 11):
        subset = [cards[p] for p in THREES[i]]
        assert table.three_strength[hand.three[i]] == chi_strength(subset, rules)


@settings(max_examples=80, deadline=None)
@given(crowded_hands)
def test_instant_detection_matches_a_scan_of_every_split(cards: list[int]) -> None:
    found = qualifying_types(cards)
    for kind in SPLIT_TYPES:
        assert (kind in found) == bool(qualifying_splits(cards, kind).any())


def test_hints_are_distinct_best_first_and_deterministic() -> None:
    cards = parse_cards(
        ["As", "Ad", "Ac", "Ah", "Ks", "Kd", "Qs", "Qd", "Js", "9c", "8c", "7c", "2d"]
    )
    result = arrange(PRESETS["vipgame"], cards)
    assert arrange(PRESETS["vipgame"], cards) == result
    units = [h.expected_units for h in result.hints]
    assert units == sorted(units, reverse=True)
    assert len({h.arrangement for h in result.hints}) == 3
    assert result.best == result.hints[0]
    assert result.best.arrangement.chi1[:4] == tuple(parse_cards(["Ah", "Ad", "Ac", "As"]))


def test_three_straights_are_shown_as_a_qualifying_split() -> None:
    cards = parse_cards(
        ["2s", "3d", "4c", "5h", "6s", "5d", "6c", "7h", "8s", "9d", "Tc", "Jh", "Qd"]
    )
    result = arrange(PRESETS["vipgame"], cards)
    assert result.instant == "three_straights"
    shown = result.instant_arrangement
    assert shown is not None
    rules = PRESETS["vipgame"]
    assert [hand_name(chi_strength(c, rules)) for c in (shown.chi1, shown.chi2)] == [
        "straight",
        "straight",
    ]
    low, mid, high = sorted(c >> 2 for c in shown.chi3)
    assert (mid, high) == (low + 1, low + 2)


def test_greedy_takes_the_strongest_chi_1() -> None:
    rules = PRESETS["vipgame"]
    cards = parse_cards(
        ["As", "Ad", "Ac", "Ah", "Ks", "Kd", "Qs", "Qd", "Js", "9c", "8c", "7c", "2d"]
    )
    greedy = split_arrangement(cards, arranger_for(rules).greedy_split(cards))
    assert greedy.chi1 == tuple(parse_cards(["Ah", "Ad", "Ac", "As", "Ks"]))


def test_committed_tables_are_the_generator_output_for_every_preset() -> None:
    # given the committed win-probability tables
    path = Path(win_tables.__file__)
    text = path.read_text(encoding="utf-8")
    command = text.split("Command: ", 1)[1].split("\n", 1)[0]
    # then the generator renders exactly that file, for every preset
    assert render(TABLES, command) == text
    assert set(TABLES) == set(PRESETS)
    for preset, rules in PRESETS.items():
        counts = stored_counts(preset)
        table = class_table(rules)
        hands = 4 * int(str(TABLES[preset]["deals"]))
        for chi, strengths in ((1, table.five_strength), (2, table.five_strength)):
            stored = counts.chi1 if chi == 1 else counts.chi2
            assert sum(stored.values()) == hands
            assert set(stored) <= {int(s) for s in strengths}
        assert sum(counts.chi3.values()) == hands
        assert set(counts.chi3) <= {int(s) for s in table.three_strength}
        assert 0.0 < counts.sweep_rate < 1.0
