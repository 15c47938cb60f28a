"""States and deltas for the tests of ``games.protocol.view_patch`` /
``apply_delta`` and of their browser port (``static/js/delta.js``)."""

from __future__ import annotations

import random
from typing import Any

from games.protocol import DeltaMessage, view_patch

KEYS = ["phase", "hand", "log", "board", "pot", "hints", "legal", "trick", "own"]

# (old view, new view): growth, replacement, shrinking, unset, null values.
HAND_MADE: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"log": [1, 2]}, {"log": [1, 2, 3, 4]}),  # grown at its end: append
    ({"log": []}, {"log": [{"seq": 1}]}),  # grown from empty
    ({"log": [1, 2]}, {"log": [2, 3]}),  # same length, other items: set
    ({"log": [1, 2, 3]}, {"log": [1]}),  # shrunk: set
    ({"log": [1, 2]}, {"log": [0, 1, 2]}),  # grown at its start: set
    ({"log": [[1], [2]]}, {"log": [[1], [2, 3]]}),  # an inner list grew: set
    ({"hints": ["3s"], "pot": 4}, {"pot": 4}),  # gone: unset
    ({"hints": ["3s"]}, {"hints": None}),  # null is a value, not a removal
    ({"hints": None}, {"hints": ["3s"]}),
    ({}, {"log": [1]}),  # a new list: set, not append
    ({"pot": 4, "board": ["As"]}, {"pot": 4, "board": ["As"]}),  # nothing changed
    ({"own": {"cards": ["3s"]}}, {"own": {"cards": ["3s", "4s"]}}),  # nested: set whole
    ({"phase": "play", "trick": [1]}, {"phase": "done", "legal": {"min": 2}}),
]


def state_with(view: dict[str, Any] | None, *, v: int = 7, hand_id: int = 41) -> dict[str, Any]:
    """A ``state`` message (the parts a delta does not touch included)."""
    return {
        "type": "state",
        "v": v,
        "server_time": 1_767_225_600_000 + v,
        "seat": 0,
        "you": 0,
        "actors": [0],
        "clock": {"kind": "turn", "started": 1, "deadline": 2, "seats": [0]},
        "table": {"id": 5, "status": "playing", "seats": [{"position": 0, "chips": 100}]},
        "hand": {
            "id": hand_id,
            "number": 3,
            "players": [{"index": 0, "position": 0, "user_id": 7, "name": "Lan", "bot": False}],
            "last_seq": 4,
            "view": view,
            "finished": False,
            "result": None,
        },
        "events": [{"seq": 4, "v": v, "type": "dealt"}],
        "resync": True,
    }


def delta_for(
    old: dict[str, Any] | None, new: dict[str, Any], *, base: int = 7, hand_id: int = 41
) -> DeltaMessage:
    """The delta of one move from version ``base`` that turns view ``old`` into ``new``."""
    return {
        "type": "delta",
        "v": base + 1,
        "base": base,
        "server_time": 1_767_225_600_000 + base + 1,
        "actors": [1],
        "clock": None if base % 2 else {"kind": "turn", "started": 3, "deadline": 4, "seats": [2]},
        "hand": {"id": hand_id, "last_seq": 5, "view": view_patch(old or {}, new)},
        "events": [
            {
                "seq": 5,
                "v": base + 1,
                "type": "played",
                "player": 0,
                "cards": ["3s"],
                "combination": "single",
                "chop": False,
            }
        ],
    }


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 2 and roll < 0.25:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 2 and roll < 0.35:
        return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randrange(3))}
    return rng.choice([None, rng.randrange(-5, 100), rng.choice(["", "3s", "Thảo 🎴", "x"])])


def random_pair(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """An old view and the view a move may make of it: keys kept, replaced,
    grown (lists), nulled or gone, and new keys."""
    old = {key: _value(rng) for key in rng.sample(KEYS, rng.randrange(len(KEYS)))}
    new: dict[str, Any] = {}
    for key, value in old.items():
        roll = rng.random()
        if roll < 0.3:
            new[key] = value
        elif roll < 0.55 and isinstance(value, list):
            new[key] = [*value, *(_value(rng, 1) for _ in range(rng.randint(1, 3)))]
        elif roll < 0.7:
            new[key] = _value(rng)
        elif roll < 0.8:
            new[key] = None
        # else: gone
    for key in rng.sample(KEYS, 2):
        if key not in old:
            new[key] = _value(rng)
    return old, new


def cases(seed: int, count: int) -> list[tuple[dict[str, Any], DeltaMessage]]:
    """(state, delta) pairs: the hand-made and random views, and deltas that
    do not apply (another base, another hand, no hand, a null view), and
    seat deltas (no ``hand``)."""
    rng = random.Random(seed)
    pairs = HAND_MADE + [random_pair(rng) for _ in range(count)]
    out = [
        (state_with(old, v=7 + n % 2), delta_for(old, new, base=7 + n % 2))
        for n, (old, new) in enumerate(pairs)
    ]
    old, new = HAND_MADE[0]
    out += [
        (state_with(old, v=6), delta_for(old, new)),  # a gap
        (state_with(old, v=8), delta_for(old, new)),  # stale
        (state_with(old, hand_id=40), delta_for(old, new)),  # another hand
        ({**state_with(old), "hand": None}, delta_for(old, new)),  # between hands
        (state_with(None), delta_for(None, {"log": [1], "pot": None})),  # a null view
    ]
    # A hand's end: the hand's and the table's fields that changed replace the state's.
    end = delta_for(old, new)
    end["hand"]["finished"] = True
    end["hand"]["result"] = {"net": [2, -2]}
    end["hand"]["server_seed"] = "ab" * 32
    end["table"] = {"status": "summary"}
    out.append((state_with(old), end))
    # Seat deltas: no hand (it stays as it was, none included), all the seats.
    seats = seat_delta()
    out += [
        (state_with(old), seats),
        ({**state_with(old), "hand": None}, seats),  # between hands
        (state_with(old, v=6), seats),  # a gap
        (state_with(old, v=8), seats),  # stale
    ]
    return out


def seat_delta(*, base: int = 7) -> DeltaMessage:
    """A change of the seats only (a player ready, present...): no ``hand``."""
    return {
        "type": "delta",
        "v": base + 1,
        "base": base,
        "server_time": 1_767_225_600_000 + base + 1,
        "actors": [],
        "clock": {"kind": "ready", "started": 5, "deadline": 6, "seats": [1]},
        "table": {
            "seats": [
                {"position": 0, "chips": 100, "ready": True},
                {"position": 1, "chips": 90, "ready": False},
            ]
        },
        "events": [],
    }
