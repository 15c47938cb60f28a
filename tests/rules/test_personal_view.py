"""A seat's view is the spectators' with its own keys over it
(``GameEngine.personal_view``), and a move's patch for each seat comes from
one spectator patch (``games.protocol.personal_patch``): the same patch as
comparing the seat's whole views before and after, for every state of hands
played with moves, time-outs and leavers, in each game. The shortcuts the
Tiến Lên views and saved states take give what the long way gives."""

from __future__ import annotations

import itertools
import random

import pytest

from games.protocol import personal_patch, view_patch
from games.rules.errors import RulesError
from games.rules.tienlen import view as tienlen_view
from games.rules.tienlen.moves import check_play, legal_plays
from games.rules.tienlen.order import parse_saved_tl, parse_tl, tl_strs
from games.rules.tienlen.types import COMBINATIONS

from .test_replay import GAMES, play_live


def normal(patch: dict) -> dict:
    """A patch with its ``unset`` keys in one order (they are a set)."""
    return {**patch, "unset": sorted(patch["unset"])} if "unset" in patch else patch


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", range(8))
def test_every_seat_s_view_and_patch_come_from_the_spectators(game: str, seed: int) -> None:
    # given every state of a hand played live
    deal, states, _, extra = play_live(game, seed)
    engine = extra["engine"]
    players = range(deal["players"])
    for before, after in itertools.pairwise(states):
        old, new = engine.view(before, None), engine.view(after, None)
        common = view_patch(old, new)
        for p in players:
            # then a seat's view is the spectators' with its own over it
            own = engine.personal_view(after, p)
            assert engine.view(after, p) == {**new, **own}
            assert own["you"] == p
            # and its patch from one spectator patch is the whole views' patch
            mine = personal_patch(common, old, new, engine.personal_view(before, p), own)
            whole = view_patch(engine.view(before, p), engine.view(after, p))
            assert normal(dict(mine)) == normal(dict(whole))
        # and spectators see no seat's own cards
        assert new.get("you") is None
        assert not {"own"} & new.keys()
        assert new.get("hand") is None
        assert new.get("hole") is None


@pytest.mark.parametrize("seed", range(30))
def test_tienlen_hints_are_the_legal_plays_named_and_their_cards(seed: int) -> None:
    # given the states of a Tiến Lên hand (leads, follows, the first lead with 3♠)
    _, states, _, _ = play_live("tienlen", seed)
    for state in states:
        if state.finished or state.turn is None:
            continue
        # when the player to act is shown the hints
        hints = tienlen_view._hints(state, state.turn)
        # then they are every card of some legal play (leads: every card)
        plays = legal_plays(
            state.hands[state.turn], state.table_combo, state.rules, state.must_include
        )
        assert hints is not None
        assert hints["cards"] == tl_strs(sorted({c for p in plays for c in p}))
        # and the plays are the legal plays, each named as the validator names it
        hand = state.hands[state.turn]
        assert [p["cards"] for p in hints["plays"]] == [tl_strs(p) for p in plays]
        for play in hints["plays"]:
            cards = parse_tl(play["cards"])
            combo = check_play(hand, cards, state.table_combo, state.rules, state.must_include)
            assert play["combination"] == combo.kind
            assert play["combination"] in COMBINATIONS


@pytest.mark.parametrize("seed", range(6))
def test_a_tienlen_history_grown_from_the_last_one_is_the_one_built_anew(seed: int) -> None:
    # given the states of a hand, each history shown after the one before it
    _, states, _, _ = play_live("tienlen", seed)
    shown = [tienlen_view._history_json(s.history) for s in states]
    # when they are built again with nothing kept
    tienlen_view._HISTORIES.clear()
    tienlen_view._ENDING.clear()
    fresh = [[tienlen_view._move_json(m) for m in s.history] for s in states]
    # then they are the same lists
    assert shown == fresh


@pytest.mark.parametrize(
    "items",
    [
        ["3s", "Kh", "2c"],
        [],
        ["10s"],  # not the name tl_strs writes (T): read as parse_tl reads it
        [" 3s"],
        ["3s", "3s"],  # repeated
        ["3x"],  # no such card
        "3s",  # not a list
        [3],
        None,
    ],
)
def test_saved_card_names_read_as_parse_tl_reads_them(items: object) -> None:
    # when a saved state's card list is read the short way and the long way
    def read(parse: object) -> object:
        try:
            return parse(items)  # type: ignore[operator]
        except RulesError as exc:
            return (exc.code, str(exc))

    # then both give the same cards, or the same error
    assert read(parse_saved_tl) == read(parse_tl)


def test_saved_card_names_are_sorted_like_parse_tl() -> None:
    rng = random.Random(5)
    names = tl_strs(range(52))
    for _ in range(200):
        items = rng.sample(names, rng.randint(0, 13))
        assert parse_saved_tl(items) == parse_tl(items)
