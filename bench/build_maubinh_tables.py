"""Generate the auto-arranger's package data: games/rules/maubinh/data/<preset>.npz.

For each preset: the class table (so a process loads it instead of building
it), and a sample of opponents: hands dealt at random 4-player tables and
arranged by the arranger itself, which is the arranger's fixed point (docs/rules.md
2.8: opponents "arrange with this same arranger"). It is found by fictitious
play (``build``): round 1 answers greedy opponents, each later round answers
the average of all earlier rounds' hands, and the sample kept is the one whose
arranger gains least from answering its own hands (``exploitability``, printed
per round). A best answer to the last round alone swings (share of hands with
a pair or better in chi 3, vipgame: 0.31, 0.71, 0.68, ...), and an arranger
built on it loses up to 0.3 units a hand to its own opponents (issue 17).
Then, for each sampled hand, how often another sampled hand sweeps it and how
often it sweeps another (the arranger's "every opponent" terms). Everything is
driven by ``--seed``, so the same command rebuilds the same bytes:

    .venv/bin/python -m bench.build_maubinh_tables --deals 1024 --rounds 16 --seed 2026
    # (the defaults; about 6 min a preset on one free core)
    .venv/bin/python -m bench.build_maubinh_tables --deals 200 --output /tmp/t  # quick check
"""

from __future__ import annotations

import argparse
import io
import random
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from games.rules.hand5 import CATEGORY_SHIFT
from games.rules.maubinh.arranger import (
    OPPONENTS,
    SAMPLE_SIZE,
    Arranger,
    Sample,
    greedy_of,
    load_sample,
    split_arrangement,
)
from games.rules.maubinh.classes import (
    CLASS_ARRAYS,
    ClassTable,
    build_class_table,
    class_signature,
    evaluate_hand,
    five_classes,
    three_classes,
)
from games.rules.maubinh.instant import declared_instant, top_pair
from games.rules.maubinh.rules import INSTANT_TYPES, PRESETS, Ruleset

OUTPUT = Path(__file__).resolve().parent.parent / "games/rules/maubinh/data"
CHUNK = 512
TEST_HANDS = 200


def deal_and_arrange(
    rules: Ruleset, choose: Callable[[list[int]], int], deals: int, seed: int
) -> dict[str, np.ndarray[Any, Any]]:
    """4 x ``deals`` hands from random deals, each arranged (chi 1, chi 2, chi 3 codes)."""
    rng = random.Random(seed)
    deck = list(range(52))
    cards, instant, pairs = [], [], []
    for _ in range(deals):
        rng.shuffle(deck)
        for p in range(4):
            hand = deck[13 * p : 13 * p + 13]
            split = choose(hand)
            cards.append(split_arrangement(hand, split).cards())
            declared = declared_instant(rules, hand)
            instant.append(INSTANT_TYPES.index(declared) if declared else -1)
            pairs.append(top_pair(hand))
    return {
        "opp_cards": np.array(cards, dtype=np.uint8),
        "opp_instant": np.array(instant, dtype=np.int8),
        "opp_top_pair": np.array(pairs, dtype=np.int8),
    }


def sweep_rates(
    table: ClassTable, hands: dict[str, np.ndarray[Any, Any]]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Per sampled hand: the share of sampled hands that sweep it, and that it sweeps
    (a hand with an instant win neither sweeps nor is swept)."""
    cards = hands["opp_cards"].astype(np.int64)
    plain = hands["opp_instant"] < 0
    classes = np.stack(
        [
            five_classes(cards[:, :5], table),
            five_classes(cards[:, 5:10], table),
            three_classes(cards[:, 10:], table),
        ]
    )
    classes[:, ~plain] = -1
    n = len(cards)
    swept = np.zeros(n)
    sweeps = np.zeros(n)
    mine = classes[:, plain]
    for start in range(0, n, CHUNK):
        block = classes[:, start : start + CHUNK, None]
        won = (block > mine[:, None, :]).all(axis=0)
        lost = (block < mine[:, None, :]).all(axis=0)
        live = plain[start : start + CHUNK]
        sweeps[start : start + CHUNK] = np.where(live, won.sum(axis=1) / n, 0.0)
        swept[start : start + CHUNK] = np.where(live, lost.sum(axis=1) / n, 0.0)
    return swept.astype(np.float32), sweeps.astype(np.float32)


def sample_of(rules: Ruleset, table: ClassTable, hands: dict[str, np.ndarray[Any, Any]]) -> Sample:
    swept, sweeps = sweep_rates(table, hands)
    data = {**hands, "opp_swept": swept, "opp_sweeps": sweeps}
    return load_sample(rules, table, data)


def average(
    parts: list[dict[str, np.ndarray[Any, Any]]], size: int, seed: int
) -> dict[str, np.ndarray[Any, Any]]:
    """``size`` hands drawn without replacement from ``parts``, an equal share from
    each (the average of those rounds' arrangers), in a fixed random order."""
    rng = np.random.default_rng(seed)
    share = size // len(parts)
    picked = []
    for number, part in enumerate(parts):
        n = len(part["opp_cards"])
        take = min(n, share + (1 if number < size - share * len(parts) else 0))
        rows = np.sort(rng.choice(n, size=take, replace=False))
        picked.append({k: v[rows] for k, v in part.items()})
    joined = {k: np.concatenate([p[k] for p in picked]) for k in parts[0]}
    order = rng.permutation(len(joined["opp_cards"]))
    return {k: v[order] for k, v in joined.items()}


def chi3_pairs(table: ClassTable, hands: dict[str, np.ndarray[Any, Any]]) -> float:
    """Share of arranged hands with a pair or trips in chi 3 (a convergence check)."""
    cards = hands["opp_cards"].astype(np.int64)[:, 10:]
    strength = table.three_strength[three_classes(cards, table)]
    return float(((strength >> CATEGORY_SHIFT) >= 1).mean())


def exploitability(
    arranger: Arranger, field: Arranger, hands: list[list[int]]
) -> tuple[float, float]:
    """How much a hand gains by answering ``field`` (an arranger built on the hands
    ``arranger`` itself arranges) instead of playing ``arranger``: mean and worst
    units per table (three opponents) over ``hands``, as ``field`` scores them."""
    gains = []
    for cards in hands:
        mine, best = arranger.best_split(cards), field.best_split(cards)
        if mine == best:
            gains.append(0.0)
            continue
        hand = field._hand(cards)
        value, _ = field.scores(hand, np.array([best, mine]))
        gains.append(OPPONENTS * float(value[0] - value[1]))
    return float(np.mean(gains)), float(np.max(gains))


def build(
    preset: str, deals: int, rounds: int, seed: int, test_hands: int = TEST_HANDS
) -> dict[str, np.ndarray[Any, Any]]:
    """Fictitious play. Round 1's arranger answers greedy opponents; each later
    round's answers the average of every round's arranged hands so far (equal
    shares, ``SAMPLE_SIZE`` hands), so the opponents move by a shrinking step
    towards the arranger's own fixed point. After each round, an arranger built
    on the hands that round arranged tells how much a hand would gain by answering
    them instead (``exploitability``, on ``test_hands`` fixed hands); the data
    keeps the opponents of the least exploitable round."""
    rules = PRESETS[preset]
    table = build_class_table(rules)
    started = time.perf_counter()
    opponents = deal_and_arrange(
        rules, lambda cards: greedy_of(evaluate_hand(cards, table)), deals, seed
    )
    print(f"{preset}: greedy, chi 3 pair or better {chi3_pairs(table, opponents):.3f}", flush=True)
    rng = random.Random(seed - 1)
    test = [rng.sample(range(52), 13) for _ in range(test_hands)]
    history: list[dict[str, np.ndarray[Any, Any]]] = []
    kept, kept_gain, kept_round = opponents, np.inf, 0
    for round_ in range(1, rounds + 1):
        arranger = Arranger(rules, sample_of(rules, table, opponents), table=table)
        history.append(deal_and_arrange(rules, arranger.best_split, deals, seed + round_))
        field = Arranger(rules, sample_of(rules, table, history[-1]), table=table)
        gain, worst = exploitability(arranger, field, test)
        print(
            f"{preset}: round {round_}, chi 3 pair or better: opponents "
            f"{chi3_pairs(table, opponents):.3f}, arranged {chi3_pairs(table, history[-1]):.3f}; "
            f"exploitable by {gain:.4f} (worst {worst:.3f}) "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
        if gain < kept_gain:
            kept, kept_gain, kept_round = opponents, gain, round_
        opponents = average(history, SAMPLE_SIZE, seed + round_)
    print(f"{preset}: keeps round {kept_round}'s opponents", flush=True)
    hands = kept
    swept, sweeps = sweep_rates(table, hands)
    arrays: dict[str, np.ndarray[Any, Any]] = {
        f"class_{name}": getattr(table, name) for name in CLASS_ARRAYS
    }
    arrays["class_signature"] = np.array(class_signature(rules))
    arrays.update(hands)
    arrays["opp_swept"] = swept
    arrays["opp_sweeps"] = sweeps
    rate = float(sweeps[hands["opp_instant"] < 0].mean())
    print(f"{preset}: sweep rate {rate:.4f}, {time.perf_counter() - started:.0f} s", flush=True)
    return arrays


def write(path: Path, arrays: dict[str, np.ndarray[Any, Any]]) -> None:
    """A deterministic .npz (np.savez_compressed stamps the time into the zip)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(arrays):
            buffer = io.BytesIO()
            # np.asarray keeps the text entries 0-d (ascontiguousarray makes them 1-d).
            np.lib.format.write_array(buffer, np.asarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, buffer.getvalue(), compresslevel=9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    command = (
        f"python -m bench.build_maubinh_tables --deals {args.deals} --rounds {args.rounds} "
        f"--seed {args.seed}"
    )
    for preset in args.presets:
        arrays = build(preset, args.deals, args.rounds, args.seed)
        arrays["meta"] = np.array(f"{command} (preset {preset})")
        write(args.output / f"{preset}.npz", arrays)
        print(f"wrote {args.output / f'{preset}.npz'}", flush=True)


if __name__ == "__main__":
    main()
