"""Benchmark of the Mậu Binh auto-arranger: speed, and strength against baselines.

* Speed: median and p99 wall time of one ``arrange`` (best split, hints and
  instant win) over random 13-card hands, after a warm-up; also the thread's
  CPU time, which other processes on a shared machine do not inflate.
* Strength: simulated 4-player deals settled with the full rules (bonuses,
  sập, instant wins). In each deal the arranger plays one seat and a baseline
  the other three, once with the arranger in each seat (duplicate style, so
  the deal's luck cancels); the deal's score is the arranger's average net
  units. Baselines: greedy (strongest chi 1, then strongest chi 2) and a
  uniformly random valid split. Reported with the standard error over deals.

    .venv/bin/python -m bench.arrange                  # 2,000 timings, 20,000 deals
    .venv/bin/python -m bench.arrange --quick          # 200 timings, 500 deals
    .venv/bin/python -m bench.arrange --preset all --cpu 1
    .venv/bin/python -m bench.arrange --preset all --regret-hands 50 --tables 300 \
        --timings 0 --deals 0
    .venv/bin/python -m bench.arrange --preset classic --tables 4000 --timings 0 \
        --deals 0 --hand "Qc Qs Td 5s 3h Kc 9c 9s 7s 2d Ac 8h 8c"   # named hands

* Regret (docs/rules.md 2.8, issue 17): on a fixed set of random hands (``--seed``;
  a hand holding an instant win is skipped: its chi are never compared, every
  split is worth the same), an exhaustive search scores every valid 5/5/3
  split (every distinct chi-class triple, which settle alike) at ``--tables``
  sampled four-player tables: three opponents dealt from the other 39 cards
  and arranged by the product's arranger, settled exactly
  (:func:`games.rules.maubinh.ev.table_net`, checked against
  :func:`games.rules.maubinh.settle.settle` on a few splits and tables of
  every hand). The arranger's regret on a hand is the best split's mean units
  minus the mean units of the split it picked, on the same tables. Since the
  best of ~10,000 noisy means is biased up, ``--holdout`` also draws a second,
  independent set of tables and reports the regret there of the split that
  was best on the first set, and the measurement's floor: the regret the first
  set charges the split that is best on the second (what a perfect arranger
  would be charged, the best on independent tables standing in for the true
  best). Also: whether any arrangement or hint is lủng,
  and whether the hints' exhaustive values are in the hints' order ("swap": the
  most a later hint is worth more than an earlier one, over the hands).

``--cpu N`` pins the process to that one core (Linux), so the timings are
one core's. Prints a summary and writes bench/results/arrange.json (with the
command line, the core and the load average, since the machine is shared).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import games.rules.maubinh.arranger as arranger_module
from games.rules.cards import cards_str, parse_cards
from games.rules.errors import RulesError
from games.rules.maubinh.arranger import Arranger, arrange, arranger_for, split_arrangement
from games.rules.maubinh.chi import Arrangement
from games.rules.maubinh.classes import evaluate_hand, five_classes, three_classes
from games.rules.maubinh.ev import Chis, table_net
from games.rules.maubinh.instant import declared_instant, top_pair
from games.rules.maubinh.rules import PRESETS, Ruleset
from games.rules.maubinh.settle import Contender, settle
from games.rules.maubinh.splits import SPLIT_CHI1, SPLIT_CHI2, SPLIT_CHI3

RESULTS = Path(__file__).resolve().parent / "results" / "arrange.json"
PLAYERS = 4


def _spread(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "median_ms": round(statistics.median(times), 3),
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
        "mean_ms": round(statistics.fmean(times), 3),
        "max_ms": round(times[-1], 3),
    }


def time_arrange(rules: Ruleset, hands: int, seed: int) -> dict[str, Any]:
    """Wall time per arrange, and the thread's CPU time (what one core spends,
    without the waits a busy shared machine adds to the wall time)."""
    rng = random.Random(seed)
    arrange(rules, rng.sample(range(52), 13))
    wall, cpu = [], []
    for _ in range(hands):
        cards = rng.sample(range(52), 13)
        started, started_cpu = time.perf_counter(), time.thread_time()
        arrange(rules, cards)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    return {"hands": hands, **_spread(wall), "cpu": _spread(cpu)}


def _mean_se(values: list[float]) -> dict[str, float]:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5
    return {"mean_units": round(mean, 4), "standard_error": round(se, 4), "z": round(mean / se, 1)}


def play(rules: Ruleset, deals: int, seed: int) -> dict[str, dict[str, float]]:
    arranger = arranger_for(rules)
    rng = random.Random(seed)
    deck = list(range(52))
    scores: dict[str, list[float]] = {"greedy": [], "random": []}
    for _ in range(deals):
        rng.shuffle(deck)
        hands = [deck[13 * p : 13 * p + 13] for p in range(PLAYERS)]
        instants = [declared_instant(rules, h) for h in hands]
        pairs = [top_pair(h) for h in hands]
        splits = {
            "arranger": [arranger.best_split(h) for h in hands],
            "greedy": [arranger.greedy_split(h) for h in hands],
            "random": [arranger.random_split(h, rng) for h in hands],
        }
        for baseline in scores:
            total = 0.0
            for hero in range(PLAYERS):
                players = [
                    Contender(
                        split_arrangement(h, splits["arranger" if p == hero else baseline][p]),
                        instants[p],
                        pairs[p],
                    )
                    for p, h in enumerate(hands)
                ]
                total += settle(rules, players).net[hero]
            scores[baseline].append(total / PLAYERS)
    return {baseline: {"deals": deals, **_mean_se(v)} for baseline, v in scores.items()}


CHUNK = 1024
WORSE = 0.3


def _chis(arranger: Arranger, c1: Any, c2: Any, c3: Any) -> Chis:
    return Chis(
        np.asarray(c1, dtype=np.int64),
        np.asarray(c2, dtype=np.int64),
        np.asarray(c3, dtype=np.int64),
        arranger.four_aces[np.asarray(c1, dtype=np.int64)],
    )


def _tables(
    arranger: Arranger, cards: list[int], tables: int, rng: random.Random
) -> tuple[tuple[Chis, Chis, Chis], tuple[list[str | None], ...], list[list[Arrangement]]]:
    """``tables`` deals of three opponents from the other 39 cards, arranged by the arranger."""
    rules, table = arranger.rules, arranger.table
    rest = [c for c in range(52) if c not in set(cards)]
    classes: list[list[list[int]]] = [[[], [], []] for _ in range(3)]
    instants: list[list[str | None]] = [[], [], []]
    arrangements = []
    for _ in range(tables):
        rng.shuffle(rest)
        row = []
        for j in range(3):
            hand = rest[13 * j : 13 * j + 13]
            split = arranger.best_split(hand)
            hc = evaluate_hand(hand, table)
            classes[j][0].append(int(hc.five[SPLIT_CHI1[split]]))
            classes[j][1].append(int(hc.five[SPLIT_CHI2[split]]))
            classes[j][2].append(int(hc.three[SPLIT_CHI3[split]]))
            instants[j].append(declared_instant(rules, hand))
            row.append(split_arrangement(hand, split))
        arrangements.append(row)
    opponents = (
        _chis(arranger, *classes[0]),
        _chis(arranger, *classes[1]),
        _chis(arranger, *classes[2]),
    )
    return opponents, (instants[0], instants[1], instants[2]), arrangements


def _exhaustive(
    arranger: Arranger, ours: Chis, opponents: tuple[Chis, Chis, Chis], instants: Any
) -> Any:
    """Mean net units of every candidate triple over the tables."""
    values = []
    for start in range(0, len(ours.c1), CHUNK):
        part = Chis(
            ours.c1[start : start + CHUNK, None],
            ours.c2[start : start + CHUNK, None],
            ours.c3[start : start + CHUNK, None],
            ours.four_aces[start : start + CHUNK, None],
        )
        values.append(table_net(arranger.rules, arranger.table, part, opponents, instants).mean(1))
    return np.concatenate(values)


def _key(arranger: Arranger, arrangement: Arrangement) -> int:
    """The chi-class triple of an arrangement, as one int (as in ``regret``)."""
    table = arranger.table
    c1 = five_classes(np.array([arrangement.chi1]), table)[0]
    c2 = five_classes(np.array([arrangement.chi2]), table)[0]
    c3 = three_classes(np.array([arrangement.chi3]), table)[0]
    return int((c1 * table.five_count + c2) * table.three_count + c3)


def _arrangement_text(arrangement: Arrangement) -> str:
    return " / ".join(" ".join(cards_str(chi)) for chi in arrangement.chis)


def regret_hands(rules: Ruleset, hands: int, seed: int) -> tuple[list[list[int]], int]:
    """The fixed hands of the regret table (no instant win), and how many were skipped."""
    rng = random.Random(seed)
    chosen: list[list[int]] = []
    skipped = 0
    while len(chosen) < hands:
        cards = rng.sample(range(52), 13)
        if declared_instant(rules, cards):
            skipped += 1
        else:
            chosen.append(cards)
    return chosen, skipped


def regret(
    rules: Ruleset,
    hands: int,
    tables: int,
    seed: int,
    holdout: bool,
    share: tuple[int, int],
    card_removal: bool = True,
    checkpoint: Path | None = None,
    named: list[list[int]] | None = None,
) -> dict[str, Any]:
    """The regret table of one preset (see the module docstring); ``share`` = (k, n)
    runs only hands i with i % n == k (for runs in parallel), each hand with its
    own random tables, so every split of the work gives the same rows. Without
    ``card_removal`` the arranger under test ignores it (the opponents do not).
    ``named`` replaces the random hands with these."""
    arranger = arranger_for(rules)
    hero = arranger if card_removal else Arranger(rules, card_removal=False)
    rows: list[dict[str, Any]] = []
    every, skipped = (named, 0) if named else regret_hands(rules, hands, seed)
    checked = 0
    lung = False
    started = time.perf_counter()
    for number, cards in enumerate(every):
        if number % share[1] != share[0]:
            continue
        rng = random.Random(seed * 1_000_003 + number)
        hand = evaluate_hand(cards, arranger.table)
        splits = arranger.valid_splits(hand)
        c1 = hand.five[SPLIT_CHI1[splits]]
        c2 = hand.five[SPLIT_CHI2[splits]]
        c3 = hand.three[SPLIT_CHI3[splits]]
        key = (c1 * arranger.table.five_count + c2) * arranger.table.three_count + c3
        unique_keys, first = np.unique(key, return_index=True)
        ours = _chis(arranger, c1[first], c2[first], c3[first])
        opponents, instants, arrangements = _tables(arranger, cards, tables, rng)
        values = _exhaustive(arranger, ours, opponents, instants)
        # Check the vectorised scorer against settle() on a few splits and tables.
        for _ in range(3):
            i, t = rng.randrange(len(first)), rng.randrange(tables)
            mine = split_arrangement(cards, int(splits[first[i]]))
            players = [mine, *arrangements[t]]
            contenders = [
                Contender(a, declared_instant(rules, a.cards()), top_pair(a.cards()))
                for a in players
            ]
            expected = settle(rules, contenders).net[0]
            part = Chis(
                ours.c1[i : i + 1, None],
                ours.c2[i : i + 1, None],
                ours.c3[i : i + 1, None],
                ours.four_aces[i : i + 1, None],
            )
            got = table_net(rules, arranger.table, part, opponents, instants)[0, t]
            if got != expected:
                raise SystemExit(
                    f"scorer disagrees with settle: {cards_str(cards)} split "
                    f"{splits[first[i]]} table {t}: {got} != {expected}"
                )
            checked += 1
        result = hero.arrange(cards)
        picked = hero.best_split(cards)
        lung |= split_arrangement(cards, picked).is_lung(rules)
        lung |= any(h.arrangement.is_lung(rules) for h in result.hints)
        picked_at = int(
            np.searchsorted(unique_keys, _key(arranger, split_arrangement(cards, picked)))
        )
        hint_at = [
            int(np.searchsorted(unique_keys, _key(arranger, h.arrangement))) for h in result.hints
        ]
        hint_values = [float(values[i]) for i in hint_at]
        best = int(np.argmax(values))
        pool = hero._candidates(hero._hand(cards))
        pool_keys = {_key(arranger, split_arrangement(cards, int(x))) for x in pool}
        row: dict[str, Any] = {
            "cards": " ".join(cards_str(cards)),
            "candidates": len(first),
            "best": _arrangement_text(split_arrangement(cards, int(splits[first[best]]))),
            "picked": _arrangement_text(split_arrangement(cards, picked)),
            "best_units": round(float(values[best]), 4),
            "picked_units": round(float(values[picked_at]), 4),
            "regret": round(float(values[best] - values[picked_at]), 4),
            "hint_units": [round(v, 4) for v in hint_values],
            "hints_in_order": all(x >= y for x, y in itertools.pairwise(hint_values)),
            "best_in_candidates": int(unique_keys[best]) in pool_keys,
        }
        if holdout:
            opponents2, instants2, _ = _tables(arranger, cards, tables, rng)
            values2 = _exhaustive(arranger, ours, opponents2, instants2)
            row["holdout_regret"] = round(float(values2[best] - values2[picked_at]), 4)
            # The measurement's own floor: the regret this table gives the split
            # that is best on the held-out tables (a stand-in for the true best).
            row["floor_regret"] = round(float(values[best] - values[int(np.argmax(values2))]), 4)
        row["number"] = number
        rows.append(row)
        if checkpoint is not None:  # what is done so far, in the shape --combine reads
            done = {
                "summary": summarize(rows, tables, skipped, checked, lung, holdout),
                "hands": rows,
            }
            checkpoint.write_text(
                json.dumps(
                    {
                        "command": " ".join(["python -m bench.arrange", *sys.argv[1:]]),
                        "cores": sorted(os.sched_getaffinity(0)),
                        "presets": {rules.preset: {"regret": done}},
                    }
                )
                + "\n",
                encoding="utf-8",
            )
        print(
            f"  {rules.preset} hand {number + 1}/{hands}: regret {row['regret']:.4f} "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    return {"summary": summarize(rows, tables, skipped, checked, lung, holdout), "hands": rows}


def hint_swap(values: list[float]) -> float:
    """How much more a later hint is worth than an earlier one on the exhaustive
    tables (0 when the hints are in that order): the size of an out-of-order pair."""
    return max([0.0, *(later - earlier for earlier, later in itertools.combinations(values, 2))])


def summarize(
    rows: list[dict[str, Any]], tables: int, skipped: int, checked: int, lung: bool, holdout: bool
) -> dict[str, Any]:
    regrets = [r["regret"] for r in rows]
    summary: dict[str, Any] = {
        "hands": len(rows),
        "tables": tables,
        "skipped_instant_hands": skipped,
        "mean_regret": round(statistics.fmean(regrets), 4),
        "worst_regret": round(max(regrets), 4),
        "worse_than_0_3_percent": round(100 * sum(r > WORSE for r in regrets) / len(regrets), 1),
        "never_lung": not lung,
        "hints_in_order_percent": round(
            100 * sum(r["hints_in_order"] for r in rows) / len(rows), 1
        ),
        "worst_hint_swap": round(max(hint_swap(r["hint_units"]) for r in rows), 4),
        "best_in_candidates_percent": round(
            100 * sum(r["best_in_candidates"] for r in rows) / len(rows), 1
        ),
        "settle_checks": checked,
    }
    if holdout:
        held = [r["holdout_regret"] for r in rows]
        summary["holdout_mean_regret"] = round(statistics.fmean(held), 4)
        summary["holdout_worst_regret"] = round(max(held), 4)
        floor = [r["floor_regret"] for r in rows]
        summary["floor_mean_regret"] = round(statistics.fmean(floor), 4)
        summary["floor_worst_regret"] = round(max(floor), 4)
    summary["worst_hand"] = max(rows, key=lambda r: r["regret"])
    return summary


def print_regret_table(summaries: dict[str, dict[str, Any]]) -> None:
    holdout = all("holdout_mean_regret" in s for s in summaries.values())
    header = f"{'preset':<12} {'hands':>5} {'tables':>6} {'mean':>7} {'worst':>7} {'>0.3':>6}"
    header += f" {'lủng':>5} {'hints ok':>8} {'swap':>6} {'in pool':>7}"
    if holdout:
        header += f" {'held mean':>9} {'held worst':>10} {'floor mean':>10} {'floor worst':>11}"
    print(header)
    for preset, s in summaries.items():
        line = (
            f"{preset:<12} {s['hands']:>5} {s['tables']:>6} {s['mean_regret']:>7.4f} "
            f"{s['worst_regret']:>7.4f} {s['worse_than_0_3_percent']:>5.1f}% "
            f"{'never' if s['never_lung'] else 'SOME':>5} {s['hints_in_order_percent']:>7.1f}%"
            f" {s['worst_hint_swap']:>6.3f} {s['best_in_candidates_percent']:>6.1f}%"
        )
        if holdout:
            line += f" {s['holdout_mean_regret']:>9.4f} {s['holdout_worst_regret']:>10.4f}"
            line += f" {s['floor_mean_regret']:>10.4f} {s['floor_worst_regret']:>11.4f}"
        print(line)
    for preset, s in summaries.items():
        w = s["worst_hand"]
        print(
            f"{preset} worst hand {w['cards']}: picked {w['picked']} ({w['picked_units']:+.3f}), "
            f"best {w['best']} ({w['best_units']:+.3f})"
        )


def combine(paths: list[Path], output: Path) -> None:
    """One regret table (and one JSON file) from the result files of parallel runs."""
    merged: dict[str, Any] = {"combined_from": [], "presets": {}}
    for path in paths:
        report = json.loads(path.read_text(encoding="utf-8"))
        merged["combined_from"].append(
            {"file": str(path), "command": report["command"], "cores": report["cores"]}
        )
        for preset, entry in report["presets"].items():
            if "regret" not in entry:
                continue
            into = merged["presets"].setdefault(preset, {"parts": [], "hands": []})
            into["parts"].append(entry["regret"]["summary"])
            into["hands"] += entry["regret"]["hands"]
    for entry in merged["presets"].values():
        parts = entry["parts"]
        entry["hands"].sort(key=lambda r: r["number"])
        entry["summary"] = summarize(
            entry["hands"],
            parts[0]["tables"],
            parts[0]["skipped_instant_hands"],
            sum(p["settle_checks"] for p in parts),
            not all(p["never_lung"] for p in parts),
            all("holdout_mean_regret" in p for p in parts),
        )
    print_regret_table({p: e["summary"] for p, e in merged["presets"].items()})
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {output}")


def use_data(directory: Path) -> None:
    """Every arranger of this process loads its sample from ``directory``."""

    def load(preset: str) -> dict[str, Any] | None:
        path = directory / f"{preset}.npz"
        if not path.is_file():
            return None
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}

    arranger_module.preset_data = load  # type: ignore[assignment]
    arranger_for.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="vipgame", choices=[*PRESETS, "all"])
    parser.add_argument("--timings", type=int, default=2_000)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--regret-hands", type=int, default=0, help="hands for the regret table")
    parser.add_argument("--tables", type=int, default=300, help="sampled tables per regret hand")
    parser.add_argument(
        "--hand",
        action="append",
        default=[],
        help="13 cards ('Qc Qs Td ...'): the regret table of these hands instead of random ones",
    )
    parser.add_argument("--holdout", action="store_true", help="also a held-out set of tables")
    parser.add_argument(
        "--part", default="0/1", help="k/n: only regret hands i with i %% n == k (combine later)"
    )
    parser.add_argument(
        "--no-card-removal", action="store_true", help="the arranger ignores card removal"
    )
    parser.add_argument(
        "--combine",
        type=Path,
        nargs="*",
        help="print one regret table from these result files (of runs in parallel) and exit",
    )
    parser.add_argument("--quick", action="store_true", help="200 timings and 500 deals")
    parser.add_argument("--cpu", type=int, default=None, help="pin the process to this core")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="a directory of <preset>.npz to use instead of the package data (a trial build)",
    )
    args = parser.parse_args()
    if args.data is not None:
        use_data(args.data)
    if args.combine:
        combine(args.combine, args.output)
        return
    if args.quick:
        args.timings, args.deals = 200, 500
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    args.output.parent.mkdir(parents=True, exist_ok=True)
    presets = list(PRESETS) if args.preset == "all" else [args.preset]
    try:
        named = [parse_cards(hand.split(), count=13, field="--hand") for hand in args.hand]
    except RulesError as error:
        parser.error(str(error))
    for cards in named:
        for preset in presets:
            if declared_instant(PRESETS[preset], cards):
                parser.error(f"--hand {' '.join(cards_str(cards))} is an instant win in {preset}")
    if named:
        args.regret_hands = len(named)
    report: dict[str, Any] = {
        "command": " ".join([".venv/bin/python -m bench.arrange", *sys.argv[1:]]),
        "options": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "cores": sorted(os.sched_getaffinity(0)),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
        "presets": {},
    }
    for preset in presets:
        rules = PRESETS[preset]
        entry: dict[str, Any] = {}
        if args.timings:
            speed = time_arrange(rules, args.timings, args.seed)
            print(
                f"{preset}: arrange median {speed['median_ms']} ms, p99 {speed['p99_ms']} ms "
                f"(CPU time: median {speed['cpu']['median_ms']} ms, "
                f"p99 {speed['cpu']['p99_ms']} ms)"
            )
            entry["speed"] = speed
        if args.deals:
            strength = play(rules, args.deals, args.seed)
            for baseline, result in strength.items():
                print(
                    f"{preset}: arranger vs {baseline}: {result['mean_units']:+.4f} units/deal "
                    f"(se {result['standard_error']}, {result['z']} se)"
                )
            entry["strength"] = strength
        if args.regret_hands:
            k, n = (int(x) for x in args.part.split("/"))
            entry["regret"] = regret(
                rules,
                args.regret_hands,
                args.tables,
                args.seed,
                args.holdout,
                (k, n),
                card_removal=not args.no_card_removal,
                checkpoint=args.output.with_suffix(".partial.json"),
                named=named,
            )
        report["presets"][preset] = entry
    regrets = {p: e["regret"]["summary"] for p, e in report["presets"].items() if "regret" in e}
    if regrets:
        print_regret_table(regrets)
    report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
