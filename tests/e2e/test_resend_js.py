"""Issue 33 item 5: the browser sends a move again, with the same client id,
when the server answers that nothing was done (``server_error``, ``busy``:
docs/protocol.md "Staying in step"), and only then. socket.js's Connection on
a fake WebSocket under Node.js (conftest ``node``), its timers run by hand."""

from __future__ import annotations

RESEND = """async (answers) => {
  const timers = new Map();
  let made = 0;
  window.setTimeout = (fn, ms) => { made += 1; timers.set(made, [fn, ms]); return made; };
  window.clearTimeout = (id) => { timers.delete(id); };
  window.setInterval = () => 0;
  class FakeSocket {
    constructor(url) {
      Object.assign(this, { url, readyState: 1, sent: [], on: {} });
      FakeSocket.last = this;
    }
    addEventListener(type, fn) { (this.on[type] = this.on[type] || []).push(fn); }
    send(data) { this.sent.push(JSON.parse(data)); }
    fire(type, event) { for (const fn of this.on[type] || []) fn(event); }
  }
  FakeSocket.OPEN = 1;
  window.WebSocket = FakeSocket;
  const { Connection } = await import("/static/js/socket.js");
  const passed = [];
  const conn = new Connection("/ws/tables/5/", { onMessage: (m) => passed.push(m) });
  const ws = FakeSocket.last;
  ws.fire("open", {});
  const id = conn.act({ action: { type: "pass" }, v: 9 });
  const waits = [];
  for (const answer of answers) {
    ws.fire("message", { data: JSON.stringify({ ...answer, id }) });
    // (the server's answer also stops the ping's wait for a pong)
    while (timers.size) {
      const [id, [fn, ms]] = timers.entries().next().value;
      timers.delete(id);
      waits.push(ms);
      fn();
    }
  }
  const moves = ws.sent.filter((m) => m.type === "act");
  return { id, moves, waits, passed: passed.map((m) => m.code || m.type) };
}"""

ERROR = {"type": "error", "code": "server_error", "message": "..."}


def test_a_move_answered_server_error_or_busy_is_sent_again_with_its_id(node):
    page, errors = node
    answers = [ERROR, {**ERROR, "code": "busy"}, {"type": "ack", "v": 10}]

    got = page.evaluate(RESEND, answers)

    assert len(got["moves"]) == 3
    assert {m["id"] for m in got["moves"]} == {got["id"]}
    assert all(m == got["moves"][0] for m in got["moves"])
    assert got["moves"][0]["action"] == {"type": "pass"}
    assert got["moves"][0]["v"] == 9
    # backing off (each wait between half and all of 0.5 s, then 1 s)
    assert 250 <= got["waits"][0] <= 500
    assert 500 <= got["waits"][1] <= 1000
    # the table sees only the answer that counts
    assert got["passed"] == ["ack"]
    assert errors == []


def test_a_move_refused_by_the_rules_is_not_sent_again(node):
    page, errors = node
    got = page.evaluate(RESEND, [{**ERROR, "code": "not_your_turn"}])
    assert len(got["moves"]) == 1
    assert got["passed"] == ["not_your_turn"]
    assert errors == []


def test_a_move_is_sent_again_three_times_at_most(node):
    page, errors = node
    got = page.evaluate(RESEND, [ERROR] * 4)
    assert len(got["moves"]) == 4
    assert got["passed"] == ["server_error"]
    assert errors == []
