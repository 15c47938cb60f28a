"""Issue 33 item 5: a Mậu Binh arrangement lost with a dying process (the
state after the reconnect shows no submission, or an older one) is sent again
by the browser, once per connection, and never when the server has it.
static/js/games/maubinh.js's ``mine`` on a fake table context in Chromium
(conftest ``blank``: it draws)."""

from __future__ import annotations

import pytest

CARDS = ["As", "Ad", "Ac", "Ah", "Ks", "Kd", "Qs", "Qd", "Js", "9c", "8c", "7c", "2d"]
FIRST = {"chi1": CARDS[:5], "chi2": CARDS[5:10], "chi3": CARDS[10:]}
OTHER = {"chi1": CARDS[5:10], "chi2": CARDS[:5], "chi3": CARDS[10:]}

RUN = """async ([cards, other, steps]) => {
  const { default: game } = await import("/static/js/games/maubinh.js");
  const sent = [];
  const ctx = (opens, submission) => ({
    view: {
      phase: "arrange", reveal_step: 0,
      seats: [{ left: false, submitted: !!submission }, { left: false, submitted: false }],
      own: {
        cards, submission, lung: null, instant: null, hints: [], instant_arrangement: null,
        suggestion: { chi1: cards.slice(0, 5), chi2: cards.slice(5, 10), chi3: cards.slice(10) },
      },
    },
    table: { status: "playing" }, hand: { id: 5 }, me: 0, opens,
    config: { rules: {} }, shell: { render() {} },
    act: (action, options) => sent.push(action),
  });
  const log = [];
  for (const [what, opens, submission] of steps) {
    const node = game.mine(ctx(opens, submission));
    if (what === "submit") node.querySelector("[data-action=submit]").click();
    log.push(sent.length);
  }
  return { log, sent };
}"""


@pytest.mark.e2e
def test_a_lost_arrangement_is_sent_again_on_the_next_connection_once(blank):
    page, errors = blank
    steps = [
        ["draw", 1, None],
        ["submit", 1, None],  # sent on connection 1
        ["draw", 1, None],  # a state on the same connection, before the ack: no resend
        ["draw", 2, None],  # reconnected, the server has none: sent again
        ["draw", 2, None],  # once per connection
        ["draw", 3, OTHER],  # an older submission: sent again
        ["draw", 4, FIRST],  # the server has it: nothing
        ["draw", 5, None],  # and nothing more after that
    ]
    got = page.evaluate(RUN, [CARDS, OTHER, steps])
    assert got["log"] == [0, 1, 1, 2, 2, 3, 3, 3]
    assert all(
        {k: a[k] for k in ("chi1", "chi2", "chi3")} == FIRST and a["type"] == "submit"
        for a in got["sent"]
    )
    assert errors == []
