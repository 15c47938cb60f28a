// Texas Hold'em: hole cards, board, pots and side pots, fold / check / call /
// raise with a slider bounded by the legal minimum and maximum, the time bank.
import { h } from "../dom.js";
import { _, fmt, chips } from "../i18n.js";
import { cardEl, cardRow, backs, text } from "../cards.js";
import { actionText, handName, streetName } from "../poker.js";
import { dealtInTurns } from "../fairness.js";
import { shortcut } from "../access.js";

const local = { key: null, raiseTo: null };

/** The hands shown at the showdown (each with its name's parts and best five). */
const showdown = (view) => view.log.filter((r) => r.kind === "hands_ranked").flatMap((r) => r.hands);

/** The winning five: the best five of the main pot's winner (of each, on a split),
 * to highlight on the board and in the winner's hole cards; none without a showdown. */
function winningFive(view) {
  if (!view.finished || !view.pots.length) return new Set();
  const winners = new Set(view.pots[0].winners);
  return new Set(showdown(view).filter((s) => winners.has(s.player)).flatMap((s) => s.best));
}

/** Cards with the winning five marked. */
const marked = (cards, win, opts = {}) => h("span", { class: "cards" },
  (cards || []).map((c) => cardEl(c, { ...opts, extra: win.has(c) ? "win" : "" })));

/** The name of the hand `player` showed ("Đôi K, kicker A"), or null. */
function shownName(view, player) {
  const hand = showdown(view).find((s) => s.player === player);
  return hand ? handName(hand.category, hand.best) : null;
}

function actions(ctx) {
  const view = ctx.view;
  const legal = view.legal;
  const bank = Math.round((view.time_banks_ms[ctx.me] || 0) / 1000);
  const parts = [];
  if (legal) { // (the player to act's own: only on my turn)
    const key = `${ctx.hand.id}:${ctx.state.v}`;
    if (legal.raise && (local.key !== key || local.raiseTo === null)) {
      local.raiseTo = Math.min(legal.raise.max, Math.max(legal.raise.min, local.raiseTo || legal.raise.min));
    }
    local.key = key;
    parts.push(h("button", { type: "button", class: "button ghost", "data-action": "fold", ...shortcut("f"), onclick: () => ctx.act({ type: "fold" }) }, _("Fold")));
    if (legal.check) parts.push(h("button", { type: "button", class: "button", "data-action": "check", ...shortcut("k"), onclick: () => ctx.act({ type: "check" }) }, _("Check")));
    if (legal.call) parts.push(h("button", { type: "button", class: "button", "data-action": "call", ...shortcut("c"), onclick: () => ctx.act({ type: "call" }) }, fmt(_("Call %(amount)s"), { amount: chips(legal.call) })));
    if (legal.raise) {
      const { min, max } = legal.raise;
      const step = Math.max(1, view.stake);
      const value = h("output", { class: "raise-value", "data-raise-value": "" }, chips(local.raiseTo));
      const slider = h("input", {
        type: "range", min, max, step, value: local.raiseTo, "data-raise-slider": "", "aria-label": _("Raise to"),
        oninput: (e) => { local.raiseTo = Number(e.target.value); value.textContent = chips(local.raiseTo); },
      });
      parts.push(h("span", { class: "raise" }, slider, value,
        h("button", { type: "button", class: "button", "data-action": "raise", ...shortcut("r"), onclick: () => ctx.act({ type: "raise", to: Math.min(max, Math.max(min, local.raiseTo)) }) }, _("Raise")),
        h("span", { class: "muted" }, `${chips(min)}–${chips(max)}`)));
    }
    if (legal.all_in) {
      // All-in stands beside Check and Call: one slip would stake the whole
      // stack, so the page asks first (issue 32 item 4), its key too.
      const amount = chips(legal.all_in);
      const allIn = () => ctx.shell.confirm(fmt(_("All-in %(amount)s"), { amount }),
        fmt(_("Put all your %(amount)s chips in?"), { amount }), fmt(_("All-in %(amount)s"), { amount }), _("Cancel"),
        () => ctx.act({ type: "all_in" }));
      parts.push(h("button", { type: "button", class: "button danger", "data-action": "all-in", ...shortcut("a"), onclick: allIn }, fmt(_("All-in %(amount)s"), { amount })));
    }
    parts.push(h("span", { class: "your-turn", "data-your-turn": "" }, _("Your turn!")));
  }
  parts.push(h("span", { class: "muted bank", "data-time-bank": bank }, fmt(_("Time bank: %(s)s s"), { s: bank })));
  return h("div", { class: "actions" }, parts);
}

const game = {
  name: "holdem",

  // Dealing order (docs/fairness.md): two hole cards each, then the board.
  deal: dealtInTurns(2),
  board: (deckCards, players) => deckCards.slice(2 * players, 2 * players + 5),

  dealer(ctx) {
    return ctx.view ? ctx.posOf(ctx.view.button) : null;
  },

  seatChips(ctx, seat) {
    const view = ctx.view;
    const index = ctx.playerAt(seat.position);
    if (view && !ctx.hand.finished && index >= 0) return view.stacks[index];
    return seat.chips;
  },

  seat(ctx, position) {
    const view = ctx.view;
    if (!view) return null;
    const index = ctx.playerAt(position);
    if (index < 0) return null;
    const parts = [];
    if (view.shown[index]) parts.push(marked(view.shown[index], winningFive(view), { small: true }));
    else if (!view.folded[index] && index !== ctx.me && !view.finished) parts.push(backs(2, { small: true }));
    if (index === view.small_blind) parts.push(h("span", { class: "badge" }, "SB"));
    if (index === view.big_blind) parts.push(h("span", { class: "badge" }, "BB"));
    if (view.folded[index]) parts.push(h("span", { class: "badge off" }, _("Folded")));
    if (view.all_in[index]) parts.push(h("span", { class: "badge gold" }, "All-in"));
    const named = view.finished ? shownName(view, index) : null;
    if (named) parts.push(h("span", { class: "hand-name", "data-seat-hand": index }, named));
    if (view.bets[index]) parts.push(h("span", { class: "bet", "data-bet": view.bets[index] }, h("span", { class: "chip-icon" }), chips(view.bets[index])));
    return h("div", { class: "seat-game" }, parts);
  },

  center(ctx) {
    const view = ctx.view;
    if (!view) return h("div", { class: "center-note" }, _("Waiting for the next hand…"));
    const win = winningFive(view);
    const slots = [...view.board.map((c) => cardEl(c, { extra: win.has(c) ? "win" : "" })), ...Array.from({ length: 5 - view.board.length }, () => h("span", { class: "card slot" }))];
    const pots = view.pots.map((p, i) => h("li", {}, i === 0 ? _("Main pot") : fmt(_("Side pot %(n)s"), { n: i }), ": ", chips(p.amount),
      p.winners.length ? h("span", { class: "pot-winners" }, ` → ${p.winners.map((w) => ctx.nameOf(w)).join(", ")}`) : ""));
    return h("div", { class: "center-note holdem" },
      h("div", { class: "board cards", "data-board": view.board.join(" ") }, slots),
      h("div", { class: "pot", "data-pot": view.pot }, view.finished ? "" : fmt(_("Pot: %(amount)s"), { amount: chips(view.pot) })),
      // A tournament level's blinds and ante (a cash table has no ante: nothing shown).
      view.ante ? h("div", { class: "level muted", "data-level": `${view.small_blind_amount}/${view.big_blind_amount}/${view.ante}` },
        fmt(_("Blinds %(small)s/%(big)s, ante %(ante)s"), { small: chips(view.small_blind_amount), big: chips(view.big_blind_amount), ante: chips(view.ante) })) : null,
      pots.length ? h("ul", { class: "pots" }, pots) : null,
      h("div", { class: "street muted", "data-street": view.phase }, streetName(view.phase)));
  },

  mine(ctx) {
    const view = ctx.view;
    if (!view || ctx.me === null) return null;
    const win = winningFive(view);
    const named = view.finished ? shownName(view, ctx.me) : null;
    return h("div", { class: "hole" },
      h("div", { class: "cards hand", "data-hole": (view.hole || []).join(" ") },
        (view.hole || []).map((c) => cardEl(c, { extra: win.has(c) ? "win" : "" }))),
      named ? h("span", { class: "hand-name", "data-my-hand-name": "" }, named) : null,
      view.finished ? null : actions(ctx));
  },

  events(ctx, events) {
    for (const e of events) {
      if (e.type === "acted") {
        ctx.shell.eventLog.prepend(h("li", {}, `${ctx.nameOf(e.player)} ${actionText(e)}`));
        ctx.shell.live.say(`${ctx.nameOf(e.player)} ${actionText(e)}`);
      }
      else if (e.type === "board_dealt") ctx.shell.announce(`${streetName(e.street)}: ${text(e.cards)}`, "info");
      else if (e.type === "hands_ranked") {
        for (const hand of e.hands) ctx.shell.eventLog.prepend(h("li", {}, `${ctx.nameOf(hand.player)}: ${handName(hand.category, hand.best)} ${text(hand.best)}`));
      } else if (e.type === "pot_awarded") {
        e.winners.forEach((w, i) => ctx.shell.announce(fmt(_("%(name)s wins %(amount)s"), { name: ctx.nameOf(w), amount: chips(e.shares[i]) }), "big"));
      }
    }
  },

  // What the screen reacts to (static/js/moments.js): chips bet (blinds
  // included), all-ins, the bets swept into the pot, and the board's cards
  // street by street.
  moments({ before, view, events, seatOf }) {
    const out = [];
    for (const e of events) {
      if ((e.type === "blind_posted" || e.type === "acted") && e.amount > 0) {
        out.push({ type: "bet", player: e.player, seat: seatOf(e.player), amount: e.amount });
        if (e.all_in) out.push({ type: "allin", player: e.player, seat: seatOf(e.player) });
      }
    }
    if (before) {
      const swept = before.bets.flatMap((bet, i) => (view.bets[i] < bet ? [i] : []));
      if (swept.length) out.push({ type: "pot", seats: swept.map(seatOf), amount: view.pot });
    }
    const streets = events.filter((e) => e.type === "board_dealt").map((e) => e.cards);
    if (streets.length) out.push({ type: "board", streets });
    return out;
  },

  // On the result card (static/js/result.js), under the amount: the hand that
  // won the main pot, by its name ("Châu: Thùng, A cao").
  headline(ctx) {
    const view = ctx.view;
    if (!view || !view.finished || !view.pots.length) return null;
    const named = view.pots[0].winners.map((w) => [w, shownName(view, w)]).filter(([, name]) => name);
    if (!named.length) return null;
    return h("p", { class: "result-headline", "data-result-headline": "" },
      named.map(([w, name]) => `${ctx.nameOf(w)}: ${name}`).join(" · "));
  },

  // Folded away on the result card (static/js/result.js): each hand shown, its
  // name and best five (the winners' marked), and who won each pot.
  summary(ctx) {
    const view = ctx.view;
    if (!view || !view.finished) return null;
    const winners = new Set(view.pots.flatMap((p) => p.winners));
    const shown = (s) => {
      const won = winners.has(s.player);
      return h("li", { class: won ? "won" : "", "data-showdown": s.player },
        h("span", { class: "who" }, ctx.nameOf(s.player)), " ", cardRow(s.cards, { small: true }), " ",
        h("strong", { "data-hand-name": "" }, handName(s.category, s.best)), " ",
        h("span", { class: `best${won ? " winning" : ""}`, "data-best": s.best.join(" ") }, cardRow(s.best, { small: true, extra: won ? "win" : "" })));
    };
    const pots = view.pots.map((p, i) => h("li", {}, i === 0 ? _("Main pot") : fmt(_("Side pot %(n)s"), { n: i }), ` ${chips(p.amount)}: `,
      p.winners.map((w, k) => fmt(_("%(name)s wins %(amount)s"), { name: ctx.nameOf(w), amount: chips(p.shares[k]) })).join(", ")));
    const hands = showdown(view);
    return h("div", { class: "sum-body" },
      hands.length ? h("ul", { class: "showdown" }, hands.map(shown)) : h("p", { class: "muted" }, _("Everyone else folded: no cards shown.")),
      h("ol", { class: "payments" }, pots));
  },

  known(ctx) {
    const view = ctx.view;
    const known = {};
    if (ctx.me !== null && view.hole) known[ctx.me] = view.hole;
    view.shown.forEach((cards, i) => { if (cards) known[i] = cards; });
    return { known, knownBoard: view.board };
  },
};

// The replay page (static/js/replay.js): the events as text and the cards
// known for the fairness check (the table at each step is drawn as live).
game.replay = {
  describe(e, name) {
    switch (e.type) {
      case "hand_dealt": return _("The cards are dealt");
      case "ante_posted": return fmt(_("%(name)s: ante %(amount)s"), { name: name(e.player), amount: chips(e.amount) });
      case "blind_posted": return `${name(e.player)}: ${e.blind === "small" ? "SB" : "BB"} ${chips(e.amount)}`;
      case "acted": return `${name(e.player)} ${actionText(e)}`;
      case "board_dealt": return `${streetName(e.street)}: ${text(e.cards)}`;
      case "cards_shown": return `${name(e.player)}: ${text(e.cards)}`;
      case "hands_ranked": return e.hands.map((x) => `${name(x.player)}: ${handName(x.category, x.best)}`).join(" · ");
      case "pot_awarded": return e.winners.map((w, i) => fmt(_("%(name)s wins %(amount)s"), { name: name(w), amount: chips(e.shares[i]) })).join(", ");
      case "uncalled_returned": return fmt(_("%(amount)s returned to %(name)s"), { amount: chips(e.amount), name: name(e.player) });
      case "hand_finished": return _("The hand is over");
      default: return null;
    }
  },

  known(events) {
    const known = {};
    for (const e of events.filter((x) => x.type === "cards_shown")) known[e.player] = e.cards;
    return { known, knownBoard: events.filter((e) => e.type === "board_dealt").flatMap((e) => e.cards) };
  },
};

export default game;
