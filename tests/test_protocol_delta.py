"""The ``delta`` message (docs/protocol.md): ``view_patch`` and ``apply_delta``
rebuild exactly the state the server would have sent, touch nothing else and
never change their inputs; ``follow`` is a client's step (stale, apply, sync)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.protocol import apply_delta, follow, view_patch

from .deltas import HAND_MADE, KEYS, cases, delta_for, seat_delta, state_with

# JSON values (no booleans: Python's 1 == True would hide a change of type).
scalars = st.none() | st.integers(-3, 50) | st.sampled_from(["", "3s", "Thảo 🎴"])
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner),
    max_leaves=8,
)
views = st.dictionaries(st.sampled_from(KEYS), values, max_size=6)


@st.composite
def moves(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A view and what a move may make of it (kept, replaced, grown, nulled, gone, new)."""
    old = draw(views)
    new: dict[str, Any] = {}
    for key, value in old.items():
        how = draw(st.sampled_from(["keep", "grow", "replace", "null", "gone"]))
        if how == "keep":
            new[key] = value
        elif how == "grow" and isinstance(value, list):
            new[key] = value + draw(st.lists(values, min_size=1, max_size=3))
        elif how in ("grow", "replace"):
            new[key] = draw(values)
        elif how == "null":
            new[key] = None
    new.update(draw(st.dictionaries(st.sampled_from(KEYS), values, max_size=2)))
    return old, new


def expected(state: dict[str, Any], delta: Any, view: dict[str, Any]) -> dict[str, Any]:
    """The state of version ``delta.v`` as the server would send it in full."""
    return {
        **state,
        "v": delta["v"],
        "server_time": delta["server_time"],
        "actors": delta["actors"],
        "clock": delta["clock"],
        "hand": {**state["hand"], "last_seq": delta["hand"]["last_seq"], "view": view},
        "events": delta["events"],
        "resync": False,
    }


@settings(max_examples=400, deadline=None)
@given(moves())
def test_a_delta_rebuilds_the_new_view_and_changes_nothing_else(move):
    old, new = move
    state = state_with(old)
    delta = delta_for(old, new)
    before = copy.deepcopy((state, delta))

    result = apply_delta(state, delta)

    assert result == expected(state, delta, new)
    assert (state, delta) == before, "the inputs are unchanged"


@settings(max_examples=300, deadline=None)
@given(moves())
def test_a_patch_names_only_what_changed(move):
    old, new = move

    patch = view_patch(old, new)
    # (A part with nothing in it is left out.)
    assert all(patch.values())
    unset, changed, grown = patch.get("unset", []), patch.get("set", {}), patch.get("append", {})

    assert set(unset) == set(old) - set(new)
    assert set(changed) | set(grown) == {k for k in new if old.get(k, ...) != new[k]}
    assert not set(changed) & set(grown)
    for key, items in grown.items():
        assert items
        assert old[key] + items == new[key]


@pytest.mark.parametrize(("old", "new"), HAND_MADE)
def test_hand_made_moves(old, new):
    result = apply_delta(state_with(old), delta_for(old, new))

    assert result is not None
    assert result["hand"]["view"] == new


def test_what_each_kind_of_change_sends():
    assert view_patch({"log": [1, 2]}, {"log": [1, 2, 3]}) == {"append": {"log": [3]}}
    assert view_patch({"log": [1, 2]}, {"log": [2]}) == {"set": {"log": [2]}}
    assert view_patch({}, {"log": [1]}) == {"set": {"log": [1]}}
    assert view_patch({"hints": ["3s"]}, {"hints": None}) == {"set": {"hints": None}}
    assert view_patch({"hints": ["3s"], "pot": 1}, {"pot": 1}) == {"unset": ["hints"]}
    assert view_patch({"pot": 1}, {"pot": 1}) == {}


def test_a_hands_end_replaces_the_hands_and_tables_fields_that_changed():
    old, new = HAND_MADE[0]
    state = state_with(old)
    delta = delta_for(old, new)
    delta["hand"]["finished"] = True
    delta["hand"]["result"] = {"net": [2, -2]}
    delta["hand"]["server_seed"] = "ab" * 32
    delta["table"] = {"status": "summary"}

    result = apply_delta(state, delta)

    assert result is not None
    assert result["hand"] == {
        **state["hand"],
        "last_seq": 5,
        "view": new,
        "finished": True,
        "result": {"net": [2, -2]},
        "server_seed": "ab" * 32,
    }
    assert result["table"] == {**state["table"], "status": "summary"}  # its seats kept
    assert state["table"]["status"] == "playing"


def test_a_null_view_is_patched_from_nothing():
    state = state_with(None)

    result = apply_delta(state, delta_for(None, {"log": [1], "pot": None}))

    assert result is not None
    assert result["hand"]["view"] == {"log": [1], "pot": None}
    assert state["hand"]["view"] is None


def test_a_delta_for_another_version_or_hand_does_not_apply():
    old, new = HAND_MADE[0]
    delta = delta_for(old, new)

    assert apply_delta(state_with(old, v=6), delta) is None
    assert apply_delta(state_with(old, v=8), delta) is None
    assert apply_delta(state_with(old, hand_id=40), delta) is None
    assert apply_delta({**state_with(old), "hand": None}, delta) is None
    assert apply_delta({}, delta) is None


def test_the_shared_cases_apply_as_their_views_say():
    applied = [apply_delta(state, delta) for state, delta in cases(3, 50)]

    # gap, stale, another hand, no hand; a seat delta's gap and stale
    assert sum(r is None for r in applied) == 6


def test_a_seat_delta_keeps_the_hand_and_replaces_the_seats():
    old, _ = HAND_MADE[0]
    state = state_with(old)
    delta = seat_delta()

    result = apply_delta(state, delta)

    assert result is not None
    assert result["hand"] is state["hand"]  # no hand in it: the hand as it was
    assert result["table"] == {**state["table"], "seats": delta["table"]["seats"]}
    assert (result["v"], result["clock"], result["actors"], result["events"]) == (
        8,
        delta["clock"],
        [],
        [],
    )
    between = apply_delta({**state, "hand": None}, delta)  # applies between hands too
    assert between is not None
    assert between["hand"] is None
    assert apply_delta(state_with(old, v=6), delta) is None


def test_a_client_follows_states_and_deltas_in_version_order():
    old, new = HAND_MADE[0]
    held = state_with(old)
    applied = apply_delta(held, delta_for(old, new))
    delta: dict[str, Any] = dict(delta_for(old, new))  # as read from a socket

    assert follow(None, held) == (held, False)
    assert follow(held, {**held, "v": 6}) == (None, False)  # a stale state
    assert follow(held, {**held, "seat": None}) == ({**held, "seat": None}, False)  # same version
    assert follow(held, delta) == (applied, False)
    assert follow(applied, delta) == (None, False)  # a stale delta: ignored
    assert follow(state_with(old, v=6), delta) == (None, True)  # a gap: sync
    assert follow(state_with(old, v=6, hand_id=40), delta) == (None, True)
    assert follow(None, delta) == (None, True)
    assert follow(state_with(old, hand_id=40), delta) == (None, True)  # another hand
