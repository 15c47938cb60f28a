// Mậu Binh: arrange 13 cards into chi 1 (5), chi 2 (5) and chi 3 (3) by
// clicking two cards to swap them or dragging one onto another; the hand name
// of each chi and the binh lủng warning update live (static/js/chi.js).
import { h } from "../dom.js";
import { _, fmt, chips, signed } from "../i18n.js";
import { cardEl, cardRow, backs, text } from "../cards.js";
import { handName, lung, HAND_NAMES_VI, INSTANT_NAMES_VI } from "../chi.js";
import { dealtInTurns } from "../fairness.js";
import { against } from "../result.js";
import { HAND_KEY, rovingCards, shortcut } from "../access.js";

const RANK_ORDER = "23456789TJQKA";
const byRank = (a, b) => RANK_ORDER.indexOf(b[0]) - RANK_ORDER.indexOf(a[0]) || a.localeCompare(b);
const REASONS = {
  chi1: "Chi 1", chi2: "Chi 2", chi3: "Chi 3", lung: "Binh lủng", left: "Bỏ cuộc",
  sap: "Sập", instant: "Mậu binh tới trắng",
};

const local = { hand: null, rows: null, selected: null, key: null, sentKey: null, sent: null };
const CHIS = ["chi1", "chi2", "chi3"];

const nameVi = (name) => HAND_NAMES_VI[name] || name;
const instantVi = (name) => INSTANT_NAMES_VI[name] || name;
const reasonText = (reason) => (reason === "bonus" ? _("bonus") : REASONS[reason] || reason);

function rowsFrom(arrangement) {
  return [arrangement.chi1.slice(), arrangement.chi2.slice(), arrangement.chi3.slice()];
}

function ensureRows(ctx) {
  const own = ctx.view.own;
  if (local.hand !== ctx.hand.id) {
    local.hand = ctx.hand.id;
    local.selected = null;
    // Start from what was submitted, else from the server's own arrangement
    // (never binh lủng), and only without one from the cards by rank.
    const start = own.submission || own.instant_arrangement || own.suggestion;
    if (start) local.rows = rowsFrom(start);
    else {
      const sorted = own.cards.slice().sort(byRank);
      local.rows = [sorted.slice(0, 5), sorted.slice(5, 10), sorted.slice(10)];
    }
  }
  return local.rows;
}

function swap(ctx, a, b) {
  if (a === b) return;
  const rows = local.rows;
  const find = (card) => {
    for (let r = 0; r < 3; r++) {
      const i = rows[r].indexOf(card);
      if (i >= 0) return [r, i];
    }
    return null;
  };
  const pa = find(a);
  const pb = find(b);
  if (!pa || !pb) return;
  rows[pa[0]][pa[1]] = b;
  rows[pb[0]][pb[1]] = a;
  local.selected = null;
  ctx.shell.render();
}

function choose(ctx, arrangement) {
  local.rows = rowsFrom(arrangement);
  local.selected = null;
  ctx.shell.render();
}

function submit(ctx) {
  const [chi1, chi2, chi3] = local.rows;
  local.sent = { hand: ctx.hand.id, opens: ctx.opens, chi1: chi1.slice(), chi2: chi2.slice(), chi3: chi3.slice() };
  ctx.act({ type: "submit", chi1, chi2, chi3 }, { versioned: false });
}

/** An arrangement sent on a socket that went before the server had it (its
 * process lost mid-hand: the state after the reconnect shows no submission,
 * or an older one) is sent again, once per connection. */
function resendLost(ctx) {
  const sent = local.sent;
  if (!sent || sent.hand !== ctx.hand.id || sent.opens === ctx.opens) return;
  const had = ctx.view.own.submission;
  if (had && CHIS.every((chi) => had[chi].join() === sent[chi].join())) {
    local.sent = null; // the server has it
    return;
  }
  sent.opens = ctx.opens;
  ctx.act({ type: "submit", chi1: sent.chi1, chi2: sent.chi2, chi3: sent.chi3 }, { versioned: false });
}

function arrangeArea(ctx) {
  const own = ctx.view.own;
  const rules = ctx.config.rules;
  const rows = ensureRows(ctx);
  const broken = lung(rows[0], rows[1], rows[2], rules);
  const submitted = own.submission && own.submission.chi1.join() === rows[0].join()
    && own.submission.chi2.join() === rows[1].join() && own.submission.chi3.join() === rows[2].join();
  // A card selected, then another: the two swap (by a tap, Space or Enter).
  const pick = (card) => {
    if (local.selected && local.selected !== card) swap(ctx, local.selected, card);
    else { local.selected = local.selected === card ? null : card; ctx.shell.render(); }
  };
  const cardRows = [];
  const rowNodes = rows.map((cards, r) => {
    const name = handName(cards, rules);
    const cardNodes = cards.map((card) => {
      const node = cardEl(card, { extra: local.selected === card ? "selected" : "" });
      node.setAttribute("draggable", "true");
      node.addEventListener("click", () => pick(card));
      node.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", card); e.dataTransfer.effectAllowed = "move"; });
      node.addEventListener("dragover", (e) => { e.preventDefault(); node.classList.add("drop"); });
      node.addEventListener("dragleave", () => node.classList.remove("drop"));
      node.addEventListener("drop", (e) => { e.preventDefault(); swap(ctx, e.dataTransfer.getData("text/plain"), card); });
      return node;
    });
    cardRows.push(cardNodes);
    return h("div", { class: `chi-row${broken === String(r + 1) ? " bad" : ""}`, "data-chi": r + 1 },
      h("div", { class: "chi-label", id: `chi-label-${r + 1}` }, h("span", { class: "chi-n" }, `Chi ${r + 1}`),
        h("span", { class: "chi-name", "data-chi-name": r + 1 }, nameVi(name))),
      h("div", { class: "cards", role: "listbox", "aria-labelledby": `chi-label-${r + 1}`, "aria-describedby": "arrange-keys", "aria-keyshortcuts": HAND_KEY, "aria-orientation": "horizontal" }, cardNodes));
  });
  // The 13 cards are one tab stop: arrows move (Up/Down between the chi, 1-3
  // to a chi's first card), Space or Enter selects and swaps (static/js/access.js).
  rovingCards("arrange", cardRows, { selected: (card) => local.selected === card, onToggle: pick });
  const hints = (own.hints || []).map((hint, i) => h("button", {
    type: "button", class: "button small ghost", "data-hint": i + 1, onclick: () => choose(ctx, hint),
  }, fmt(_("Hint %(n)s"), { n: i + 1 })));
  return h("div", { class: "arrange", "data-roving": "arrange" },
    own.instant ? h("div", { class: "instant-note", "data-instant": own.instant },
      fmt(_("Instant win: %(name)s! It is declared for you automatically."), { name: instantVi(own.instant) })) : null,
    broken ? h("div", { class: "lung-warning", role: "alert", "data-lung": "" },
      fmt(_("Binh lủng! Chi %(chi)s is stronger than the chi above it: you would lose all three chi."), { chi: broken }))
      : h("div", { class: "lung-ok" }, _("Valid arrangement: chi 1 ≥ chi 2 ≥ chi 3.")),
    h("p", { class: "muted hint-line" }, _("Tap two cards to swap them, or drag a card onto another.")),
    h("p", { class: "sr-only", id: "arrange-keys", "data-keys-hint": "" }, _("Keyboard: H goes to the cards, the arrow keys move between them, 1 2 3 go to a chi, Space selects a card and swaps it with the next one chosen.")),
    rowNodes,
    h("div", { class: "actions" },
      h("button", { type: "button", class: "button ghost", "data-action": "auto", ...shortcut("a"), onclick: () => choose(ctx, own.instant_arrangement || own.suggestion) }, _("Auto-arrange")),
      hints,
      h("button", { type: "button", class: "button", "data-action": "submit", ...shortcut("s"), onclick: () => submit(ctx) },
        own.submission ? _("Submit again") : _("Submit"))),
    own.submission ? h("p", { class: "submitted-note", "data-submitted": "" },
      submitted ? _("Submitted. You may rearrange and submit again until everyone is done.") : _("You changed your cards since you submitted: submit again.")) : null,
  );
}

function shownArrangement(ctx) {
  const own = ctx.view.own;
  if (!own || !own.submission) return null;
  const rules = ctx.config.rules;
  return h("div", { class: "arrange shown" }, ["chi1", "chi2", "chi3"].map((key, r) =>
    h("div", { class: "chi-row" },
      h("div", { class: "chi-label" }, h("span", { class: "chi-n" }, `Chi ${r + 1}`),
        h("span", { class: "chi-name" }, nameVi(handName(own.submission[key], rules)))),
      cardRow(own.submission[key]))));
}

/** Units I won (+) or lost (-) against each opponent on the chi revealed so far. */
/** My units against each opponent on the felt: while the chi are revealed,
 * what they moved so far; once the hand is over, the whole result as the
 * result card tells it (sập, lủng, instant wins, bonuses and leavers included). */
function versus(ctx, upTo) {
  const result = ctx.hand && ctx.hand.result;
  if (ctx.view.phase === "finished" && result && !result.voided) return against(result.payments, ctx.me);
  return against((ctx.view.chi_payments || []).slice(0, upTo).flat(), ctx.me);
}

const game = {
  name: "maubinh",

  // Dealing order (docs/fairness.md): thirteen cards to each player in turn.
  deal: dealtInTurns(13),

  seat(ctx, position) {
    const view = ctx.view;
    if (!view) return null;
    const index = ctx.playerAt(position);
    if (index < 0) return null;
    const seat = view.seats[index];
    const parts = [];
    const marks = [];
    if (view.phase === "arrange") {
      if (index !== ctx.me) parts.push(backs(13, { small: true, max: 5 }));
      parts.push(h("span", { class: `badge ${seat.submitted ? "ready" : ""}`, "data-submitted": seat.submitted ? "1" : "0" },
        seat.left ? _("Left") : seat.submitted ? _("Arranged") : _("Arranging")));
    } else {
      for (let chi = 1; chi <= 3; chi++) {
        const cards = seat[`chi${chi}`];
        if (cards) parts.push(h("div", { class: "mini-chi" }, cardRow(cards, { small: true }),
          h("span", { class: "mini-name" }, nameVi(seat.hands[chi - 1]))));
      }
      if (seat.lung) marks.push(h("span", { class: "badge bad" }, "Binh lủng"));
      if (seat.instant) marks.push(h("span", { class: "badge gold" }, instantVi(seat.instant)));
      if (seat.auto) marks.push(h("span", { class: "badge" }, _("Auto")));
      if (ctx.me !== null && index !== ctx.me) {
        const units = versus(ctx, view.reveal_step)[index] || 0;
        marks.push(h("span", { class: `units ${units > 0 ? "plus" : units < 0 ? "minus" : ""}`, "data-versus": index, "data-units": units }, signed(units)));
      }
    }
    // The marks (binh lủng, an instant win, auto, my units against the seat)
    // are the seat's own part: each layout places them where the seat has room
    // (static/css/table.css, "Seat marks").
    return [h("div", { class: "seat-game" }, parts), marks.length ? h("div", { class: "seat-marks" }, marks) : null];
  },

  center(ctx) {
    const view = ctx.view;
    if (!view) return h("div", { class: "center-note" }, ctx.table.status === "closed" ? "" : _("Waiting for the next hand…"));
    if (view.phase === "arrange") {
      const done = view.seats.filter((s) => s.submitted).length;
      return h("div", { class: "center-note" }, h("div", { class: "big" }, "Mậu Binh"),
        fmt(_("Arranging: %(done)s of %(n)s done"), { done, n: view.seats.length }));
    }
    const step = view.reveal_step;
    // At the end, each player's net for the whole hand; before it, this chi's units.
    const result = ctx.hand && ctx.hand.result;
    const finished = view.phase === "finished" && result && !result.voided;
    const units = finished ? result.net : view.chi_units[step - 1] || [];
    return h("div", { class: "center-note reveal", "data-reveal-step": step, "data-center-result": finished ? "1" : "0" },
      h("div", { class: "big" }, view.phase === "finished" ? _("Result") : `Chi ${step}`),
      h("ul", { class: "chi-units" }, units.map((u, i) =>
        h("li", {}, ctx.nameOf(i), ": ", h("strong", { class: u > 0 ? "plus" : u < 0 ? "minus" : "" }, signed(u))))));
  },

  mine(ctx) {
    const view = ctx.view;
    if (!view || ctx.me === null || !view.own) return null;
    if (view.phase === "arrange" && !view.seats[ctx.me].left) {
      resendLost(ctx);
      return arrangeArea(ctx);
    }
    return shownArrangement(ctx);
  },

  events(ctx, events) {
    for (const e of events) {
      if (e.type === "chi_revealed") {
        if (e.step === 1) {
          e.instant.forEach((kind, i) => {
            if (kind) ctx.shell.announce(fmt(_("%(name)s: Mậu binh tới trắng — %(hand)s!"), { name: ctx.nameOf(i), hand: instantVi(kind) }), "big");
          });
          e.lung.forEach((flag, i) => { if (flag) ctx.shell.announce(fmt(_("%(name)s is binh lủng!"), { name: ctx.nameOf(i) }), "bad"); });
        }
        const mine = ctx.me === null ? null : e.units[ctx.me];
        ctx.shell.announce(mine === null ? fmt(_("Chi %(n)s revealed"), { n: e.step })
          : fmt(_("Chi %(n)s: %(units)s units"), { n: e.step, units: signed(mine) }), "info");
      } else if (e.type === "auto_arranged" && e.players.length) {
        ctx.shell.announce(fmt(_("Time is up: arranged automatically for %(names)s"), { names: e.players.map((i) => ctx.nameOf(i)).join(", ") }), "info");
      } else if (e.type === "hand_finished") {
        for (const [winner, loser] of e.sweeps || []) {
          ctx.shell.announce(fmt(_("%(winner)s wins all three chi against %(loser)s: sập!"), { winner: ctx.nameOf(winner), loser: ctx.nameOf(loser) }), "big");
        }
      }
    }
  },

  // What the screen reacts to (static/js/moments.js): each chi as it is
  // revealed, with the units it moved: mine against each opponent, or (when I
  // was not dealt in) each player's.
  moments({ view, events, me, seatOf }) {
    return events.filter((e) => e.type === "chi_revealed").map((e) => {
      let units = e.units.map((n, player) => ({ player, seat: seatOf(player), units: n }));
      if (me !== null) {
        const mine = against(view.chi_payments[e.step - 1] || [], me);
        units = units.filter((u) => u.player !== me).map((u) => ({ ...u, units: mine[u.player] || 0 }));
      }
      return { type: "reveal", step: e.step, units };
    });
  },

  // The itemised payments, folded away on the result card (static/js/result.js):
  // everyone's chi are on the felt.
  summary(ctx) {
    const outcome = ctx.view && ctx.hand.result;
    if (!outcome || outcome.voided) return null;
    const items = outcome.payments.map((p) => h("li", {},
      fmt(_("%(payer)s pays %(payee)s %(units)s"), { payer: ctx.nameOf(p.payer), payee: ctx.nameOf(p.payee), units: p.amount }),
      " — ", reasonText(p.reason), p.detail && p.detail.hand ? ` (${nameVi(p.detail.hand)})` : ""));
    return h("div", { class: "sum-body" },
      h("h4", {}, _("Payments (units of the stake)")),
      items.length ? h("ol", { class: "payments" }, items) : h("p", { class: "muted" }, _("Nobody pays: a draw.")));
  },

  known(ctx) {
    const known = {};
    const view = ctx.view;
    if (ctx.me !== null && view.own) known[ctx.me] = view.own.cards;
    const result = ctx.hand.result;
    const players = result && result.summary ? result.summary.players : [];
    players.forEach((p, i) => {
      if (p.arrangement && i !== ctx.me) known[i] = [...p.arrangement.chi1, ...p.arrangement.chi2, ...p.arrangement.chi3];
    });
    return { known };
  },
};

// The replay page (static/js/replay.js): the events as text and the cards
// known for the fairness check (the table at each step is drawn as live).
game.replay = {
  describe(e, name) {
    switch (e.type) {
      case "submitted": return fmt(_("%(name)s has arranged"), { name: name(e.player) });
      case "arranged": return fmt(_("Your arrangement: %(c1)s | %(c2)s | %(c3)s"), { c1: text(e.chi1), c2: text(e.chi2), c3: text(e.chi3) }) + (e.lung ? " — Binh lủng" : "");
      case "auto_arranged": return e.players.length ? fmt(_("Arranged automatically: %(names)s"), { names: e.players.map(name).join(", ") }) : _("Everyone arranged in time");
      case "chi_revealed": return `Chi ${e.step}: ` + e.hands.map((x) => `${name(x.player)} ${nameVi(x.hand)} (${signed(e.units[x.player])})`).join(" · ");
      default: return null;
    }
  },

  known(events) {
    const known = {};
    const byPlayer = {};
    for (const e of events.filter((x) => x.type === "chi_revealed")) for (const x of e.hands) (byPlayer[x.player] ||= []).push(...x.cards);
    for (const [i, cards] of Object.entries(byPlayer)) if (cards.length === 13) known[i] = cards;
    return { known };
  },
};

export default game;
