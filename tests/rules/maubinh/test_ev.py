"""The exhaustive scorer (``ev.table_net``) settles exactly like ``settle.settle``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from games.rules.maubinh.arranger import Arranger, arranger_for, split_arrangement
from games.rules.maubinh.classes import evaluate_hand
from games.rules.maubinh.ev import Chis, table_net
from games.rules.maubinh.instant import declared_instant, top_pair
from games.rules.maubinh.rules import PRESETS
from games.rules.maubinh.settle import Contender, settle
from games.rules.maubinh.splits import SPLIT_CHI1, SPLIT_CHI2, SPLIT_CHI3


def _classes(arranger: Arranger, cards: list[int], split: int) -> tuple[int, int, int]:
    hand = evaluate_hand(cards, arranger.table)
    c1 = int(hand.five[SPLIT_CHI1[split]])
    return (c1, int(hand.five[SPLIT_CHI2[split]]), int(hand.three[SPLIT_CHI3[split]]))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_table_net_matches_settle(preset: str) -> None:
    # given random tables whose three opponents use several valid splits, and
    # several valid splits of ours (two suits only, so sweeps, bonuses and
    # instant wins are common)
    rules = PRESETS[preset]
    arranger = arranger_for(rules)
    rng = random.Random(17)
    checked = sweeps = 0
    for _ in range(60):
        deck = rng.sample([r * 4 + s for r in range(13) for s in (0, 3)], 26)
        deck += rng.sample([c for c in range(52) if c not in deck], 26)
        rng.shuffle(deck)
        ours = deck[:13]
        if declared_instant(rules, ours):
            continue
        opponents = [deck[13 * p : 13 * p + 13] for p in (1, 2, 3)]
        opp_splits = [
            arranger.random_split(h, rng) if rng.random() < 0.7 else arranger.greedy_split(h)
            for h in opponents
        ]
        opp_classes = [_classes(arranger, h, s) for h, s in zip(opponents, opp_splits, strict=True)]
        opp_chis = tuple(
            Chis(np.array([c[0]]), np.array([c[1]]), np.array([c[2]]), arranger.four_aces[[c[0]]])
            for c in opp_classes
        )
        instants = tuple([declared_instant(rules, h)] for h in opponents)
        splits = [arranger.random_split(ours, rng) for _ in range(6)] + [arranger.best_split(ours)]
        mine = [_classes(arranger, ours, s) for s in splits]
        candidates = Chis(
            np.array([m[0] for m in mine])[:, None],
            np.array([m[1] for m in mine])[:, None],
            np.array([m[2] for m in mine])[:, None],
            arranger.four_aces[[m[0] for m in mine]][:, None],
        )
        # when the scorer and settle() settle each candidate at that table
        got = table_net(rules, arranger.table, candidates, opp_chis, instants)[:, 0]
        for split, units in zip(splits, got, strict=True):
            hands = [ours, *opponents]
            arrangements = [split_arrangement(ours, split)] + [
                split_arrangement(h, s) for h, s in zip(opponents, opp_splits, strict=True)
            ]
            players = [
                Contender(a, declared_instant(rules, h), top_pair(h))
                for a, h in zip(arrangements, hands, strict=True)
            ]
            result = settle(rules, players)
            # then they agree to the unit
            assert units == result.net[0]
            checked += 1
            sweeps += bool(result.sweeps)
    assert checked > 200
    assert sweeps > 20
