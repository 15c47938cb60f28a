// The seat flow of the table (docs/protocol.md): auto-ready, "leave after
// this hand" (the default) or "leave now" at the cost the server tells,
// and why a seat was freed or sat out, with a one-tap way back.
// table.js calls these from its controls, its seat badges and its receive().
import { h } from "./dom.js";
import { _, fmt, chips } from "./i18n.js";

/** Send a message and wait for its answer: the `ack` (resolved) or the
 * `error` (rejected with it) carrying the same id. */
export function ask(shell, message) {
  const id = shell.conn.request(message);
  if (id === null) return Promise.reject({ message: _("Not connected.") });
  shell.waiting = shell.waiting || new Map();
  return new Promise((resolve, reject) => shell.waiting.set(id, { resolve, reject }));
}

/** An `ack` or `error` someone awaits (see `ask`): handled here. */
export function answered(shell, message) {
  const waiting = shell.waiting && message.id ? shell.waiting.get(message.id) : null;
  if (!waiting || (message.type !== "ack" && message.type !== "error")) return false;
  shell.waiting.delete(message.id);
  if (message.type === "ack") waiting.resolve(message);
  else waiting.reject(message);
  return true;
}

const minus = (n) => `−${chips(n)}`;

/** What leaving now costs, as the server computed it: a headline ("−260
 * chip: cóng") and what it means. */
export function costText(cost) {
  const d = cost.detail || {};
  const head = {
    fold: _("fold"),
    cong: "cóng",
    cards: fmt(_("%(n)s cards left"), { n: d.cards }),
    chi: fmt(_("%(chi)s chi to each opponent"), { chi: d.chi }),
  }[cost.reason] || cost.reason;
  const why = {
    fold: _("Your hand is folded: the chips you bet are lost. The rest of your stack goes back to your wallet."),
    cong: _("The server plays your cards until the hand ends. You have not played a card: you will most likely pay cóng and the 2s and bombs in your hand."),
    cards: _("The server plays your cards until the hand ends: you will most likely pay for the cards left in your hand."),
    chi: fmt(_("You lose every chi not yet revealed to each of your %(n)s opponents (more if their chi win bonuses)."), { n: d.opponents }),
  }[cost.reason] || "";
  const amount = cost.exact ? minus(cost.chips)
    : fmt(cost.reason === "chi" ? _("at least %(chips)s") : _("about %(chips)s"), { chips: minus(cost.chips) });
  return { head: `${amount} chip: ${head}`, why };
}

/** Leave now: ask the server what it costs first, say it and ask. Nothing to
 * lose: leave at once. */
export function leaveNow(shell) {
  ask(shell, { type: "leave_cost" }).then((reply) => {
    const cost = reply.leave_cost;
    if (!cost) {
      shell.request({ type: "leave", when: "now" });
      return;
    }
    const text = costText(cost);
    shell.confirm(
      _("Leave in the middle of the hand?"),
      [h("strong", { class: "leave-cost", "data-leave-cost": cost.chips }, text.head), h("br"), text.why],
      _("Leave now"), _("Stay"),
      () => shell.request({ type: "leave", when: "now" }),
    );
  }, (err) => shell.flash(err.message, "error"));
}

/** The leave buttons: in my hand in play, "leave after this hand" (the
 * default) and "leave now"; then "stay" to cancel; between hands, leave. */
export function leaveControls(shell, ctx, seat) {
  if (seat.leaving) return [];
  const label = shell.config.buy_in ? _("Leave and cash out") : _("Leave the table");
  const inHand = ctx.hand && !ctx.hand.finished && ctx.me !== null;
  if (!inHand && !seat.leave_after_hand) {
    return [h("button", {
      type: "button", class: "button ghost leave", "data-action": "leave",
      onclick: () => shell.request({ type: "leave", when: "after_hand" }),
    }, label)];
  }
  const now = h("button", {
    type: "button", class: "button ghost danger-text", "data-action": "leave-now",
    onclick: () => leaveNow(shell),
  }, _("Leave now"));
  if (seat.leave_after_hand) {
    return [
      h("span", { class: "seat-note", "data-leaving-after": "" }, _("You leave after this hand.")),
      h("button", {
        type: "button", class: "button ghost leave", "data-action": "stay",
        onclick: () => shell.request({ type: "stay" }),
      }, _("Stay")),
      inHand ? now : null,
    ];
  }
  return [
    h("button", {
      type: "button", class: "button ghost leave", "data-action": "leave",
      title: _("Play this hand out, then leave: it costs nothing."),
      onclick: () => shell.request({ type: "leave", when: "after_hand" }),
    }, _("Leave after this hand")),
    now,
  ];
}

/** The auto-ready switch (games that ask for Ready every hand). */
export function autoReadySwitch(shell, seat) {
  if (shell.config.keeps_ready) return null;
  const box = h("input", {
    type: "checkbox", "data-auto-ready": "", checked: seat.auto_ready,
    onchange: (e) => shell.request({ type: "auto_ready", on: e.target.checked }),
  });
  return h("label", {
    class: "switch", title: _("You are dealt into each next hand without pressing Ready (while this page is open)."),
  }, box, " ", _("Auto-ready"));
}

/** Why my seat waits: the ready rule, a seat sat out. */
export function seatHints(shell, ctx, seat) {
  const t = ctx.table;
  const hints = [];
  const clock = ctx.state.clock;
  if (!seat.ready && !seat.leaving && clock && clock.kind === "ready" && t.status === "waiting") {
    hints.push(notice(_("Press Ready: a player who is not ready when the clock runs out leaves the table."), "ready-rule"));
  }
  if (seat.sitting_out) {
    const broke = !seat.chips;
    hints.push(notice(
      broke ? _("You are sitting out: you have no chips left at this table.")
        : _("You are sitting out: your clock ran out twice in a row."),
      "sitting-out",
      broke ? buyInAndPlay(shell) : h("button", {
        type: "button", class: "button", "data-action": "back",
        onclick: () => shell.request({ type: "ready" }),
      }, _("I'm back")),
    ));
  }
  return hints;
}

function buyInAndPlay(shell) {
  const [low, high] = shell.state.table.buy_in;
  const input = h("input", { type: "number", min: low, max: high, value: low, class: "amount", "aria-label": _("Buy-in") });
  return h("span", { class: "buy-more" }, input, h("button", {
    type: "button", class: "button", "data-action": "buy-in-play",
    onclick: () => ask(shell, { type: "buy_in", amount: Number(input.value) })
      .then(() => shell.request({ type: "ready" }), (err) => shell.flash(err.message, "error")),
  }, _("Buy in and play")));
}

function notice(text, kind, ...actions) {
  return h("div", { class: "seat-notice", "data-seat-notice": kind, role: "status" }, h("span", {}, text), ...actions);
}

/** My seat here was freed: say why, with the way back (a closed table says
 * so in its status line). */
export function removedNotice(shell, removed) {
  const text = {
    left: _("You left the table."),
    not_ready: _("You were removed from the table: you were not ready in time."),
    no_chips: _("You were removed from the table: not enough chips for the next hand."),
    closed: _("This table was closed."),
  }[removed.reason] || _("You are no longer seated at this table.");
  const close = h("button", {
    type: "button", class: "close", "aria-label": _("Close"),
    onclick: () => { shell.removedClosed = removed.at; shell.removed = null; shell.render(); },
  }, "×");
  let back = null;
  if (removed.reason === "no_chips") {
    back = h("a", { class: "button", href: shell.config.wallet_url, "data-way-back": "wallet" }, _("Get chips"));
  } else if (canSit(shell)) {
    back = h("button", {
      type: "button", class: "button", "data-action": "sit", "data-way-back": "sit", onclick: () => shell.sit(null),
    }, _("Sit again"));
  }
  return h("div", { class: "seat-notice removed", "data-removed": removed.reason, role: "status" },
    h("span", {}, text), back, close);
}

function canSit(shell) {
  const t = shell.state.table;
  return t.status !== "closed" && t.seats.length < t.seat_count;
}
