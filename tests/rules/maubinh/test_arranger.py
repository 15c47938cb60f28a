"""The auto-arranger's building blocks: split tables, chi classes, instant flags, hints."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.arrange import hint_swap
from bench.build_maubinh_tables import average, build, exploitability, write
from games.rules.cards import parse_cards
from games.rules.maubinh import classes
from games.rules.maubinh.arranger import (
    Arranger,
    arrange,
    arranger_for,
    four_aces_classes,
    split_arrangement,
)
from games.rules.maubinh.chi import Arrangement, chi_strength, hand_name, is_four_aces
from games.rules.maubinh.classes import (
    CLASS_ARRAYS,
    ClassTable,
    build_class_table,
    class_table,
    evaluate_hand,
)
from games.rules.maubinh.ev import Chis, table_net
from games.rules.maubinh.instant import SPLIT_TYPES, qualifying_types
from games.rules.maubinh.rules import INSTANT_TYPES, PRESETS, Ruleset, make_ruleset
from games.rules.maubinh.splits import (
    FIVES,
    SPLIT_CHI1,
    SPLIT_CHI2,
    SPLIT_CHI3,
    SPLIT_COUNT,
    THREES,
    qualifying_splits,
)
from games.rules.maubinh.tables import preset_data

FLUSH_OR_PAIRS = ["Qc", "Qs", "Td", "5s", "3h", "Kc", "9c", "9s", "7s", "2d", "Ac", "8h", "8c"]
ACES_KINGS = ["As", "Ac", "Ad", "Ah", "Ks", "Kc", "Kd", "Kh", "2s", "3c", "4d", "5h", "6s"]
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


def test_the_issues_hand_keeps_its_chi_1_flush_in_vipgame() -> None:
    # given the hand issue 17 names: the old arranger broke up the chi-1 flush to put
    # a pair in chi 3 (an exhaustive search at 300 tables rates the flush split 4.3
    # units a table better; against today's opponents the split picked here is worth
    # that flush split within 0.01 units, se 0.01, on 2,000 exhaustive tables)
    cards = parse_cards(FLUSH_OR_PAIRS)
    # when arranged under vipgame
    best = arrange(PRESETS["vipgame"], cards).best.arrangement
    # then chi 1 is the club flush
    assert set(best.chi1) == set(parse_cards(["Ac", "Kc", "Qc", "9c", "8c"]))


def test_greedy_takes_the_strongest_chi_1() -> None:
    rules = PRESETS["vipgame"]
    cards = parse_cards(
        ["As", "Ad", "Ac", "Ah", "Ks", "Kd", "Qs", "Qd", "Js", "9c", "8c", "7c", "2d"]
    )
    greedy = split_arrangement(cards, arranger_for(rules).greedy_split(cards))
    assert greedy.chi1 == tuple(parse_cards(["Ah", "Ad", "Ac", "As", "Ks"]))


def test_package_data_holds_each_presets_class_table_and_a_valid_sample() -> None:
    # given the committed package data, read through importlib.resources
    for preset, rules in PRESETS.items():
        data = preset_data(preset)
        assert data is not None
        assert str(data["meta"]).startswith("python -m bench.build_maubinh_tables ")
        # then its class table is the one the ruleset builds
        built = build_class_table(rules)
        stored = class_table(rules)
        for name in CLASS_ARRAYS:
            assert np.array_equal(getattr(stored, name), getattr(built, name)), name
        # and its sample is thousands of valid arranged hands of 13 distinct cards
        cards = data["opp_cards"].astype(np.int64)
        assert cards.shape[0] >= 4000
        assert cards.shape[1] == 13
        assert (np.sort(cards, axis=1)[:, 1:] > np.sort(cards, axis=1)[:, :-1]).all()
        for row in cards[:: len(cards) // 50]:
            arrangement = Arrangement(tuple(row[:5]), tuple(row[5:10]), tuple(row[10:]))
            assert not arrangement.is_lung(rules)
        assert set(np.unique(data["opp_instant"])) <= set(range(-1, len(INSTANT_TYPES)))
        assert 0.0 < float(data["opp_sweeps"].mean()) < 0.5


def test_presets_load_their_class_tables_instead_of_building_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(rules: Ruleset) -> ClassTable:
        raise AssertionError("built")

    monkeypatch.setattr(classes, "build_class_table", refuse)
    class_table.cache_clear()
    try:
        for rules in PRESETS.values():
            class_table(rules)
        # an option that changes strengths or bonuses no longer matches the data
        changed = make_ruleset("vipgame", {"bonus_trips_chi3": 5})
        with pytest.raises(AssertionError, match="built"):
            class_table(changed)
    finally:
        class_table.cache_clear()


def test_the_generator_is_deterministic(tmp_path: Path) -> None:
    # given two tiny builds with the same seed
    for out in ("a", "b"):
        arrays = build("classic", deals=6, rounds=2, seed=5, test_hands=3)
        write(tmp_path / out / "classic.npz", arrays)
    # then the files are byte for byte the same
    first = (tmp_path / "a" / "classic.npz").read_bytes()
    assert first == (tmp_path / "b" / "classic.npz").read_bytes()
    # one round's worth of opponents (6 deals of 4 hands): greedy or round 1's
    assert len(np.load(tmp_path / "a" / "classic.npz")["opp_cards"]) == 24


def test_fictitious_play_averages_rounds_in_equal_shares() -> None:
    # given three rounds of 10 hands, each hand marked with its round
    parts = [
        {"opp_cards": np.arange(10) + 100 * r, "opp_instant": np.full(10, r)} for r in range(3)
    ]
    # when 7 hands are drawn as their average
    mixed = average(parts, 7, seed=1)
    # then each round gives 2 or 3 distinct hands, kept whole (the arrays stay aligned)
    assert sorted(np.bincount(mixed["opp_instant"], minlength=3)) == [2, 2, 3]
    assert len(set(mixed["opp_cards"].tolist())) == 7
    assert (mixed["opp_cards"] // 100 == mixed["opp_instant"]).all()
    assert np.array_equal(average(parts, 7, seed=1)["opp_cards"], mixed["opp_cards"])


def test_hint_swap_is_the_largest_gain_of_a_later_hint() -> None:
    # given the exhaustive values of the hints, in the hints' order
    # then hints in that order swap by 0, and otherwise by the largest later gain
    assert hint_swap([1.0, 0.5, 0.5]) == 0.0
    assert hint_swap([1.0]) == 0.0
    assert hint_swap([1.0, 1.25, 0.5]) == 0.25
    assert hint_swap([0.5, 1.0, 1.5]) == 1.0


def test_an_arranger_gains_nothing_by_answering_its_own_field() -> None:
    rules = PRESETS["vipgame"]
    arranger = arranger_for(rules)
    rng = random.Random(4)
    hands = [rng.sample(range(52), 13) for _ in range(5)]
    assert exploitability(arranger, arranger, hands) == (0.0, 0.0)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_joint_score_is_the_mean_over_sampled_tables(preset: str) -> None:
    # given a hand whose splits trade a chi-1 flush against pairs in every chi,
    # and tables of three opponents drawn from the arranger's own sample
    rules = PRESETS[preset]
    arranger = Arranger(rules, card_removal=False)
    cards = parse_cards(
        ["Qc", "Qs", "Td", "5s", "3h", "Kc", "9c", "9s", "7s", "2d", "Ac", "8h", "8c"]
    )
    sample = arranger.sample
    rng = np.random.default_rng(3)
    tables = 40_000
    full = np.zeros((3, sample.size), dtype=np.int64)
    full[0, sample.plain], full[1, sample.plain], full[2, sample.plain] = (
        sample.c1,
        sample.c2,
        sample.c3,
    )
    picks = [rng.integers(0, sample.size, tables) for _ in range(3)]
    opponents = tuple(
        Chis(full[0, i], full[1, i], full[2, i], arranger.four_aces[full[0, i]]) for i in picks
    )
    instants = tuple(
        [INSTANT_TYPES[k] if k >= 0 else None for k in sample.instant[i]] for i in picks
    )
    hand = evaluate_hand(cards, arranger.table)
    for split in (arranger.best_split(cards), arranger.greedy_split(cards)):
        c1 = np.array([hand.five[SPLIT_CHI1[split]]])
        c2 = np.array([hand.five[SPLIT_CHI2[split]]])
        c3 = np.array([hand.three[SPLIT_CHI3[split]]])
        ours = Chis(c1[:, None], c2[:, None], c3[:, None], arranger.four_aces[c1][:, None])
        # when the arranger's score is compared with settling those tables exactly
        simulated = table_net(rules, arranger.table, ours, opponents, instants).mean() / 3
        scored = arranger.split_units(cards, split)
        # then they agree within the simulation's noise
        assert abs(scored - simulated) < 0.08


def test_card_removal_gives_hands_we_block_no_weight() -> None:
    # given a hand holding every ace and every king
    rules = PRESETS["classic"]
    arranger = arranger_for(rules)
    cards = parse_cards(ACES_KINGS)
    weights = arranger.weights(cards)
    sample = arranger.sample
    # then a sampled hand with more of a rank or a suit than is left weighs 0
    ours_ranks = np.bincount(np.array(cards) >> 2, minlength=13)
    ours_suits = np.bincount(np.array(cards) & 3, minlength=4)
    blocked = ((sample.ranks + ours_ranks) > 4).any(axis=1)
    blocked |= ((sample.suits + ours_suits) > 13).any(axis=1)
    holds = (sample.ranks[:, 12] > 0) | (sample.ranks[:, 11] > 0)
    assert (blocked >= holds).all()
    assert weights[blocked].sum() == 0
    assert (weights[~blocked] > 0).all()
    assert weights.sum() == pytest.approx(1.0)


def test_four_aces_classes_match_is_four_aces() -> None:
    for rules in PRESETS.values():
        strengths = class_table(rules).five_strength
        expected = [is_four_aces(int(s)) for s in strengths]
        assert four_aces_classes(strengths).tolist() == expected
        assert sum(expected) == 12
