"""Hold'em benchmark: evaluator speed and exactness, engine speed, bot strength.

    .venv/bin/python bench/holdem.py            # the full run (several minutes)
    .venv/bin/python bench/holdem.py --quick    # a smaller run

Prints the numbers and writes them to bench/results/holdem.json.
"""

from __future__ import annotations

import argparse
import array
import hashlib
import itertools
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from games.rules.cards import card_str
from games.rules.holdem import betting
from games.rules.holdem.engine import ENGINE
from games.rules.holdem.evaluator import DISTINCT_HANDS, evaluate, rank7, rank_of
from games.rules.holdem.state import HandState

RESULTS = Path(__file__).resolve().parent / "results" / "holdem.json"
RULES = ENGINE.ruleset("vipgame", {})
TREYS = TreysEvaluator()
TREYS_CARDS = [TreysCard.new(card_str(c)) for c in range(52)]
STORED_DIGEST = json.loads(
    (Path(__file__).resolve().parent.parent / "tests/rules/holdem/cases.json").read_text()
)["evaluator"]["five_card_ranking_sha256"]

TARGET_EVALUATIONS = 500_000

Policy = Callable[[HandState, int, random.Random], dict[str, Any]]


def per_second(count: int, seconds: float) -> float:
    return round(count / seconds, 1)


# -- evaluator ---------------------------------------------------------------


def evaluation_speed(hands: int) -> dict[str, Any]:
    """Seven-card evaluations per second, one Python call per hand (no batching):
    a plain loop over pre-dealt hands, the clock around the loop only."""
    rng = random.Random(1)
    sample = [rng.sample(range(52), 7) for _ in range(hands)]
    rates: dict[str, Any] = {}
    for name, function, count in (
        ("ours_7card_per_s", rank7, hands),
        ("ours_general_rank_of_per_s", rank_of, hands // 4),
        ("ours_evaluate_with_best_five_per_s", evaluate, hands // 40),
    ):
        start = time.perf_counter()
        for cards in sample[:count]:
            function(cards)
        rates[name] = per_second(count, time.perf_counter() - start)
    few = sample[: max(1, hands // 20)]
    start = time.perf_counter()
    for cards in few:
        TREYS.evaluate([TREYS_CARDS[c] for c in cards[:2]], [TREYS_CARDS[c] for c in cards[2:]])
    rates["treys_7card_per_s"] = per_second(len(few), time.perf_counter() - start)
    rates.update(pokerkit_speed(sample[:2000]))
    return {
        "method": "per call from Python: rank7(list of 7 card ints) -> int, one call per hand",
        "target_7card_per_s": TARGET_EVALUATIONS,
        "target_met": rates["ours_7card_per_s"] >= TARGET_EVALUATIONS,
        **rates,
    }


def pokerkit_speed(sample: list[list[int]]) -> dict[str, float]:
    from pokerkit import Card as PkCard
    from pokerkit import StandardHighHand

    cards = [list(PkCard.parse("".join(card_str(c) for c in hand))) for hand in sample]
    start = time.perf_counter()
    for hand in cards:
        StandardHighHand.from_game(hand[:2], hand[2:])
    return {"pokerkit_7card_per_s": per_second(len(cards), time.perf_counter() - start)}


def treys_rank(cards: list[int] | tuple[int, ...]) -> int:
    t = [TREYS_CARDS[c] for c in cards]
    return DISTINCT_HANDS + 1 - TREYS.evaluate(t[:2], t[2:])


def agreement(seven_card_hands: int) -> dict[str, Any]:
    """Ours against treys on every five-card hand and on random seven-card hands."""
    start = time.perf_counter()
    ours = array.array("H")
    reference = array.array("H")
    for combo in itertools.combinations(range(52), 5):
        ours.append(rank_of(combo))
        reference.append(treys_rank(combo))
    five_mismatches = sum(1 for a, b in zip(ours, reference, strict=True) if a != b)
    if sys.byteorder == "little":
        reference.byteswap()
    digest = hashlib.sha256(reference.tobytes()).hexdigest()
    rng = random.Random(7)
    seven_mismatches = 0
    for _ in range(seven_card_hands):
        cards = rng.sample(range(52), 7)
        seven_mismatches += rank7(cards) != treys_rank(cards)
    six_card_hands = seven_card_hands // 5
    six_mismatches = 0
    for _ in range(six_card_hands):
        cards = rng.sample(range(52), 6)
        six_mismatches += rank_of(cards) != treys_rank(cards)
    return {
        "reference": "treys (independent pure-Python evaluator)",
        "five_card_hands": len(ours),
        "five_card_mismatches": five_mismatches,
        "treys_digest_matches_stored": digest == STORED_DIGEST,
        "six_card_hands": six_card_hands,
        "six_card_mismatches": six_mismatches,
        "seven_card_hands": seven_card_hands,
        "seven_card_mismatches": seven_mismatches,
        "seconds": round(time.perf_counter() - start, 1),
    }


# -- players -----------------------------------------------------------------


def always_call(state: HandState, player: int, rng: random.Random) -> dict[str, Any]:
    legal = betting.legal_actions(state, player)
    return {"type": "check"} if legal.check else {"type": "call"}


def random_player(state: HandState, player: int, rng: random.Random) -> dict[str, Any]:
    """Uniform over the kinds of legal action (fold only when facing a bet);
    a raise goes to a uniform amount in its range."""
    legal = betting.legal_actions(state, player)
    kinds = ["check"] if legal.check else ["fold", "call"]
    if legal.raise_min is not None:
        kinds.append("raise")
    if legal.all_in is not None and legal.raise_min is not None:
        kinds.append("all_in")
    kind = rng.choice(kinds)
    if kind == "raise":
        assert legal.raise_max is not None
        return {"type": "raise", "to": rng.randint(legal.raise_min or 0, legal.raise_max)}
    return {"type": kind}


def play_hand(state: HandState, policies: list[Policy], rng: random.Random) -> HandState:
    while not state.finished:
        player = state.to_act
        assert player is not None
        state, _ = ENGINE.apply(state, player, policies[player](state, player, rng))
    return state


def simulation_speed(hands: int) -> dict[str, float]:
    """Random full hands of 2 to 9 players through the engine's public interface."""
    rng = random.Random(3)
    decisions = 0
    start = time.perf_counter()
    for _ in range(hands):
        players = rng.randint(2, 9)
        deck = list(range(52))
        rng.shuffle(deck)
        setup = {"stake": 1, "button": 0, "stacks": [rng.randint(20, 400) for _ in range(players)]}
        state, _ = ENGINE.start(RULES, deck, players, setup)
        state = play_hand(state, [random_player] * players, rng)
        decisions += sum(1 for r in state.log if r["kind"] == "acted")
    seconds = time.perf_counter() - start
    return {
        "hands_per_s": per_second(hands, seconds),
        "actions_per_s": per_second(decisions, seconds),
    }


def match(opponent: Policy, hands: int, seed: int) -> dict[str, float]:
    """Heads-up, 100 big blinds each every hand, the button alternating."""
    rng = random.Random(seed)
    big_blind = 2
    results = []
    decision_seconds: list[float] = []

    def timed_bot(state: HandState, player: int, r: random.Random) -> dict[str, Any]:
        view = ENGINE.view(state, player)
        seed = r.randrange(2**32)
        start = time.perf_counter()
        action = ENGINE.bot_action(view, seed)
        decision_seconds.append(time.perf_counter() - start)
        return action

    for hand in range(hands):
        deck = list(range(52))
        rng.shuffle(deck)
        setup = {"stake": 1, "button": hand % 2, "stacks": [100 * big_blind] * 2}
        state, _ = ENGINE.start(RULES, deck, 2, setup)
        state = play_hand(state, [timed_bot, opponent], rng)
        results.append((state.stacks[0] - state.start_stacks[0]) / big_blind)
    mean = statistics.fmean(results)
    error = statistics.stdev(results) / math.sqrt(len(results))
    decision_seconds.sort()
    return {
        "hands": hands,
        "bb_per_100": round(100 * mean, 1),
        "standard_error_bb_per_100": round(100 * error, 1),
        "standard_errors_above_zero": round(mean / error, 1),
        "bot_decisions": len(decision_seconds),
        "bot_ms_per_decision": round(1000 * statistics.fmean(decision_seconds), 3),
        "bot_ms_p99": round(1000 * decision_seconds[int(0.99 * len(decision_seconds))], 3),
        "bot_ms_max": round(1000 * decision_seconds[-1], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller, faster run")
    args = parser.parse_args()
    quick = args.quick
    sizes = {
        "evaluations": 200_000 if quick else 2_000_000,
        "seven_card_agreement": 100_000 if quick else 1_000_000,
        "simulated_hands": 2_000 if quick else 20_000,
        "match_hands": 1_000 if quick else 20_000,
    }
    report: dict[str, Any] = {
        "command": " ".join(["python", *sys.argv]),
        "quick": quick,
        "sizes": sizes,
        "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("evaluator_speed", lambda: evaluation_speed(sizes["evaluations"])),
        ("evaluator_agreement", lambda: agreement(sizes["seven_card_agreement"])),
        ("simulation", lambda: simulation_speed(sizes["simulated_hands"])),
        ("bot_vs_always_call", lambda: match(always_call, sizes["match_hands"], 11)),
        ("bot_vs_random", lambda: match(random_player, sizes["match_hands"], 12)),
    ]
    for name, step in steps:
        report[name] = step()
        print(f"{name}: {json.dumps(report[name])}", flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
