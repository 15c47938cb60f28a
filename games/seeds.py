"""The randomness of the table services: each table's server seeds, the client
seeds the server draws (bots', and for a player who sent none) and the deal.

Production draws from the OS CSPRNG and deals with the provably fair shuffle
(docs/fairness.md). Tests replace ``token`` with a deterministic source, so
every hand's deck is reproducible, and may replace ``deal`` to deal a chosen
deck (tests/seeds.py); nothing in the project's packages offers another deal.
"""

import secrets
from collections.abc import Sequence

from games.rules import fairness
from games.rules.cards import Card


def token(nbytes: int) -> bytes:
    return secrets.token_bytes(nbytes)


def new_seed() -> tuple[str, str]:
    """A server seed (hex) and its commitment."""
    seed = token(fairness.SEED_BYTES)
    return seed.hex(), fairness.commitment(seed)


def drawn_seed() -> str:
    """A client seed drawn by the server (a bot's, or for a player who sent none)."""
    return token(16).hex()


def deal(
    server_seed: bytes, hand_id: str, client_seeds: Sequence[str], bounds: Sequence[int]
) -> tuple[list[Card], list[int]]:
    """The hand's deck and its extra draws (fairness.fair_draws)."""
    return fairness.fair_draws(server_seed, hand_id, client_seeds, bounds)
