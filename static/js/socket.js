// A WebSocket that reconnects by itself (backing off up to 8 s, each wait
// drawn between half and all of it, so that the sockets of a restarted server
// do not all come back in the same instant), pings every
// 15 s (a socket that hears nothing, not even the pong, within PONG_TIMEOUT_MS
// of a ping is taken as lost at once: the banner shows and it reconnects, as
// it does when the browser goes offline, instead of waiting for TCP to notice
// a frozen server or a dead network), keeps the server's clock offset, and after a reconnect or a version gap
// asks for a `sync` from the last version it applied (docs/protocol.md).
// Versioned sockets pass on `state` and `delta` messages in version order: a
// stale one is dropped, and so is a delta for a version other than the one
// held (a gap: it asks for a `sync` instead). Whoever applies a delta that
// still does not apply calls `sync(v)` with the version it holds.
// A move (`act`) answered `server_error` or `busy` (nothing was done) is sent
// again with the same client id, which the server does at most once.

import { _ } from "./i18n.js";

const PING_MS = 15000;
// The answers that mean "nothing was done: send it again" (docs/protocol.md
// "Staying in step"), and how many times a move is sent again.
const RESEND_CODES = new Set(["server_error", "busy"]);
const RESENDS = 3;
const PONG_TIMEOUT_MS = 6000;

// Between half and all of the back-off ("equal jitter").
function reconnectDelay(backoff) {
  return backoff / 2 + Math.random() * (backoff / 2);
}

export class Connection {
  constructor(path, { onMessage = () => {}, onStatus = () => {}, versioned = false } = {}) {
    this.path = path;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.versioned = versioned;
    this.version = 0;
    this.offset = 0;
    this.backoff = 500;
    this.counter = 0;
    this.prefix = Math.random().toString(36).slice(2, 8);
    this.closedForGood = false;
    this.syncing = null; // the version a sync was asked from, until a state comes
    this.moves = new Map(); // client id -> {message, resent}: moves not yet answered
    this.opens = 0; // connections opened so far
    this.pongTimer = null;
    if (typeof window.addEventListener === "function") {
      window.addEventListener("offline", () => this.lost(this.ws));
    }
    this.connect();
  }

  url() {
    return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${this.path}`;
  }

  connect() {
    this.onStatus(this.version ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.opens += 1;
      this.backoff = 500;
      this.onStatus("open");
      this.syncing = null;
      if (this.versioned && this.version) this.sync();
      this.ping();
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.ping(), PING_MS);
    });
    ws.addEventListener("message", (event) => {
      if (this.ws === ws) this.heard();
      this.receive(event.data);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.dropMoves();
      this.stopTimers();
      if (event.code === 4403 || event.code === 4404 || this.closedForGood) {
        this.onStatus("refused", event.code);
        return;
      }
      this.retry();
    });
  }

  /** The socket went before these moves were answered: they are not sent
   * again blindly (after the reconnect, the state says what was done), and
   * the player is told at once, as for a move refused (issue 32 item 2),
   * with the move's id and the code "connection_lost". */
  dropMoves() {
    const unanswered = [...this.moves.keys()];
    this.moves.clear();
    for (const id of unanswered) {
      this.onMessage({
        type: "error", id, code: "connection_lost",
        message: _("The connection went before your move was answered: the table shows whether it was done once it is back."),
      });
    }
  }

  stopTimers() {
    clearInterval(this.pinger);
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
  }

  retry() {
    this.onStatus("reconnecting");
    setTimeout(() => this.connect(), reconnectDelay(this.backoff));
    this.backoff = Math.min(this.backoff * 2, 8000);
  }

  /** The socket is taken as gone (no pong in time, or the browser went
   * offline): it is dropped without waiting for its close, whose event is
   * then ignored, and a new one is opened after the back-off. */
  lost(ws) {
    if (!ws || this.ws !== ws || this.closedForGood) return;
    this.ws = null;
    this.dropMoves();
    this.stopTimers();
    try {
      ws.close();
    } catch {
      // (closing a socket that never opened)
    }
    this.retry();
  }

  /** Anything the server sends shows the socket is alive. */
  heard() {
    clearTimeout(this.pongTimer);
    this.pongTimer = null;
  }

  ping() {
    const ws = this.ws;
    if (this.send({ type: "ping", t: Date.now() }) && this.pongTimer === null) {
      this.pongTimer = setTimeout(() => this.lost(ws), PONG_TIMEOUT_MS);
    }
  }

  receive(raw) {
    let message;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    if (message.type === "pong" && typeof message.t === "number") {
      const now = Date.now();
      this.offset = message.server_time - (message.t + now) / 2;
      this.synced = true;
      return;
    }
    if (message.id && this.moves.has(message.id) && (message.type === "ack" || message.type === "error")) {
      const move = this.moves.get(message.id);
      if (message.type === "error" && RESEND_CODES.has(message.code) && move.resent < RESENDS) {
        const wait = reconnectDelay(500 * 2 ** move.resent);
        move.resent += 1;
        setTimeout(() => {
          if (this.moves.get(message.id) !== move) return;
          if (!this.send(move.message)) {
            this.moves.delete(message.id);
            this.onMessage(message); // still not done, and now offline: say so
          }
        }, wait);
        return;
      }
      this.moves.delete(message.id);
    }
    if (message.type === "state") {
      if (!this.synced) this.offset = message.server_time - Date.now();
      if (message.v < this.version) return; // stale
      if (this.version && message.v > this.version + 1 && !message.resync) {
        this.send({ type: "sync", v: this.version }); // a gap: fetch the missed events
      }
      this.version = message.v;
      this.syncing = null;
    } else if (message.type === "delta") {
      if (!this.synced) this.offset = message.server_time - Date.now();
      if (message.v <= this.version) return; // stale
      if (message.base !== this.version) {
        this.sync(); // a gap: it does not apply to what we hold
        return;
      }
      this.version = message.v;
    }
    this.onMessage(message);
  }

  /** Ask for the full state (and the events missed) after version `v`, the one
   * held: once per version held, until a state comes. */
  sync(v = this.version) {
    this.version = v;
    if (this.syncing === v) return;
    if (this.send({ type: "sync", v })) this.syncing = v;
  }

  /** Milliseconds since the epoch on the server's clock. */
  now() {
    return Date.now() + this.offset;
  }

  nextId() {
    this.counter += 1;
    return `${this.prefix}-${this.counter}`;
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send a move (`act`) with a fresh client id, and send it again with the
   * same id when it is answered `server_error` or `busy`: up to 3 times,
   * after about 0.5, 1 and 2 s. Returns the id (or null when offline). */
  act(message) {
    const id = this.nextId();
    const sent = { ...message, type: "act", id };
    if (!this.send(sent)) return null;
    this.moves.set(id, { message: sent, resent: 0 });
    return id;
  }

  /** Send an action with a fresh client id; returns the id (or null when offline). */
  request(message) {
    const id = this.nextId();
    return this.send({ ...message, id }) ? id : null;
  }
}
