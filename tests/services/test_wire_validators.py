"""tests/wire.py checks every message with two validators of one schema: the
compiled ``jsonschema-rs`` says yes or no, and ``jsonschema`` (the
reference) is asked only about what the first refuses. A message the fast
one passed and the reference would refuse would go unchecked, so the two are
held to the same answer on real messages (a hand of each game, every message
it sent) and on their broken variants: a field taken away, a field the
schema does not name, a value of another type."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from games.api.schema import state_example
from kernel import notify

from .. import wire
from ..registry import GAMES
from .driver import play_until_finished, ready_all, seated_table

pytestmark = pytest.mark.django_db

#: Broken variants tried per message (a sample: a state has hundreds).
VARIANTS = 60
OTHER_TYPES: tuple[Any, ...] = (None, "x", -1, 1.5, True, [], {})


@pytest.fixture(autouse=True)
def no_idle_bound_in_the_test_transaction(db: None) -> None:
    """These tests check thousands of variants in pure Python between two
    statements of the test's own transaction (rolled back at its end): on a
    slow machine longer than the sessions' ``DB_IDLE_IN_TRANSACTION_TIMEOUT_MS``
    (5 s), and PostgreSQL ended the session under the test (a clean clone's
    ``.ci/run``: ``IdleInTransactionSessionTimeout`` in the money check's
    teardown, after 6.5 s of checking). That bound is for the application's
    sessions (tests/services/test_lock_bounds.py), not for a test's; ``SET
    LOCAL`` ends with the test's transaction."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL idle_in_transaction_session_timeout = 0")


def places(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from places(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from places(value, (*path, index))


def replaced(message: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    out = copy.deepcopy(message)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


def variants(message: dict[str, Any]) -> Iterator[Any]:
    """Each one change away from ``message``."""
    for path, node in places(message):
        if isinstance(node, dict):
            yield replaced(message, path, {**node, "not_in_the_schema": 1})
            for key in node:
                yield replaced(message, path, {k: v for k, v in node.items() if k != key})
        elif isinstance(node, list):
            yield replaced(message, path, [])
            yield replaced(message, path, [*node, None])
        for other in OTHER_TYPES:
            if type(other) is not type(node):
                yield replaced(message, path, other)


def agree(component: str, message: Any) -> bool:
    """The two validators' answer, failing the test where they differ."""
    fast = wire.fast_validator(component).is_valid(message)
    reference = wire.validator(component).is_valid(message)
    assert fast == reference, (component, fast, message)
    return reference


def hand_messages(make_user: Any, tables: Any, monkeypatch: Any, game: str) -> list[Any]:
    """Every message a hand of ``game`` sent, as its sockets send them on."""
    sent: list[dict[str, Any]] = []
    original = notify.send

    def send(messages: Any, **kwargs: Any) -> Any:
        for _group, message in messages:
            payload = wire.payload_of(message)
            if payload is not None:
                sent.append(payload)
        return original(messages, **kwargs)

    monkeypatch.setattr(notify, "send", send)
    table, _ = seated_table(make_user, game, humans=2, bots=1)
    ready_all(table)
    play_until_finished(tables, table)
    tables.drain()
    return sent


@pytest.mark.parametrize("game", GAMES)
def test_both_validators_answer_alike_on_a_hands_messages_and_their_variants(
    game, make_user, tables, monkeypatch
):
    messages = [state_example(game), *hand_messages(make_user, tables, monkeypatch, game)]
    kinds: dict[str, int] = {}
    answers = {True: 0, False: 0}
    for number, message in enumerate(messages):
        assert agree("WsServerMessage", message)  # what the server sent is valid
        kinds[message["type"]] = kinds.get(message["type"], 0) + 1
        if kinds[message["type"]] > 2:
            continue  # (two of each kind is enough for the variants)
        broken = list(variants(message))
        for variant in random.Random(f"{game}-{number}").sample(broken, min(VARIANTS, len(broken))):
            answers[agree("WsServerMessage", variant)] += 1
    assert {"state", "delta"} <= set(kinds), kinds
    # Not a test that cannot fail: most variants are refused, some accepted
    # (a value the schema allows more than one type for, an optional field).
    assert answers[False] > answers[True] > 0, answers


def test_both_validators_answer_alike_on_the_published_examples():
    schemas = wire.openapi()["components"]["schemas"]
    examples = {name: s["example"] for name, s in schemas.items() if "example" in s}
    assert len(examples) >= 9  # each game's view, summary and result
    for name, example in examples.items():
        assert agree(name, example)
        broken = list(variants(example))
        for variant in random.Random(name).sample(broken, min(VARIANTS, len(broken))):
            agree(name, variant)
