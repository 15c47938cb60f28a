"""The Hold'em browser module (static/js/games/holdem.js) tells an ante
posted in the replay's event list, as it tells a blind (under Node.js:
tests/jsnode.py)."""

from __future__ import annotations

from tests.jsnode import NodePage

DESCRIBE = """async (events) => {
  globalThis.document = { documentElement: { lang: "vi" } };
  const game = (await import("/static/js/games/holdem.js")).default;
  const name = (p) => `P${p}`;
  return events.map((e) => game.replay.describe(e, name));
}"""


def test_the_replay_tells_antes_and_blinds() -> None:
    page = NodePage()
    told = page.evaluate(
        DESCRIBE,
        [
            {"type": "ante_posted", "player": 1, "amount": 2500, "all_in": False},
            {"type": "blind_posted", "player": 2, "blind": "big", "amount": 200, "all_in": False},
        ],
    )
    assert page.errors == []
    assert told == ["P1: ante 2.500", "P2: BB 200"]
