"""Hypothesis properties of random hands (docs/rules.md 4).

Chips are conserved, no stack goes negative, folded players are never paid,
views never leak a hidden card, states survive JSON, and exported PHH replays
to the same final stacks in pokerkit and in our own importer.
"""

from __future__ import annotations

import json
import random
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st
from pokerkit import HandHistory

from games.rules.cards import card_str
from games.rules.holdem.engine import ENGINE
from games.rules.holdem.phh import export_phh, import_phh
from games.rules.holdem.state import HandState

from .support import RULES, expected_stacks, play_random, random_action, random_spec

seeds = st.integers(min_value=0, max_value=2**32 - 1)
HANDS = settings(max_examples=300, deadline=None, derandomize=True)


def hidden_cards(state: HandState, viewer: int | None) -> set[str]:
    """Cards the viewer must not see: others' unshown hole cards and the undealt board."""
    hidden = {
        card_str(c)
        for p in range(state.players)
        if p != viewer and not state.shown[p]
        for c in state.hole[p]
    }
    hidden |= {card_str(c) for c in state.board[len(state.board_dealt) :]}
    return hidden


def check_invariants(state: HandState) -> None:
    total = sum(state.start_stacks)
    in_play = 0 if state.finished else sum(state.committed)
    assert sum(state.stacks) + in_play == total
    assert min(state.stacks) >= 0
    assert min(state.bets) >= 0
    for viewer in [None, *range(state.players)]:
        text = json.dumps(ENGINE.view(state, viewer))
        assert not any(f'"{card}"' in text for card in hidden_cards(state, viewer))


@HANDS
@given(seed=seeds, leave_rate=st.sampled_from([0.0, 0.04, 0.3]), capped=st.booleans())
def test_chips_conserved_no_leak_and_folded_never_paid(
    seed: int, leave_rate: float, capped: bool
) -> None:
    rng = random.Random(seed)
    spec = random_spec(rng, capped=capped)
    state = play_random(
        spec, rng, leave_rate=leave_rate, timeout_rate=0.03, on_state=check_invariants
    )
    result = ENGINE.outcome(state)
    assert sum(result.net) == 0
    for player in range(state.players):
        received = sum(p.amount for p in result.payments if p.payee == player)
        paid = sum(p.amount for p in result.payments if p.payer == player)
        assert received - paid == result.net[player]
        if state.folded[player]:
            assert received == 0
            assert state.stacks[player] == state.start_stacks[player] - state.committed[player]
            assert ENGINE.view(state, None)["shown"][player] is None


@HANDS
@given(seed=seeds)
def test_raises_respect_the_minimum_and_the_cap(seed: int) -> None:
    # given a random hand at a table with a raise cap
    rng = random.Random(seed)
    state = play_random(random_spec(rng, capped=True), rng)
    cap = state.max_raise * state.stake if state.max_raise else None
    assert cap is not None
    # then every raise is at least a full raise (or all-in) and at most the cap,
    # counted preflop from the full big blind even when it was posted short
    top, full, street = 0, state.big_blind_chips, "preflop"
    for record in state.log:
        if record["kind"] == "blind_posted":
            top = max(top, record["amount"])
            if record["blind"] == "big" and state.rules.short_blind_full_call:
                top = max(top, state.big_blind_chips)
        if record["kind"] == "board_dealt":
            top, full, street = 0, state.big_blind_chips, record["street"]
        if record["kind"] == "acted" and record["action"] == "raise":
            assert record["street"] == street
            increment = record["to"] - top
            assert increment <= cap
            assert increment >= full or record["all_in"]
            full = max(full, increment)
            top = record["to"]


@HANDS
@given(seed=seeds)
def test_public_events_show_no_hidden_card(seed: int) -> None:
    rng = random.Random(seed)
    spec = random_spec(rng)
    state, events = ENGINE.start(RULES, spec.deck, spec.players, spec.setup())
    while True:
        public = json.dumps([e.data for e in events if e.seat is None])
        assert not any(f'"{card}"' in public for card in hidden_cards(state, None))
        for event in events:
            if event.type == "dealt":
                assert event.data["cards"] == [card_str(c) for c in state.hole[event.seat or 0]]
        if state.finished:
            break
        player = state.to_act
        assert player is not None
        state, events = ENGINE.apply(state, player, random_action(state, rng))


@HANDS
@given(seed=seeds)
def test_states_round_trip_through_json(seed: int) -> None:
    rng = random.Random(seed)
    seen: list[HandState] = []
    play_random(random_spec(rng), rng, leave_rate=0.02, on_state=seen.append)
    state = rng.choice(seen)
    data = json.loads(json.dumps(ENGINE.dumps(state)))
    assert ENGINE.dumps(ENGINE.loads(data)) == ENGINE.dumps(state)


@HANDS
@given(seed=seeds, reveal_all=st.booleans())
def test_exported_phh_replays_to_the_same_stacks(seed: int, reveal_all: bool) -> None:
    rng = random.Random(seed)
    spec = random_spec(rng)
    state = play_random(spec, rng, timeout_rate=0.03)
    text = export_phh(state, reveal_all=reveal_all)
    # our importer replays the same hand
    again = import_phh(text)
    assert again.stacks == state.stacks
    assert again.log[1:] == state.log[1:]
    # pokerkit replays it too (it keeps odd chips and mucked-hand pots its own way)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, final = iter(HandHistory.loads(text))
    n = state.players
    theirs = [final.stacks[(p - state.button - 1) % n] for p in range(n)]
    live = [not f for f in state.folded]
    if sum(live) == 1:
        assert theirs == state.stacks
        return
    before = [s - won for s, won in zip(state.stacks, winnings(state), strict=True)]
    hands = [spec.deck[2 * p : 2 * p + 2] for p in range(n)]
    board = spec.deck[2 * n : 2 * n + 5]
    args = (before, state.committed, live, hands, board, state.button)
    assert state.stacks == expected_stacks(*args)
    assert theirs == expected_stacks(*args, pokerkit_rules=True)


def winnings(state: HandState) -> list[int]:
    won = [0] * state.players
    for record in state.log:
        if record["kind"] == "pot_awarded":
            for player, share in zip(record["winners"], record["shares"], strict=True):
                won[player] += share
    return won


@HANDS
@given(seed=seeds)
def test_hands_with_players_leaving_replay_in_our_importer(seed: int) -> None:
    rng = random.Random(seed)
    state = play_random(random_spec(rng), rng, leave_rate=0.08)
    again = import_phh(export_phh(state, reveal_all=True))
    assert again.stacks == state.stacks
    assert again.log[1:] == state.log[1:]
