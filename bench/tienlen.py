"""Tiến Lên benchmark: legal-move generation speed and bot strength (issue 4).

    .venv/bin/python bench/tienlen.py            # 20,000 positions, 5,000 games
    .venv/bin/python bench/tienlen.py --quick    # 2,000 positions, 500 games

Move generation: positions met in games of random legal moves; the time of
``legal_plays`` for the player to act (median and p99, in ms). As with
``timeit``, each position is timed ``REPEATS`` times with the garbage
collector off and the fastest run counts, so other work on a shared machine
does not show up as generation time.
Bot strength: the bot in one seat (rotating) against three players making
uniformly random legal moves, four-player games; win rate with its standard
error. Prints the numbers and writes them to bench/results/tienlen.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.rules.tienlen import bot
from games.rules.tienlen.engine import ENGINE
from games.rules.tienlen.moves import legal_plays
from games.rules.tienlen.state import HandState

RESULTS = Path(__file__).resolve().parent / "results" / "tienlen.json"
RULES = ENGINE.ruleset("vipgame", {})
PLAYERS = 4
TARGET_MEDIAN_MS = 0.5
TARGET_WIN_RATE = 0.40
REPEATS = 3


def new_hand(rng: random.Random) -> HandState:
    deck = list(range(52))
    rng.shuffle(deck)
    setup = {"previous_winner": None, "random_first": rng.randrange(PLAYERS)}
    state, _ = ENGINE.start(RULES, deck, PLAYERS, setup)
    return state


def random_move(state: HandState, rng: random.Random) -> HandState:
    assert state.turn is not None
    view = ENGINE.view(state, state.turn)
    state, _ = ENGINE.apply(state, state.turn, bot.random_action(view, rng.randrange(2**32)))
    return state


def generation_times(positions: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    times_ms: dict[str, list[float]] = {"leading": [], "following": []}
    counts: list[int] = []
    state = new_hand(rng)
    while len(counts) < positions:
        if state.finished:
            state = new_hand(rng)
            continue
        assert state.turn is not None
        hand, table, must = state.hands[state.turn], state.table_combo, state.must_include
        elapsed = []
        gc.disable()
        for _ in range(REPEATS):
            start = time.perf_counter()
            plays = legal_plays(hand, table, RULES, must)
            elapsed.append((time.perf_counter() - start) * 1000)
        gc.enable()
        times_ms["following" if table else "leading"].append(min(elapsed))
        counts.append(len(plays))
        state = random_move(state, rng)
    return {
        "positions": positions,
        **summarise(times_ms["leading"] + times_ms["following"]),
        "leading": summarise(times_ms["leading"]),
        "following": summarise(times_ms["following"]),
        "mean_plays": round(statistics.fmean(counts), 1),
        "max_plays": max(counts),
        "repeats_per_position": REPEATS,
        "target_median_ms": TARGET_MEDIAN_MS,
    }


def summarise(times_ms: list[float]) -> dict[str, float]:
    ordered = sorted(times_ms)
    return {
        "count": len(ordered),
        "median_ms": round(statistics.median(ordered), 4),
        "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))], 4),
        "max_ms": round(ordered[-1], 4),
    }


def bot_games(games: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    wins = 0
    units = 0
    instant = 0
    start = time.perf_counter()
    for game in range(games):
        seat = game % PLAYERS
        state = new_hand(rng)
        while not state.finished:
            assert state.turn is not None
            if state.turn == seat:
                view = ENGINE.view(state, seat)
                action = ENGINE.bot_action(view, rng.randrange(2**32))
                state, _ = ENGINE.apply(state, seat, action)
            else:
                state = random_move(state, rng)
        wins += state.winner == seat
        instant += state.instant is not None
        units += ENGINE.outcome(state).net[seat]
    rate = wins / games
    return {
        "games": games,
        "wins": wins,
        "win_rate": round(rate, 4),
        "standard_error": round(math.sqrt(rate * (1 - rate) / games), 4),
        "mean_units_per_game": round(units / games, 2),
        "instant_wins_dealt": instant,
        "seconds": round(time.perf_counter() - start, 1),
        "target_win_rate": TARGET_WIN_RATE,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smaller run")
    parser.add_argument("--positions", type=int, help="positions to time")
    parser.add_argument("--games", type=int, help="bot games to play")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    positions = args.positions or (2_000 if args.quick else 20_000)
    games = args.games or (500 if args.quick else 5_000)

    generation = generation_times(positions, args.seed)
    print(
        f"move generation over {positions} positions: median {generation['median_ms']} ms, "
        f"p99 {generation['p99_ms']} ms, max {generation['max_ms']} ms "
        f"(mean {generation['mean_plays']} plays, max {generation['max_plays']})"
    )
    for kind in ("leading", "following"):
        part = generation[kind]
        print(
            f"  {kind}: {part['count']} positions, median {part['median_ms']} ms, "
            f"p99 {part['p99_ms']} ms"
        )
    strength = bot_games(games, args.seed + 1)
    print(
        f"bot vs 3 random players over {games} games: win rate {strength['win_rate']:.1%} "
        f"± {strength['standard_error']:.1%} (chance 25%), "
        f"{strength['mean_units_per_game']} units per game, {strength['seconds']} s"
    )
    result = {
        "command": " ".join([sys.executable, *sys.argv]),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "move_generation": generation,
        "bot_vs_random": strength,
        "targets_met": generation["median_ms"] <= TARGET_MEDIAN_MS
        and strength["win_rate"] >= TARGET_WIN_RATE,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
