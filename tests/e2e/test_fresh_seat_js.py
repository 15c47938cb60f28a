"""Issue 32 item 3: a fresh seat shows a clean felt. Sitting down after a hand
one was not dealt in, its cards and result are not drawn at the new seat
(until the next deal); a spectator still sees them, and so does a player who
was in it. TableShell.applyState/ctx on a blank page in Chromium (conftest
``blank``), drawing stubbed."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

RUN = """async (steps) => {
  const { TableShell } = await import("/static/js/table.js");
  const shell = Object.create(TableShell.prototype);
  Object.assign(shell, {
    state: null, lastSeq: {}, summaryHidden: null, notMine: null, removed: null,
    pressing: false, config: {}, conn: { now: () => 0, opens: 1 },
    game: { events() {} }, feel: { changed() {} },
  });
  shell.render = () => {};
  shell.sendSeed = () => {};
  const players = [{ position: 0, user_id: 7, name: "B" }];
  const hand = (id, finished) => ({ id, number: id, finished, players, view: {} });
  const out = [];
  for (const [seat, you, id, finished] of steps) {
    shell.applyState({
      type: "state", v: out.length + 1, seat, you, actors: [], events: [],
      table: { id: 5, status: "summary", seats: [] }, hand: id ? hand(id, finished) : null,
    });
    const ctx = shell.ctx;
    out.push([ctx.hand ? ctx.hand.id : null, shell.summaryHidden]);
  }
  return out;
}"""


def test_a_fresh_seat_shows_a_clean_felt_until_the_next_deal(blank):
    page, errors = blank
    got = page.evaluate(
        RUN,
        [
            [None, None, 4, True],  # watching: hand 4 is over, its result shown
            [2, None, 4, True],  # I sit down: hand 4 was not mine
            [2, None, 4, True],  # (a later state of the same)
            [2, 1, 5, False],  # the next deal: drawn
            [2, 1, 5, True],  # and its end, which was mine
        ],
    )
    assert got == [[4, None], [None, 4], [None, 4], [5, 4], [5, 4]]
    assert errors == []


def test_a_player_who_was_in_the_hand_still_sees_it(blank):
    page, errors = blank
    got = page.evaluate(RUN, [[None, None, 4, True], [2, 0, 4, True]])
    assert got == [[4, None], [4, None]]
    assert errors == []
