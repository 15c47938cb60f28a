"""Provably fair dealing (docs/rules.md 1) and the worked example of docs/fairness.md."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from games.rules import fairness
from games.rules.cards import cards_str
from games.rules.cli import main, run
from games.rules.errors import RulesError

SEED = bytes(range(32))
HAND_ID = "table-7/hand-42"
CLIENT_SEEDS = ["alice", "bob", "Thảo"]
EXAMPLE_DECK_TEXT = (
    "Qd 9c 4c As Ks Jd 3s 2d 6d Th 5d Ah 2h Js Jc 3d 9h 3h 7d 4s Ad Qh Jh 7h 5s 7s "
    "Qc Ac 8h 6c 2s Qs 9d 7c Kc 4d 8d 8c Td 5h 3c 9s Tc Kh 6h 5c Ts 6s 4h 8s 2c Kd"
)
EXAMPLE_DECK = EXAMPLE_DECK_TEXT.split()
DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def test_worked_example_is_pinned() -> None:
    assert (
        fairness.commitment(SEED)
        == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    assert cards_str(fairness.deal_deck(SEED, HAND_ID, CLIENT_SEEDS)) == EXAMPLE_DECK


def test_first_words_and_draws_of_the_example() -> None:
    stream = fairness.FairStream(SEED, HAND_ID, CLIENT_SEEDS)
    assert [stream.word() for _ in range(3)] == [694772410, 2798351590, 4240606224]
    stream = fairness.FairStream(SEED, HAND_ID, CLIENT_SEEDS)
    assert [stream.uniform(n) for n in (52, 51, 50)] == [46, 1, 24]


def test_the_document_shows_the_deck_the_code_deals() -> None:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"<!-- worked-example-deck -->\n```\n(.*?)```", text, re.S)
    assert block is not None
    assert block.group(1).split() == EXAMPLE_DECK
    assert fairness.commitment(SEED) in text


def _doc_value(text: str, name: str) -> str:
    found = re.search(rf"^{name}\s+=\s+(.+)$", text, re.M)
    assert found is not None, name
    return found.group(1).strip()


def test_the_document_intermediate_values_are_the_code_values() -> None:
    # given the worked example's inputs and intermediate values as printed in the document
    text = DOC.read_text(encoding="utf-8").split("## Worked example", 1)[1]
    assert _doc_value(text, "server_seed") == SEED.hex()
    assert _doc_value(text, "hand_id") == HAND_ID
    assert json.loads(_doc_value(text, "client_seeds")) == CLIENT_SEEDS
    # then each one is what the implementation computes
    assert _doc_value(text, "commitment") == fairness.commitment(SEED)
    context = b"".join(
        len(s.encode()).to_bytes(4, "big") + s.encode() for s in [HAND_ID, *CLIENT_SEEDS]
    )
    assert _doc_value(text, "context") == context.hex()
    block = hmac.new(SEED, context + bytes(8), hashlib.sha256).hexdigest()
    assert _doc_value(text, "block_0") == block
    stream = fairness.FairStream(SEED, HAND_ID, CLIENT_SEEDS)
    words = [stream.word() for _ in range(8)]
    assert _doc_value(text, "words") == ", ".join(map(str, words)) + ", ..."
    stream = fairness.FairStream(SEED, HAND_ID, CLIENT_SEEDS)
    draws = ", ".join(f"({n}, {stream.uniform(n)})" for n in range(52, 46, -1))
    assert _doc_value(text, r"first draws \(n, uniform\(n\)\)") == draws + ", ..."


def test_the_document_reference_implementation_deals_the_same_decks() -> None:
    # given the Python reference implementation printed in the document
    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    namespace: dict[str, Any] = {}
    exec(code.group(1), namespace)  # our own document, under test
    reference = namespace["deck"]
    # then it deals exactly what the code deals, for the example and other inputs
    assert reference(SEED, HAND_ID, CLIENT_SEEDS) == EXAMPLE_DECK
    for seed, hand_id, seeds in [(bytes(32), "", []), (bytes([255] * 32), "h", ["", "é" * 64])]:
        assert reference(seed, hand_id, seeds) == cards_str(
            fairness.deal_deck(seed, hand_id, seeds)
        )


def test_every_input_changes_the_deck() -> None:
    base = fairness.deal_deck(SEED, HAND_ID, CLIENT_SEEDS)
    assert sorted(base) == list(range(52))
    assert fairness.deal_deck(bytes(32), HAND_ID, CLIENT_SEEDS) != base
    assert fairness.deal_deck(SEED, "table-7/hand-43", CLIENT_SEEDS) != base
    assert fairness.deal_deck(SEED, HAND_ID, ["bob", "alice", "Thảo"]) != base
    assert fairness.deal_deck(SEED, "ab", ["c"]) != fairness.deal_deck(SEED, "a", ["bc"])


def test_verify_checks_commitment_and_deck() -> None:
    commitment = fairness.commitment(SEED)
    deck = fairness.deal_deck(SEED, HAND_ID, CLIENT_SEEDS)
    assert fairness.verify(SEED, HAND_ID, CLIENT_SEEDS, commitment.upper(), deck)
    assert not fairness.verify(bytes(32), HAND_ID, CLIENT_SEEDS, commitment, deck)
    assert not fairness.verify(SEED, HAND_ID, CLIENT_SEEDS, commitment, deck[::-1])


class _ScriptedStream(fairness.FairStream):
    def __init__(self, words: list[int]) -> None:
        super().__init__(SEED, HAND_ID, [])
        self._script = words

    def word(self) -> int:
        return self._script.pop(0)


def test_uniform_rejects_the_biased_top_of_the_range() -> None:
    limit = 2**32 - (2**32 % 52)
    stream = _ScriptedStream([limit, 2**32 - 1, limit - 1])
    assert stream.uniform(52) == (limit - 1) % 52


def test_fair_draws_continue_the_same_stream() -> None:
    deck, draws = fairness.fair_draws(SEED, HAND_ID, CLIENT_SEEDS, [4, 9])
    assert deck == fairness.deal_deck(SEED, HAND_ID, CLIENT_SEEDS)
    stream = fairness.FairStream(SEED, HAND_ID, CLIENT_SEEDS)
    fairness.shuffle(stream)
    assert draws == [stream.uniform(4), stream.uniform(9)]


def test_deck_op_of_the_command_line() -> None:
    answer = run(
        {"op": "deck", "server_seed": SEED.hex(), "hand_id": HAND_ID, "client_seeds": CLIENT_SEEDS}
    )
    assert answer == {"commitment": fairness.commitment(SEED), "deck": EXAMPLE_DECK}


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"op": "deck", "server_seed": "zz", "hand_id": "h"}, "bad_seed"),
        ({"op": "deck", "server_seed": "00" * 31, "hand_id": "h"}, "bad_seed"),
        ({"op": "deck", "server_seed": 7, "hand_id": "h"}, "bad_seed"),
        ({"op": "deck", "server_seed": "00" * 32, "hand_id": 5}, "bad_request"),
        (
            {"op": "deck", "server_seed": "00" * 32, "hand_id": "h", "client_seeds": "x"},
            "bad_request",
        ),
        (
            {"op": "deck", "server_seed": "00" * 32, "hand_id": "h", "client_seeds": ["x" * 65]},
            "bad_client_seed",
        ),
        ({"op": "deck", "server_seed": " " + "00" * 32, "hand_id": "h"}, "bad_seed"),
        ({"op": "deck", "server_seed": "00 " * 32, "hand_id": "h"}, "bad_seed"),
        ({"op": "deck", "server_seed": "0x" + "00" * 31, "hand_id": "h"}, "bad_seed"),
        ({"op": "deck", "server_seed": "00" * 33, "hand_id": "h"}, "bad_seed"),
        ({"op": "deck", "server_seed": "00" * 32, "hand_id": "\ud800"}, "bad_request"),
        (
            {"op": "deck", "server_seed": "00" * 32, "hand_id": "h", "client_seeds": ["a\udfff"]},
            "bad_client_seed",
        ),
        (
            {"op": "deck", "server_seed": "00" * 32, "hand_id": "h", "client_seeds": [7]},
            "bad_client_seed",
        ),
    ],
)
def test_deck_op_refuses_bad_input_with_exit_2(request_: dict[str, object], code: str) -> None:
    stdout = io.StringIO()
    assert main(io.StringIO(json.dumps(request_)), stdout) == 2
    assert json.loads(stdout.getvalue())["error"]["code"] == code


def test_server_seed_parsing() -> None:
    assert fairness.parse_server_seed(SEED.hex()) == SEED
    assert fairness.parse_server_seed(SEED.hex().upper()) == SEED
    with pytest.raises(RulesError) as err:
        fairness.parse_server_seed("0" * 63)
    assert err.value.code == "bad_seed"


def test_client_seed_limits() -> None:
    assert fairness.check_client_seed("é" * 64) == "é" * 64
    for bad in ["x" * 65, "\ud800", None, 3]:
        with pytest.raises(RulesError) as err:
            fairness.check_client_seed(bad)
        assert err.value.code == "bad_client_seed"


def test_verify_refuses_a_malformed_commitment_without_raising() -> None:
    deck = fairness.deal_deck(SEED, HAND_ID, CLIENT_SEEDS)
    assert not fairness.verify(SEED, HAND_ID, CLIENT_SEEDS, "é" * 64, deck)
    assert not fairness.verify(SEED, HAND_ID, CLIENT_SEEDS, "", deck)
