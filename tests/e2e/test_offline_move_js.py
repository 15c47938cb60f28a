"""Issue 32 item 2: a move whose socket goes before its answer (the browser
went offline, or no pong came) is refused visibly at once, with its id and
the code ``connection_lost``, and not sent again blindly on the next socket
(the state after the reconnect says whether it was done: docs/protocol.md
"Staying in step"). socket.js's Connection on a fake WebSocket under Node.js
(conftest ``node``), its timers run by hand."""

from __future__ import annotations

LOST = """async (how) => {
  const timers = [];
  window.setTimeout = (fn, ms) => { timers.push([fn, ms]); return timers.length; };
  window.clearTimeout = () => {};
  window.setInterval = () => 0;
  window.clearInterval = () => {};
  const listeners = {};
  window.addEventListener = (type, fn) => { (listeners[type] = listeners[type] || []).push(fn); };
  class FakeSocket {
    constructor(url) {
      Object.assign(this, { url, readyState: 1, sent: [], on: {} });
      FakeSocket.all.push(this);
    }
    addEventListener(type, fn) { (this.on[type] = this.on[type] || []).push(fn); }
    send(data) { this.sent.push(JSON.parse(data)); }
    close() { this.readyState = 3; }
    fire(type, event) { for (const fn of this.on[type] || []) fn(event); }
  }
  FakeSocket.all = [];
  FakeSocket.OPEN = 1;
  window.WebSocket = FakeSocket;
  const { Connection } = await import("/static/js/socket.js");
  const passed = [];
  const conn = new Connection("/ws/tables/5/", { onMessage: (m) => passed.push(m) });
  const first = FakeSocket.all[0];
  first.fire("open", {});
  const id = conn.act({ action: { type: "fold" }, v: 4 });
  if (how === "offline") for (const fn of listeners.offline) fn();
  else first.fire("close", { code: 1006 });
  const refusedAtOnce = passed.map((m) => [m.type, m.id, m.code]);
  // the back-off's reconnect: a new socket, which opens
  for (const [fn] of timers.splice(0)) fn();
  const second = FakeSocket.all[FakeSocket.all.length - 1];
  second.fire("open", {});
  const offlineAct = conn.act({ action: { type: "check" }, v: 4 }) !== null;
  return {
    id, refusedAtOnce, sockets: FakeSocket.all.length,
    resent: second.sent.filter((m) => m.type === "act").map((m) => m.id),
    offlineAct,
  };
}"""


def test_a_move_lost_with_its_socket_is_refused_visibly_not_resent(node):
    page, errors = node
    for how in ("offline", "closed"):
        got = page.evaluate(LOST, how)
        assert got["refusedAtOnce"] == [["error", got["id"], "connection_lost"]], how
        assert got["sockets"] == 2, how
        # not sent again on the new socket (only the move made on it)
        assert got["id"] not in got["resent"], how
        assert len(got["resent"]) == 1, how
        assert got["offlineAct"], how
    assert errors == []
