"""The browser's ``applyDelta`` (static/js/delta.js) makes the same state of
the same state and delta as the server's ``games.protocol.apply_delta``, and
changes neither (its inputs are frozen). The pure modules (delta.js, socket.js
on a fake WebSocket) run under Node.js (conftest ``node``); the table's
receive() needs table.js, which draws on a document as it loads: that one runs
in Chromium on a blank page that serves the repository's modules (conftest
``blank``). No server needed."""

from __future__ import annotations

import pytest

from games.protocol import apply_delta

from ..deltas import cases, delta_for, state_with

APPLY_ALL = """async (cases) => {
  const { applyDelta } = await import("/static/js/delta.js");
  const freeze = (value) => {
    if (value && typeof value === "object") {
      Object.values(value).forEach(freeze);
      Object.freeze(value);
    }
    return value;
  };
  return cases.map(([state, delta]) => applyDelta(freeze(state), freeze(delta)));
}"""


def test_the_browser_applies_deltas_as_the_server_does(node):
    page, errors = node
    pairs = cases(11, 300)

    got = page.evaluate(APPLY_ALL, [list(pair) for pair in pairs])

    want = [apply_delta(state, delta) for state, delta in pairs]
    assert sum(w is None for w in want) == 6
    assert len(got) == len(want)
    for n, (js, py) in enumerate(zip(got, want, strict=True)):
        assert js == py, f"case {n}: {pairs[n]}"
    assert errors == []


# A socket.js Connection on a fake WebSocket, and the table's receive() on a
# shell that records what it applies: the messages of a hand in play, in turn.
WIRING = """async ([state, delta, other]) => {
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
  const { TableShell } = await import("/static/js/table.js");
  const shell = Object.create(TableShell.prototype);
  const applied = [];
  shell.state = null;
  shell.applyState = (s) => { shell.state = s; applied.push(s.v); };
  const onMessage = (m) => shell.receive(m);
  const conn = new Connection("/ws/tables/5/", { versioned: true, onMessage });
  shell.conn = conn;
  const ws = FakeSocket.last;
  ws.fire("open", {});
  const syncs = () => ws.sent.filter((m) => m.type === "sync").map((m) => m.v);
  const log = [];
  const step = (name, message) => {
    ws.fire("message", { data: JSON.stringify(message) });
    log.push([name, conn.version, [...applied], syncs()]);
  };
  const at = (v, base) => ({ ...delta, v, base });
  step("state", state);                           // v 7
  step("delta", delta);                           // 7 -> 8: applied
  step("the same delta", delta);                  // stale
  step("a gap", at(10, 9));                       // sync from 8
  step("another after the gap", at(11, 10));      // no second sync
  step("the answer", { ...state, v: 11, resync: true });
  step("next", at(12, 11));                       // applied
  step("another hand", { ...other, v: 13, base: 12 }); // does not apply: sync from 12
  return { log, view: shell.state.hand.view };
}"""


@pytest.mark.e2e
def test_the_socket_and_the_table_take_deltas_in_version_order(blank):
    page, errors = blank
    old, new = {"log": [1], "pot": 2}, {"log": [1, 3], "pot": 4}
    state, delta = state_with(old), delta_for(old, new)
    other = delta_for(old, new, hand_id=99)

    got = page.evaluate(WIRING, [state, delta, other])

    assert got["log"] == [
        ["state", 7, [7], []],
        ["delta", 8, [7, 8], []],
        ["the same delta", 8, [7, 8], []],
        ["a gap", 8, [7, 8], [8]],
        ["another after the gap", 8, [7, 8], [8]],
        ["the answer", 11, [7, 8, 11], [8]],
        ["next", 12, [7, 8, 11, 12], [8]],
        ["another hand", 12, [7, 8, 11, 12], [8, 12]],
    ]
    assert got["view"] == new
    assert errors == []


# The waits before each reconnect of a socket whose server keeps closing it.
RECONNECTS = """async () => {
  class FakeSocket {
    constructor(url) {
      Object.assign(this, { url, readyState: 1, sent: [], on: {} });
      FakeSocket.made += 1;
      FakeSocket.last = this;
    }
    addEventListener(type, fn) { (this.on[type] = this.on[type] || []).push(fn); }
    send(data) { this.sent.push(JSON.parse(data)); }
    fire(type, event) { for (const fn of this.on[type] || []) fn(event); }
  }
  FakeSocket.OPEN = 1;
  FakeSocket.made = 0;
  window.WebSocket = FakeSocket;
  const waits = [];
  window.setTimeout = (fn, ms) => { waits.push(ms); fn(); return 0; };
  const { Connection } = await import("/static/js/socket.js");
  new Connection("/ws/tables/5/", { versioned: true });
  for (let i = 0; i < 30; i++) FakeSocket.last.fire("close", { code: 1006 });
  return { waits, made: FakeSocket.made };
}"""


def test_a_socket_reconnects_after_a_growing_wait_that_differs_between_sockets(node):
    """Equal jitter: a wait is between half and all of the back-off (0.5 s,
    doubling to 8 s), so the sockets of a restarted server come back spread
    out, not in one wave."""
    page, errors = node

    got = page.evaluate(RECONNECTS)

    waits = got["waits"]
    assert got["made"] == 31
    backoffs = [min(500 * 2**n, 8000) for n in range(30)]
    assert all(b / 2 <= w <= b for w, b in zip(waits, backoffs, strict=True))
    assert len({round(w) for w in waits[-20:]}) > 10  # drawn, not all 8 s
    assert errors == []


# A socket whose pong does not come in time, or whose browser goes offline.
PONGS = """async () => {
  class FakeSocket {
    constructor(url) {
      Object.assign(this, { url, readyState: 1, sent: [], on: {}, closed: false });
      FakeSocket.made += 1;
      FakeSocket.last = this;
    }
    addEventListener(type, fn) { (this.on[type] = this.on[type] || []).push(fn); }
    send(data) { this.sent.push(JSON.parse(data)); }
    close() { this.closed = true; }  // (a dead network: no close event comes)
    fire(type, event) { for (const fn of this.on[type] || []) fn(event); }
  }
  FakeSocket.OPEN = 1;
  FakeSocket.made = 0;
  window.WebSocket = FakeSocket;
  const timers = new Map();
  let nextId = 1;
  window.setTimeout = (fn, ms) => { timers.set(nextId, { fn, ms }); return nextId++; };
  window.clearTimeout = (id) => { timers.delete(id); };
  window.setInterval = () => 0;
  const listeners = {};
  window.addEventListener = (type, fn) => { listeners[type] = fn; };
  const run = (test) => {  // the pending timers whose delay passes the test, once
    for (const [id, t] of [...timers]) if (test(t.ms)) { timers.delete(id); t.fn(); }
  };
  const statuses = [];
  const { Connection } = await import("/static/js/socket.js");
  const conn = new Connection("/ws/tables/5/", { onStatus: (s) => statuses.push(s) });
  const first = FakeSocket.last;
  first.fire("open");
  const pingsSent = first.sent.filter((m) => m.type === "ping").length;
  // The pong comes: nothing happens when its time-out would have run.
  first.fire("message", { data: JSON.stringify({ type: "pong", t: 1, server_time: 1 }) });
  run((ms) => ms === 6000);
  const afterPong = { made: FakeSocket.made, statuses: [...statuses] };
  // The next ping gets no answer within 6 s: lost, a new socket after the back-off.
  conn.ping();
  const waits = [...timers.values()].map((t) => t.ms);
  run((ms) => ms === 6000);
  const lostStatuses = [...statuses];
  run((ms) => ms <= 500);  // the back-off's wait
  const second = FakeSocket.last;
  // Its late close event changes nothing.
  first.fire("close", { code: 1006 });
  second.fire("open");
  // The browser goes offline: lost at once.
  listeners.offline();
  return {
    pingsSent, afterPong, waits, lostStatuses, firstClosed: first.closed,
    made: FakeSocket.made, statuses, secondClosed: second.closed,
  };
}"""


def test_a_socket_without_a_pong_in_time_shows_the_banner_and_reconnects(node):
    """Issue 33: a frozen server or a dead network is noticed within a few
    seconds of a ping (PONG_TIMEOUT_MS, 6 s), not when TCP gives up."""
    page, errors = node

    got = page.evaluate(PONGS)

    assert got["pingsSent"] == 1  # (at its opening)
    assert got["afterPong"] == {"made": 1, "statuses": ["connecting", "open"]}
    assert 6000 in got["waits"]
    assert got["lostStatuses"][-1] == "reconnecting"
    assert got["firstClosed"] is True
    assert got["made"] == 2
    assert got["statuses"] == [
        "connecting", "open", "reconnecting", "connecting", "open", "reconnecting"
    ]  # fmt: skip
    assert got["secondClosed"] is True  # offline: dropped at once
    assert errors == []
