"""Provably fair dealing (docs/rules.md 1; the algorithm is specified in docs/fairness.md).

commitment = sha256(server_seed)
context    = for each of [hand_id, client_seed_0, ..., client_seed_n-1]:
             uint32_be(len(utf8(s))) || utf8(s)
block_i    = HMAC-SHA256(key=server_seed, msg=context || uint64_be(i)), i = 0, 1, ...
stream     = block_0 || block_1 || ..., read as big-endian uint32 words
deck       = cards 0..51 (2s 2c 2d 2h 3s ... Ah); for j = 51 down to 1:
             k = uniform(j + 1); swap deck[j], deck[k]
uniform(n) = next word u, skipping words u >= 2**32 - (2**32 mod n); u mod n
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence

from .cards import DECK, Card
from .errors import RulesError

SEED_BYTES = 32
MAX_CLIENT_SEED_LENGTH = 64
_TWO32 = 1 << 32
_SEED_HEX = re.compile("[0-9a-fA-F]{" + str(2 * SEED_BYTES) + "}")


def parse_server_seed(seed_hex: object) -> bytes:
    """The 32 seed bytes from exactly 64 hex digits (no spaces, no prefix)."""
    if not isinstance(seed_hex, str) or not _SEED_HEX.fullmatch(seed_hex):
        raise RulesError("bad_seed", f"server_seed must be {2 * SEED_BYTES} hex digits")
    return bytes.fromhex(seed_hex)


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, e.g. from JSON "\ud800"
        return False
    return True


def check_hand_id(hand_id: object) -> str:
    if not isinstance(hand_id, str) or not _is_utf8(hand_id):
        raise RulesError("bad_request", "hand_id must be a string of valid Unicode")
    return hand_id


def check_client_seed(seed: object) -> str:
    if not isinstance(seed, str) or len(seed) > MAX_CLIENT_SEED_LENGTH or not _is_utf8(seed):
        raise RulesError(
            "bad_client_seed",
            f"A client seed must be a string of at most {MAX_CLIENT_SEED_LENGTH} Unicode "
            "characters (code points)",
        )
    return seed


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def _context(hand_id: str, client_seeds: Sequence[str]) -> bytes:
    parts = bytearray()
    for text in (hand_id, *client_seeds):
        data = text.encode("utf-8")
        parts += len(data).to_bytes(4, "big") + data
    return bytes(parts)


class FairStream:
    """The HMAC-SHA256 counter stream of uint32 words, with unbiased draws."""

    def __init__(self, server_seed: bytes, hand_id: str, client_seeds: Sequence[str]) -> None:
        self._key = server_seed
        self._context = _context(hand_id, client_seeds)
        self._counter = 0
        self._words: list[int] = []

    def _refill(self) -> None:
        block = hmac.new(
            self._key, self._context + self._counter.to_bytes(8, "big"), hashlib.sha256
        ).digest()
        self._counter += 1
        self._words = [int.from_bytes(block[i : i + 4], "big") for i in range(28, -1, -4)]

    def word(self) -> int:
        if not self._words:
            self._refill()
        return self._words.pop()

    def uniform(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection sampling."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _TWO32 - (_TWO32 % n)
        while True:
            u = self.word()
            if u < limit:
                return u % n


def shuffle(stream: FairStream) -> list[Card]:
    deck = list(DECK)
    for j in range(len(deck) - 1, 0, -1):
        k = stream.uniform(j + 1)
        deck[j], deck[k] = deck[k], deck[j]
    return deck


def deal_deck(server_seed: bytes, hand_id: str, client_seeds: Sequence[str]) -> list[Card]:
    return shuffle(FairStream(server_seed, hand_id, client_seeds))


def fair_draws(
    server_seed: bytes, hand_id: str, client_seeds: Sequence[str], bounds: Sequence[int]
) -> tuple[list[Card], list[int]]:
    """The deck, then one uniform draw per bound from the same stream.

    Used where a hand needs a random choice besides the deck (the first
    player of a table's first Tiến Lên hand, the first Hold'em button).
    """
    stream = FairStream(server_seed, hand_id, client_seeds)
    deck = shuffle(stream)
    return deck, [stream.uniform(n) for n in bounds]


def verify(
    server_seed: bytes,
    hand_id: str,
    client_seeds: Sequence[str],
    expected_commitment: str,
    deck: Sequence[Card] | None = None,
) -> bool:
    """True when the seed matches the commitment (and, if given, the deck)."""
    expected = expected_commitment.lower().encode("utf-8", "replace")
    if not hmac.compare_digest(commitment(server_seed).encode("ascii"), expected):
        return False
    return deck is None or list(deck) == deal_deck(server_seed, hand_id, client_seeds)
