"""Migration 0015: hands stored with the events' old names (``hand_start``,
``deal``, ``new_round``, ``reveal``...) read with the one naming scheme,
history, replays and Hold'em logs alike."""

import importlib

import pytest

from games import selectors
from games.models import Hand, HandEvent

from .migrating import back_at
from .services.driver import play_until_finished, ready_all, seated_table

migration = importlib.import_module("games.migrations.0016_one_event_naming")
BEFORE, AFTER = "0015_invitation", "0016_one_event_naming"

pytestmark = pytest.mark.django_db(transaction=True)


def stored(hand: Hand) -> tuple[list[tuple[int, str, dict]], dict]:
    events = HandEvent.objects.filter(hand=hand).order_by("seq")
    # (only the columns every migration here has: a later one's are not there yet)
    state = Hand.objects.only("state").get(pk=hand.pk).state
    return [(e.seq, e.type, e.payload) for e in events], state


@pytest.mark.parametrize("game", sorted(migration.RENAMED))
def test_a_hand_stored_under_the_old_names_reads_as_the_new(game, tables, make_user):
    table, _users = seated_table(make_user, game, humans=1, bots=1)
    ready_all(table)
    hand = play_until_finished(tables, table)
    events, state = stored(hand)
    names = {t for _, t, _ in events}
    renamed = migration.RENAMED[game]
    assert names & set(renamed.values())  # (the hand made some of the renamed events)

    with back_at("games", BEFORE) as forward:
        old_events, old_state = stored(hand)
        old_names = {t for _, t, _ in old_events}
        assert not old_names & set(renamed.values()) - {"hand_finished"}
        assert old_names & set(renamed)
        if game == "tienlen":  # (the engine's first event had the table's name)
            assert [t for _, t, _ in old_events].count("hand_started") == 2
        if "log" in state:
            assert {r["kind"] for r in old_state["log"]} <= set(renamed)
        forward(AFTER)

    assert stored(hand) == (events, state)
    _rows, steps = selectors.hand_replayed(Hand.objects.get(pk=hand.pk))
    assert steps[-1].state is not None


def test_a_holdem_log_is_renamed_record_by_record():
    names = migration.RENAMED["holdem"]
    state = {"log": [{"kind": "hand_start", "players": 2}, {"kind": "pot", "index": 0}], "x": 1}
    assert migration._log(state, names) == {
        "log": [{"kind": "hand_dealt", "players": 2}, {"kind": "pot_awarded", "index": 0}],
        "x": 1,
    }
    assert migration._log({"log": [{"kind": "acted"}]}, names) is None  # already new
    assert migration._log({"turn": 0}, names) is None  # not a Hold'em state
