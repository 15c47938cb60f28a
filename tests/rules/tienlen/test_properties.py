"""Hypothesis properties: the move generator agrees with the validator; random games end,
conserve the cards, settle zero-sum, round-trip through JSON and never leak hidden cards."""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.errors import RulesError
from games.rules.tienlen.combos import Play, classify
from games.rules.tienlen.engine import ENGINE
from games.rules.tienlen.moves import check_play, legal_plays
from games.rules.tienlen.order import tl_strs, to_tl
from games.rules.tienlen.rules import ruleset

from .support import deal, random_action, shuffled_deck

RULES = ruleset("vipgame", {})


def _accepted(hand: Play, cards: Play, table: object, must: int | None) -> bool:
    try:
        check_play(hand, cards, table, RULES, must)  # type: ignore[arg-type]
    except RulesError:
        return False
    return True


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(1, 13),
    table_pick=st.integers(0, 10_000),
    leading=st.booleans(),
    must=st.booleans(),
    narrow=st.booleans(),
)
def test_generated_plays_are_exactly_the_accepted_ones(
    seed: int, size: int, table_pick: int, leading: bool, must: bool, narrow: bool
) -> None:
    # given a random hand and a random combination on the table (from another hand);
    # "narrow" deals from six ranks and the 2s only, so pairs, bombs and chops abound
    deck = [to_tl(c) for c in shuffled_deck(seed)]
    if narrow:
        low = seed % 7
        deck = [c for c in deck if low <= c >> 2 < low + 6 or c >> 2 == 12]
    hand = tuple(sorted(deck[:size]))
    other = legal_plays(sorted(deck[13:26]), None, RULES)
    table = None if leading else classify(other[table_pick % len(other)])
    must_include = hand[0] if must and leading else None
    # when every play is generated
    generated = legal_plays(hand, table, RULES, must_include)
    # then each is distinct and accepted, and every accepted subset was generated
    assert len(set(generated)) == len(generated)
    accepted = {
        cards
        for n in range(1, size + 1)
        for cards in combinations(hand, n)
        if _accepted(hand, cards, table, must_include)
    }
    assert set(generated) == accepted


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.integers(2, 4),
    three_spades=st.booleans(),
    cong=st.sampled_from([0, 26]),
    leaver=st.integers(-1, 3),
    final_round_only=st.booleans(),
)
def test_random_games_end_conserve_cards_and_settle_zero_sum(
    seed: int, players: int, three_spades: bool, cong: int, leaver: int, final_round_only: bool
) -> None:
    # given a deal and players making uniformly random legal moves (one may leave)
    options = {
        "first_lead": "three_spades" if three_spades else "random",
        "cong_penalty": cong,
        "chan_ket_final_round_only": final_round_only,
    }
    state, _ = deal(seed, players, options)
    dealt = sorted(to_tl(c) for c in shuffled_deck(seed)[: 13 * players])
    rng = random.Random(seed)
    for step in range(52 * players):
        # then the dealt cards are always in hands or played, never anywhere else
        played = [c for m in state.history for c in m.cards]
        assert sorted([c for h in state.hands for c in h] + played) == dealt
        assert ENGINE.loads(ENGINE.dumps(state)) == state
        if state.finished:
            break
        if step == 5 and 0 <= leaver < players:
            state, _ = ENGINE.leave(state, leaver)
            continue
        assert state.turn is not None
        state, _ = ENGINE.apply(state, state.turn, random_action(state, rng))
    # and the game has ended with a zero-sum result and positive payments
    assert state.finished
    result = ENGINE.outcome(state)
    assert sum(result.net) == 0
    assert all(p.amount > 0 and p.payer != p.payee for p in result.payments)
    assert state.winner is not None
    assert result.net[state.winner] >= 0 or any(p.reason == "chop" for p in result.payments)
    # and under chặn kết 3 bích a loser out of the final round pays only its chops
    if final_round_only and any(p.reason == "chan_ket_3_bich" for p in result.payments):
        final = {m.player for m in state.history if m.round == state.round and m.cards}
        blocked = {p.payer for p in result.payments if p.reason == "chan_ket_3_bich"}
        for loser in set(range(players)) - final - blocked:
            assert all(p.reason == "chop" for p in result.payments if p.payer == loser)
            assert not any(p.payee == loser and p.reason != "chop" for p in result.payments)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_views_never_show_hidden_cards(seed: int, players: int) -> None:
    # given a game in progress
    state, _ = deal(seed, players)
    rng = random.Random(seed)
    undealt = set(tl_strs(to_tl(c) for c in shuffled_deck(seed)[13 * players :]))
    while not state.finished:
        # when each seat (and a spectator) looks at it
        for seat in [None, *range(players)]:
            text = str(ENGINE.view(state, seat))
            hidden = {
                card
                for other in range(players)
                if other != seat
                for card in tl_strs(state.hands[other])
            } | undealt
            # then no other player's card in hand, and no undealt card, appears
            assert not any(f"'{card}'" in text for card in hidden)
        assert state.turn is not None
        state, _ = ENGINE.apply(state, state.turn, random_action(state, rng))
