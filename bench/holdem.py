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
from games.rules.holdem.evaluator import DISTINCT_HANDS, rank7, rank_of
from games.rules.holdem.state import HandState

RESULTS = Path(__file__).resolve().parent / "results" / "holdem.json"
RULES = ENGINE.ruleset("vipgame", {})
TREYS = TreysEvaluator()
TREYS_CARDS = [TreysCard.new(card_str(c)) for c in range(52)]
STORED_DIGEST = json.loads(
    (Path(__file__).resolve().parent.parent / "tests/rules/holdem/cases.json").read_text()
)["evaluator"]["five_card_ranking_sha256"]

Policy = Callable[[HandState, int, random.Random], dict[str, Any]]


def per_second(count: int, seconds: float) -> float:
    return round(count / seconds, 1)


# -- evaluator ---------------------------------------------------------------


def evaluation_speed(hands: int) -> dict[str, float]:
    rng = random.Random(1)
    sample = [rng.sample(range(52), 7) for _ in range(hands)]
    start = time.perf_counter()
    for cards in sample:
        rank7(cards)
    ours = per_second(hands, time.perf_counter() - start)
    few = sample[: max(1, hands // 20)]
    start = time.perf_counter()
    for cards in few:
        TREYS.evaluate([TREYS_CARDS[c] for c in cards[:2]], [TREYS_CARDS[c] for c in cards[2:]])
    treys = per_second(len(few), time.perf_counter() - start)
    return {"ours_7card_per_s": ours, "treys_7card_per_s": treys, **pokerkit_speed(sample[:2000])}


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
    return {
        "five_card_hands": len(ours),
        "five_card_mismatches": five_mismatches,
        "treys_digest_matches_stored": digest == STORED_DIGEST,
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


def bot(state: HandState, player: int, rng: random.Random) -> dict[str, Any]:
    return ENGINE.bot_action(ENGINE.view(state, player), rng.randrange(2**32))


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
        decisions += sum(1 for r in state.log if r["kind"] == "action")
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
    bot_seconds = 0.0
    bot_decisions = 0

    def timed_bot(state: HandState, player: int, r: random.Random) -> dict[str, Any]:
        nonlocal bot_seconds, bot_decisions
        start = time.perf_counter()
        action = bot(state, player, r)
        bot_seconds += time.perf_counter() - start
        bot_decisions += 1
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
    return {
        "hands": hands,
        "bb_per_100": round(100 * mean, 1),
        "standard_error_bb_per_100": round(100 * error, 1),
        "bot_ms_per_decision": round(1000 * bot_seconds / max(1, bot_decisions), 3),
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
    report: dict[str, Any] = {"quick": quick, "sizes": sizes}
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
