"""Shared helpers for the Tiến Lên tests: dealing and random legal play."""

from __future__ import annotations

import io
import json
import random
from typing import Any

from games.rules.cli import main
from games.rules.game import Event
from games.rules.tienlen import bot
from games.rules.tienlen.engine import ENGINE
from games.rules.tienlen.state import HandState


def shuffled_deck(seed: int) -> list[int]:
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


def deal(
    seed: int, players: int = 4, options: dict[str, Any] | None = None
) -> tuple[HandState, list[Event]]:
    rules = ENGINE.ruleset("vipgame", options or {})
    setup = {"previous_winner": None, "random_first": seed % players}
    return ENGINE.start(rules, shuffled_deck(seed), players, setup)


def random_action(state: HandState, rng: random.Random) -> dict[str, Any]:
    """A uniformly random legal action for the player to act (passing counts as one)."""
    assert state.turn is not None
    return bot.random_action(ENGINE.view(state, state.turn), rng.randrange(2**32))


def run_cli(request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = main(io.StringIO(json.dumps(request)), out)
    return code, json.loads(out.getvalue())


# Four hands from cases.json ("cóng" game): P0 holds 3♠-Q♠ and K♣ K♦ K♥.
# Listed in Tiến Lên order, as views show them.
HANDS = [
    ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Kc", "Kd", "Kh"],
    ["3c", "4c", "5c", "6c", "7c", "8c", "9c", "Tc", "Jc", "Qc", "Ks", "2d", "2h"],
    ["3d", "3h", "4d", "4h", "5d", "5h", "6d", "7d", "8d", "9d", "Td", "Jd", "2s"],
    ["6h", "7h", "8h", "9h", "Th", "Jh", "Qd", "Qh", "As", "Ac", "Ad", "Ah", "2c"],
]
STRAIGHT = HANDS[0][:10]
