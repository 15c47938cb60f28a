// The table shell shared by the three games: seats around the felt, clocks,
// chat, the reconnecting banner, sit / ready / leave, the fairness panel and
// the summary. Each game module draws its own parts (static/js/games/*.js).
import { h, replace, svg, $ } from "./dom.js";
import { _, fmt, chips, signed } from "./i18n.js";
import { Connection } from "./socket.js";
import { applyDelta } from "./delta.js";
import { showBalance } from "./balance.js";
import { verifyHand } from "./fairness.js";
import { cardRow } from "./cards.js";
import { answered, autoReadySwitch, leaveControls, removedNotice, seatHints } from "./seatflow.js";
import { Feel } from "./feel.js";
import { mountScreen } from "./screen.js";
import { resultCard } from "./result.js";
import { icon } from "./icons.js";
import { seatAvatar, showProfile } from "./profile.js";
import { reportAcked, reportButton } from "./chatreport.js";
import { LiveRegion, installShortcuts, keepFocus, shortcut } from "./access.js";

const RING = 2 * Math.PI * 46;
const PHRASES = [
  "Xin chào cả bàn!", "Nhanh lên nào!", "Bài đẹp quá!", "Hay lắm!", "Thua rồi 😅",
  "Chơi tiếp nhé!", "Cảm ơn!", "Chúc may mắn!",
];
const EMOJI = ["😀", "😂", "😎", "😡", "😭", "👍", "👏", "🔥", "🍀", "💰"];

// A fresh random seed for each hand (docs/fairness.md): 16 bytes from the
// browser's CSPRNG, sent as soon as the table publishes the next commitment.
function randomSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class TableShell {
  constructor(root, config, game) {
    this.root = root;
    this.config = config;
    this.game = game;
    this.state = null;
    this.lastSeq = {};
    this.clientSeed = randomSeed();
    this.seedFor = null; // the commitment this.clientSeed was sent for
    this.seedId = null;
    this.summaryHidden = null;
    this.notMine = null; // a finished hand I sat down after (not drawn)
    // A tap in progress: the server's updates wait for it (see holdWhilePressed).
    this.pressing = false;
    this.held = null;
    this.live = new LiveRegion();
    this.build();
    this.holdWhilePressed();
    installShortcuts(root);
    this.feel = new Feel(this);
    const query = config.invite ? `?invite=${encodeURIComponent(config.invite)}` : "";
    this.conn = new Connection(`/ws/tables/${config.table}/${query}`, {
      versioned: true,
      onMessage: (m) => this.receive(m),
      onStatus: (s, code) => this.connectionStatus(s, code),
    });
    for (const message of config.chat || []) this.chatLine(message);
    setInterval(() => this.tick(), 250);
  }

  // -- layout --------------------------------------------------------------

  build() {
    const r = this.root;
    this.banner = h("div", { class: "banner", hidden: true, role: "status", "data-banner": "" });
    this.statusLine = h("div", { class: "status-line", "data-status": "" });
    this.felt = h("div", { class: "felt", "data-felt": "" });
    this.center = h("div", { class: "center", "data-center": "" });
    this.toast = h("div", { class: "toast", "data-toast": "" }); // (said by the live region)
    this.summary = h("div", { class: "summary", hidden: true, "data-summary": "" });
    this.dialog = h("div", { class: "dialog", hidden: true, role: "alertdialog", "aria-modal": "true", "data-confirm": "" });
    this.felt.append(this.center, this.toast);
    this.mine = h("div", { class: "mine", "data-mine": "" });
    this.controls = h("div", { class: "controls", "data-controls": "" });
    this.chatLog = h("ol", { class: "chat-log", "data-chat-log": "" });
    this.eventLog = h("ol", { class: "event-log", "data-event-log": "" });
    this.fair = h("div", { class: "fair-body", "data-fairness": "" });
    const input = h("input", {
      type: "text", maxlength: 200, name: "chat", autocomplete: "off",
      placeholder: _("Say something…"), "aria-label": _("Chat message"), "data-chat-input": "",
    });
    this.chatInput = input;
    const form = h(
      "form",
      { class: "chat-form", onsubmit: (e) => { e.preventDefault(); this.sendChat(input.value); } },
      input,
      h("button", { type: "submit", class: "button small", "data-chat-send": "" }, _("Send")),
    );
    const quick = h(
      "div",
      { class: "chat-quick" },
      h("select", {
        "aria-label": _("Quick phrases"),
        onchange: (e) => { if (e.target.value) this.sendChat(e.target.value); e.target.value = ""; },
      }, h("option", { value: "" }, _("Quick phrases…")), PHRASES.map((p) => h("option", { value: p }, p))),
      EMOJI.map((e) => h("button", { type: "button", class: "emoji", onclick: () => this.sendChat(e) }, e)),
    );
    const side = h(
      "aside",
      { class: "side" },
      h("details", { class: "panel chat", "data-drawer": "chat" },
        h("summary", {}, _("Chat")), this.chatLog, form, quick),
      h("details", { class: "panel fairness", "data-fair-panel": "", "data-drawer": "fairness" },
        h("summary", {}, _("Fairness (provably fair)")), this.fair),
      h("details", { class: "panel log", "data-drawer": "log" }, h("summary", {}, _("What happened")), this.eventLog),
    );
    replace(r, this.live.node, this.banner, this.dialog, this.statusLine,
      h("div", { class: "play" }, h("div", { class: "felt-box" }, this.felt), this.mine, this.summary, this.controls), side);
  }

  connectionStatus(status, code) {
    // Not connected, the page cannot know whose turn it is nor how long is
    // left (the server may have moved on): the clock says so (tick).
    this.disconnected = status !== "open";
    this.root.classList.toggle("disconnected", this.disconnected);
    this.tick();
    if (status === "open") {
      this.banner.hidden = true;
    } else if (status === "refused") {
      this.banner.hidden = false;
      this.banner.textContent = code === 4404 ? _("This table does not exist.") : _("This table is private: you need its invite link.");
    } else if (status === "reconnecting") {
      this.banner.hidden = false;
      this.banner.textContent = _("Connection lost — reconnecting…");
    }
  }

  // -- messages ------------------------------------------------------------

  receive(message) {
    if (showBalance(message) || answered(this, message)) return;
    if (message.type === "state") this.applyState(message);
    else if (message.type === "delta") this.receiveDelta(message);
    else if (message.type === "chat") this.chatLine(message);
    else if (message.type === "error") this.refused(message);
    else if (message.type === "ack" && "reported" in message) reportAcked(this, message);
  }

  refused(message) {
    if (message.id && message.id === this.seedId && ["seed_reused", "stale_commitment"].includes(message.code)) {
      // Our seed answered a commitment that moved on, or was used before: a new
      // one, for the commitment the server names (else at the next state).
      const current = message.details && message.details.commitment;
      this.seedFor = null;
      this.clientSeed = randomSeed();
      this.fairKey = null;
      if (message.code === "seed_reused" || (current && current !== this.lastRefusedFor)) {
        this.lastRefusedFor = current || null;
        if (this.state) this.sendSeed(this.state, current || this.state.table.next_commitment);
      }
      return;
    }
    this.flash(message.message, "error");
  }

  /** As soon as we are seated and see a commitment we have not answered, send
   * a new seed for it: the next hand is dealt from it (docs/fairness.md). */
  sendSeed(state, commitment = state.table.next_commitment) {
    const t = state.table;
    if (state.seat === null || t.status === "closed" || !commitment || this.seedFor === commitment) return;
    if (this.seedFor !== null) this.clientSeed = randomSeed(); // a new hand: never the same seed twice
    this.seedFor = commitment;
    this.seedId = this.conn.request({ type: "seed", client_seed: this.clientSeed, commitment });
    if (this.seedId === null) this.seedFor = null;
  }

  get ctx() {
    const state = this.state;
    // A hand that ended before I sat down is not drawn at my new seat (a clean
    // felt until the next deal); spectators still see it.
    const hand = state.hand && state.hand.id === this.notMine && state.you === null ? null : state.hand;
    // The hand's own players (positions, user ids and names from the deal), never
    // whoever sits in their seats now: the server says which of them I am (`you`),
    // and which seat I sit at (`seat`).
    const dealt = hand ? hand.players : [];
    const players = dealt.map((p) => p.position);
    const you = state.seat;
    const me = typeof state.you === "number" ? state.you : null;
    const userIds = dealt.map((p) => p.user_id);
    const names = dealt.map((p) => p.name);
    const seatAt = (position) => state.table.seats.find((s) => s.position === position) || null;
    // The player dealt at this seat if they still sit there, else -1.
    const playerAt = (position) => {
      const index = players.indexOf(position);
      const seat = seatAt(position);
      return index >= 0 && seat && seat.user_id === userIds[index] ? index : -1;
    };
    return {
      shell: this,
      config: this.config,
      state,
      table: state.table,
      hand,
      view: hand ? hand.view : null,
      you,
      me,
      actors: state.actors || [],
      players,
      playerAt,
      posOf: (index) => (playerAt(players[index]) === index ? players[index] : null),
      nameOf: (index) => names[index] || `#${index + 1}`,
      seatAt,
      act: (action, options) => this.act(action, options),
      now: () => this.conn.now(),
      opens: this.conn.opens, // which connection of the socket this state came on
    };
  }

  applyState(state) {
    const fresh = !this.state;
    const before = this.state;
    if (before && before.seat === null && state.seat !== null && state.hand && state.hand.finished && state.you === null) {
      // Just sat down after a hand I was not in: its cards and result are not mine.
      this.notMine = state.hand.id;
      this.summaryHidden = state.hand.id;
    }
    this.state = state;
    const ctx = this.ctx;
    const hand = state.hand;
    if (hand && fresh) {
      // Opening the table: what happened before is history, not news. No toast
      // replays it, and an old hand's result stays closed unless the table is
      // showing that result right now.
      this.lastSeq[hand.id] = hand.last_seq || 0;
      if (hand.finished && state.table.status !== "summary") this.summaryHidden = hand.id;
    }
    if (hand && state.events && state.events.length) {
      const seen = this.lastSeq[hand.id] || 0;
      const news = state.events.filter((e) => e.seq > seen);
      if (news.length) {
        this.lastSeq[hand.id] = Math.max(...news.map((e) => e.seq));
        if (!fresh) this.game.events(ctx, news);
      }
    }
    if (hand && !this.lastSeq[hand.id]) this.lastSeq[hand.id] = 0;
    // Why my seat here was freed, until I sit again or close the notice.
    if (state.seat !== null) this.removed = null;
    else if (state.removed && state.removed.at !== this.removedClosed) this.removed = state.removed;
    this.sendSeed(state);
    this.followMoney(state);
    if (this.pressing) {
      // The table is drawn once the tap is over, from the state it held before.
      if (!this.held) this.held = { before };
      return;
    }
    this.render();
    this.feel.changed(before, state);
    this.tellTurnAndResult(before, state);
  }

  /** A table whose chips are a money model's (state.table.money): a
   * tournament's shows its live bar (static/js/tourney.js), loaded then only. */
  followMoney(state) {
    if (state.table.money !== "tournament") return;
    if (!this.tourney) {
      this.tourney = import("./tourney.js").then((module) => module.mountTourney(this));
    }
    this.tourney.then((bar) => bar.changed(state));
  }

  /** The live region says when it becomes my turn (with my clock's seconds)
   * and, once, each hand's result for me. */
  tellTurnAndResult(before, state) {
    const hand = state.hand;
    if (!hand || state.you === null || state.you === undefined) return;
    if (!before && hand.finished) this.resultSaid = hand.id; // (opening the table: history, not news)
    const mine = (s) => s && s.hand && s.hand.id === hand.id && !s.hand.finished && (s.actors || []).includes(s.you);
    if (mine(state) && !mine(before)) {
      const c = state.clock;
      const seconds = c ? Math.max(0, Math.ceil((c.deadline - this.conn.now()) / 1000)) : null;
      this.live.say(seconds === null ? _("Your turn.") : fmt(_("Your turn: %(s)s seconds."), { s: seconds }));
    }
    const result = hand.finished && hand.result;
    if (result && !result.voided && this.resultSaid !== hand.id && this.notMine !== hand.id && typeof state.you === "number") {
      this.resultSaid = hand.id;
      const net = (result.chips || result.net.map((n) => n * result.unit))[state.you];
      this.live.say(fmt(_("Hand #%(n)s over: %(chips)s chips for you."), { n: hand.number, chips: signed(net) }));
    }
  }

  /** A click is a press and a release on the same element: an update drawn in
   * between would replace the button under the finger and the tap would be
   * lost (a player presses Ready as the bots become ready, and nothing
   * happens). So while a pointer is down on the table, states from the
   * server are applied but drawn only after its click (or after a second, for
   * a long press; at once when a drag starts, which cancels the pointer).
   * The player's own changes (a card selected) are drawn at once. */
  holdWhilePressed() {
    let timer = null;
    const release = () => {
      clearTimeout(timer);
      if (!this.pressing) return;
      this.pressing = false;
      const held = this.held;
      this.held = null;
      if (held && this.state) {
        this.render();
        this.feel.changed(held.before, this.state);
      }
    };
    const later = (ms) => { clearTimeout(timer); timer = setTimeout(release, ms); };
    this.root.addEventListener("pointerdown", () => { this.pressing = true; later(1000); }, true);
    // The click follows the release in the same task (a touch's may come a
    // moment later): draw after it, never between.
    this.root.addEventListener("pointerup", () => later(50), true);
    this.root.addEventListener("pointercancel", () => later(0), true);
    this.root.addEventListener("click", () => later(0), true);
  }

  /** A move's `delta` (docs/protocol.md): the state it makes of ours goes the
   * way of a state; one that does not apply to ours (another hand) asks for
   * the full state. (The socket drops stale deltas and asks for the state on a
   * version gap.) */
  receiveDelta(delta) {
    const state = applyDelta(this.state, delta);
    if (state) this.applyState(state);
    else this.conn.sync(this.state ? this.state.v : 0);
  }

  /** A move, decided on the state of version v; `versioned: false` for moves
   * that do not depend on others' (a Mậu Binh arrangement), so that another
   * player's move arriving first does not make them stale. */
  act(action, { versioned = true } = {}) {
    const message = { action };
    if (versioned) message.v = this.state.v;
    const id = this.conn.act(message);
    if (id === null) this.flash(_("Not connected."), "error");
    return id;
  }

  request(message) {
    if (!this.conn.request(message)) this.flash(_("Not connected."), "error");
  }

  // -- rendering -----------------------------------------------------------

  /** Draws the table, keeping the keyboard's focus on the same control. */
  render() {
    keepFocus(this.root, () => this.draw());
  }

  draw() {
    const ctx = this.ctx;
    this.renderStatus(ctx);
    this.renderSeats(ctx);
    replace(this.center, this.game.center(ctx));
    const mine = this.game.mine(ctx);
    if (mine !== undefined) replace(this.mine, mine);
    this.renderControls(ctx);
    this.renderSummary(ctx);
    this.renderFairness(ctx);
    this.root.dataset.status = ctx.table.status;
    // The layout follows the phase (a Mậu Binh arrangement needs room for 13 cards).
    this.root.dataset.phase = ctx.view && ctx.me !== null && !ctx.hand.finished ? ctx.view.phase || "play" : "";
    this.root.dataset.hand = ctx.hand ? String(ctx.hand.id) : "";
    this.root.dataset.finished = ctx.hand && ctx.hand.finished ? "1" : "0";
    this.root.dataset.version = String(this.state.v);
    this.tick();
  }

  renderStatus(ctx) {
    const t = ctx.table;
    const status = {
      waiting: _("Waiting for players"), playing: _("Playing"),
      summary: _("Showing the result"), closed: _("Closed"),
    }[t.status] || t.status;
    const parts = [
      h("strong", {}, t.name || fmt(_("Table %(id)s"), { id: t.id })),
      h("span", { class: "pill" }, fmt(_("Stake %(stake)s"), { stake: chips(t.stake) })),
      h("span", { class: "pill", "data-table-status": t.status }, status),
    ];
    if (ctx.hand) parts.push(h("span", { class: "pill" }, fmt(_("Hand #%(n)s"), { n: ctx.hand.number })));
    parts.push(h("span", { class: "pill clock", "data-clock-text": "" }));
    if (t.status === "closed") {
      const reason = t.closed_reason || this.config.closed_reason;
      parts.push(h("div", { class: "closed-note", "data-closed": "" },
        reason ? fmt(_("This table is closed: %(reason)s"), { reason }) : _("This table is closed.")));
    }
    replace(this.statusLine, parts);
  }

  seatOrder(ctx) {
    const n = ctx.table.seat_count;
    const base = ctx.you === null ? 0 : ctx.you;
    return Array.from({ length: n }, (_, k) => (base + k) % n);
  }

  renderSeats(ctx) {
    for (const node of this.felt.querySelectorAll(".seat")) node.remove();
    const order = this.seatOrder(ctx);
    const n = order.length;
    const ringSeats = new Set(this.clockSeats(ctx));
    const dealer = this.game.dealer ? this.game.dealer(ctx) : null;
    order.forEach((position, k) => {
      const angle = Math.PI / 2 + (2 * Math.PI * k) / n;
      const x = 50 + 44 * Math.cos(angle);
      const y = 50 + 40 * Math.sin(angle);
      const seat = ctx.seatAt(position);
      const node = seat ? this.seatNode(ctx, seat, ringSeats.has(position), dealer === position)
        : this.emptySeat(ctx, position);
      node.style.left = `${x}%`;
      node.style.top = `${y}%`;
      node.classList.add(y > 60 ? "bottom" : y < 40 ? "top" : "middle");
      if (x < 30) node.classList.add("left");
      if (x > 70) node.classList.add("right");
      this.felt.append(node);
    });
  }

  seatNode(ctx, seat, ticking, dealer) {
    const classes = ["seat"];
    if (!seat.connected) classes.push("offline");
    if (seat.position === ctx.you) classes.push("you");
    const ring = svg("svg", { class: "ring", viewBox: "0 0 100 100", "aria-hidden": "true" });
    ring.append(svg("circle", { cx: 50, cy: 50, r: 46, class: "ring-bg" }));
    if (ticking) {
      const arc = svg("circle", { cx: 50, cy: 50, r: 46, class: "ring-fg", "data-ring": "", "stroke-dasharray": RING });
      ring.append(arc);
    }
    const badges = [];
    if (seat.bot) badges.push(h("span", { class: "badge bot", title: _("Bot"), "data-bot": "" }, icon("bot", _("Bot"))));
    if (seat.ready && ctx.table.status === "waiting") badges.push(h("span", { class: "badge ready" }, _("Ready")));
    if (!seat.connected) badges.push(h("span", { class: "badge off" }, _("Disconnected")));
    if (seat.leaving) badges.push(h("span", { class: "badge off" }, _("Leaving")));
    else if (seat.leave_after_hand) badges.push(h("span", { class: "badge off", "data-badge-leaving-after": "" }, _("Leaving after this hand")));
    if (seat.sitting_out) badges.push(h("span", { class: "badge off" }, _("Sitting out")));
    const chipsShown = this.game.seatChips ? this.game.seatChips(ctx, seat) : seat.chips;
    return h(
      "div",
      { class: classes.join(" "), "data-seat": seat.position, "data-name": seat.name },
      seatAvatar(seat, ring,
        dealer ? h("span", { class: "dealer", title: _("Dealer"), "aria-hidden": "true" }, "D") : null,
        h("span", { class: `dot ${seat.connected ? "on" : "off"}` })),
      h("div", { class: "plate", onclick: () => showProfile(seat) },
        h("span", { class: "name", "data-seat-name": "" }, seat.name),
        h("span", { class: "chips" }, h("span", { class: "chip-icon" }), chips(chipsShown))),
      h("div", { class: "badges" }, badges),
      this.game.seat(ctx, seat.position),
    );
  }

  emptySeat(ctx, position) {
    const canSit = this.config.user && ctx.you === null && ctx.table.status !== "closed";
    return h(
      "div",
      { class: "seat empty", "data-seat": position },
      canSit
        ? h("button", { type: "button", class: "sit", "data-sit": position, onclick: () => this.sit(position) }, _("Sit here"))
        : h("span", { class: "free" }, _("Free seat")),
    );
  }

  clockSeats(ctx) {
    // The server says whose clock runs (the actors where they sit, or who is not ready).
    return ctx.state.clock ? ctx.state.clock.seats : [];
  }

  renderControls(ctx) {
    const t = ctx.table;
    const items = [];
    const mySeat = ctx.you === null ? null : ctx.seatAt(ctx.you);
    const free = t.seat_count - t.seats.length;
    if (t.status === "closed") {
      items.push(h("a", { class: "button ghost", href: "/tables/" }, _("Back to the lobby")));
    } else if (!this.config.user) {
      items.push(h("a", { class: "button", href: this.config.login, "data-login": "" }, _("Log in to play")));
    } else if (!mySeat) {
      const notice = this.removed ? removedNotice(this, this.removed) : null;
      if (notice) items.push(notice);
      if (this.config.buy_in) items.push(this.buyInInput(t.buy_in[0]));
      if (notice && $("[data-way-back=sit]", notice)) { /* its one tap sits down */ }
      else if (free > 0) items.push(h("button", { type: "button", class: "button", "data-action": "sit", onclick: () => this.sit(null) }, _("Sit down")));
      else items.push(h("span", { class: "muted" }, _("The table is full: you are watching.")));
    } else {
      items.push(...seatHints(this, ctx, mySeat));
      const between = t.status === "waiting" || t.status === "summary";
      if (between && !mySeat.ready && !mySeat.leaving && !mySeat.sitting_out) {
        items.push(h("button", {
          type: "button", class: "button ready", "data-action": "ready", ...shortcut("r"),
          onclick: () => this.request({ type: "ready", client_seed: this.clientSeed, commitment: this.state.table.next_commitment }),
        }, _("Ready")));
      }
      if (between && mySeat.ready && t.status === "waiting") {
        items.push(h("span", { class: "muted", "data-waiting": "" }, _("Waiting for the others…")));
      }
      items.push(autoReadySwitch(this, mySeat));
      if (free > 0) {
        items.push(h("button", { type: "button", class: "button ghost", "data-action": "add-bot", onclick: () => this.request({ type: "add_bot" }) }, _("Add a bot")));
      }
      // (Broke and sitting out, the notice above has the way back: buy in and play.)
      const broke = mySeat.sitting_out && !mySeat.chips;
      if (this.config.buy_in && !broke && !(ctx.hand && !ctx.hand.finished && ctx.me !== null)) {
        const [low, high] = t.buy_in;
        const stack = mySeat.chips || 0;
        if (stack < high) {
          const input = h("input", { type: "number", min: 1, max: high - stack, value: Math.max(1, Math.min(low, high - stack)), class: "amount", "aria-label": _("Chips to add") });
          items.push(h("span", { class: "buy-more" }, input, h("button", {
            type: "button", class: "button ghost", "data-action": "buy-in",
            onclick: () => this.request({ type: "buy_in", amount: Number(input.value) }),
          }, _("Buy more chips"))));
        }
      }
      items.push(...leaveControls(this, ctx, mySeat));
    }
    replace(this.controls, items);
  }

  confirm(title, text, yes, no, onYes) {
    const close = () => { this.dialog.hidden = true; replace(this.dialog); };
    replace(this.dialog, h("div", { class: "dialog-box" },
      h("h3", {}, title),
      h("p", { "data-confirm-text": "" }, text),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "button ghost", "data-confirm-no": "", onclick: close }, no),
        h("button", { type: "button", class: "button danger", "data-confirm-yes": "", onclick: () => { close(); onYes(); } }, yes))));
    this.dialog.hidden = false;
    $("[data-confirm-no]", this.dialog).focus();
  }

  buyInInput(low) {
    const [min, max] = this.state.table.buy_in;
    this.buyIn = h("input", { type: "number", min, max, value: this.buyIn ? this.buyIn.value : low, class: "amount", "data-buy-in": "", "aria-label": _("Buy-in") });
    return h("label", { class: "buy-in" }, _("Buy-in"), " ", this.buyIn,
      h("span", { class: "muted" }, ` (${chips(min)}–${chips(max)})`));
  }

  sit(position) {
    const message = { type: "sit" };
    if (position !== null) message.position = position;
    if (this.config.buy_in) message.buy_in = Number(this.buyIn ? this.buyIn.value : this.state.table.buy_in[0]);
    this.request(message);
  }

  /** The result card (static/js/result.js), in my bar: while the table shows
   * this hand's result (from its end to the next hand), until it is closed. */
  renderSummary(ctx) {
    const hand = ctx.hand;
    const showing = hand && hand.finished && hand.result && !hand.result.voided
      && ctx.table.status === "summary" && this.summaryHidden !== hand.id;
    if (!showing) {
      this.summary.hidden = true;
      replace(this.summary);
      return;
    }
    const close = () => { this.summaryHidden = hand.id; this.summary.hidden = true; };
    replace(this.summary, resultCard(ctx, this.game, { onClose: close }));
    this.summary.hidden = false;
  }

  renderFairness(ctx) {
    const hand = ctx.hand;
    const t = ctx.table;
    const rows = [];
    const line = (label, value, attr) => h("div", { class: "kv" }, h("span", { class: "k" }, label), h("code", { class: "v", [attr || "data-x"]: "" }, value));
    const whose = {
      player: _("their own"), bot: _("the bot's"), server: _("drawn by the server (none arrived in time)"),
    };
    if (hand) {
      rows.push(line(fmt(_("Hand #%(n)s commitment"), { n: hand.number }), hand.commitment, "data-commitment"));
      rows.push(line(_("Hand id"), hand.fair_id));
      const seeds = hand.client_seeds || [];
      const sources = hand.seed_sources || [];
      if (ctx.me !== null && seeds[ctx.me] !== undefined) {
        const source = sources[ctx.me] === "player" ? _("yours") : whose[sources[ctx.me]] || "";
        rows.push(h("div", { class: "kv" }, h("span", { class: "k" }, _("My seed in this hand")),
          h("code", { class: "v", "data-my-seed": "" }, seeds[ctx.me]), " ",
          h("span", { class: "muted", "data-my-seed-source": sources[ctx.me] || "" }, source ? `(${source})` : "")));
      }
      rows.push(h("div", { class: "kv" }, h("span", { class: "k" }, _("Client seeds, in seat order")),
        h("ol", { class: "seeds", "data-client-seeds": "" }, seeds.map((seed, i) => h("li", { "data-seed-source": sources[i] || "" },
          h("code", {}, JSON.stringify(seed)), " — ", ctx.nameOf(i),
          sources[i] ? h("span", { class: "muted" }, ` (${whose[sources[i]] || sources[i]})`) : null)))));
      if (hand.finished && hand.server_seed) {
        rows.push(line(_("Server seed (revealed)"), hand.server_seed, "data-server-seed"));
        const result = h("p", { class: "verify-result", "data-verify-result": "" });
        rows.push(h("button", { type: "button", class: "button small", "data-verify": "", onclick: () => this.verify(ctx, result) }, _("Verify the deal")), result);
      } else {
        rows.push(h("p", { class: "muted" }, _("The server seed is revealed when the hand ends.")));
      }
    }
    rows.push(line(_("Next hand's commitment"), t.next_commitment, "data-next-commitment"));
    const seedInput = h("input", {
      type: "text", maxlength: 64, value: this.clientSeed, "aria-label": _("My seed for the next hand"), "data-next-seed": "",
      onchange: (e) => {
        if (!e.target.value) return;
        this.clientSeed = e.target.value;
        this.seedFor = null;
        this.sendSeed(this.state);
      },
    });
    rows.push(h("label", { class: "kv" }, h("span", { class: "k" }, _("My seed for the next hand")), seedInput));
    rows.push(h("p", { class: "muted" }, _("The server commits to its seed first; as soon as your page sees the commitment it sends a new random seed of yours for that hand (you may type your own). The deck mixes the server's seed with every player's; after the hand anyone can recompute it.")));
    const key = JSON.stringify([hand && hand.id, hand && hand.finished, t.next_commitment, this.clientSeed, ctx.me]);
    if (this.fairKey === key) return;
    this.fairKey = key;
    replace(this.fair, rows);
  }

  async verify(ctx, out) {
    const hand = ctx.hand;
    out.textContent = _("Checking…");
    try {
      const { known, knownBoard } = this.game.known(ctx);
      const result = await verifyHand({
        game: this.game, serverSeed: hand.server_seed, commitment: hand.commitment,
        handId: hand.fair_id, clientSeeds: hand.client_seeds, players: ctx.players.length,
        known, knownBoard,
      });
      out.className = "verify-result " + (result.commitmentOk && result.dealOk ? "ok" : "bad");
      out.dataset.ok = result.commitmentOk && result.dealOk ? "1" : "0";
      replace(out,
        h("strong", {}, result.commitmentOk ? _("✓ The seed matches the commitment.") : _("✗ The seed does NOT match the commitment!")),
        " ",
        result.dealOk ? _("✓ The recomputed deck deals exactly the cards that were dealt.") : _("✗ The recomputed deck does NOT match the cards dealt!"),
        h("details", {}, h("summary", {}, _("The recomputed deck")), cardRow(result.deck, { small: true })));
    } catch (err) {
      out.className = "verify-result bad";
      out.textContent = String(err.message || err);
    }
  }

  // -- clocks --------------------------------------------------------------

  tick() {
    if (!this.state) return;
    const c = this.state.clock;
    const now = this.conn.now();
    const left = c ? Math.max(0, c.deadline - now) : 0;
    const total = c ? Math.max(1, c.deadline - c.started) : 1;
    const frac = c ? Math.min(1, left / total) : 0;
    const offset = (RING * (1 - frac)).toFixed(1);
    for (const arc of this.felt.querySelectorAll("[data-ring]")) {
      if (arc.getAttribute("stroke-dashoffset") !== offset) arc.setAttribute("stroke-dashoffset", offset);
      arc.classList.toggle("late", frac < 0.25);
    }
    const text = $("[data-clock-text]", this.statusLine);
    if (text) {
      const names = { seeds: _("Seeds"), ready: _("Ready"), arrange: _("Arrange"), reveal: _("Reveal"), turn: _("Turn"), summary: _("Next hand") };
      text.hidden = !c;
      const shown = this.disconnected ? "–" : `${Math.ceil(left / 1000)} s`;
      const words = c ? `${names[c.kind] || ""}: ${shown}` : "";
      if (text.textContent !== words) text.textContent = words;  // (4 times a second: no needless layout)
      text.title = c && this.disconnected ? _("Not connected: the clock is not known") : "";
    }
    if (this.game.tick) this.game.tick(this.ctx, left);
    this.feel.tick(now);
  }

  // -- chat and announcements ---------------------------------------------

  sendChat(text) {
    const value = String(text || "").trim();
    if (!value) return;
    this.request({ type: "chat", text: value });
    this.chatInput.value = "";
  }

  chatLine(message) {
    const time = new Date(message.at || Date.now());
    this.chatLog.append(h("li", { "data-chat-id": message.id },
      h("time", {}, time.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })), " ",
      h("strong", { class: "who" }, message.name), ": ",
      h("span", { class: "text" }, message.text), reportButton(this, message)));
    while (this.chatLog.children.length > 80) this.chatLog.firstChild.remove();
    this.chatLog.scrollTop = this.chatLog.scrollHeight;
  }

  announce(text, kind = "info") {
    this.eventLog.prepend(h("li", { class: kind }, text));
    while (this.eventLog.children.length > 60) this.eventLog.lastChild.remove();
    this.flash(text, kind);
  }

  flash(text, kind = "info") {
    const node = h("div", { class: `flash ${kind}`, "data-flash": kind }, text);
    this.live.say(text);
    this.toast.append(node);
    setTimeout(() => node.remove(), kind === "error" ? 4000 : 2600);
  }
}

export function start(game) {
  const root = document.querySelector("[data-table-app]");
  const config = JSON.parse(document.getElementById("table-config").textContent);
  const shell = new TableShell(root, config, game);
  mountScreen(shell);
  window.vipTable = shell;
  return shell;
}

// The table page names its game's module (static/js/games/<game>.js).
const page = document.querySelector("[data-table-app][data-game-module]");
if (page) import(page.dataset.gameModule).then((module) => start(module.default));
