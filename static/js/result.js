// The result of a finished hand on one opaque card, in my bar under the felt
// (never over the cards): the chips won or lost first in big type (mine; for
// a spectator, the biggest winner's), then one line per opponent with what
// was won or lost against them (by the hand's own players' names), the game's
// itemised payments folded away (its module's `summary`; what decided the hand
// above them, its `headline`, when it has one), and "Paying out…"
// until the hand is settled (a voided hand's card just says so). The live
// table (TableShell.renderSummary) and the replay draw it; the win banner
// (static/js/motion.js) only says who won.
import { h } from "./dom.js";
import { _, fmt, signed } from "./i18n.js";

const local = { hand: null, open: false }; // (whether the payments are unfolded, for this hand)

/** Units `player` won (+) or lost (-) against each other player in these payments. */
export function against(payments, player) {
  const out = {};
  for (const p of payments) {
    if (p.payee === player) out[p.payer] = (out[p.payer] || 0) + p.amount;
    if (p.payer === player) out[p.payee] = (out[p.payee] || 0) - p.amount;
  }
  return out;
}

/** The chips each player's wallet (Hold'em: stack) moved: as settled, else as the units say. */
export function chipsMoved(result) {
  return result.chips || result.net.map((n) => n * result.unit);
}

/** Whose result the card tells: mine, else (a spectator's card) the biggest winner's. */
export function subjectOf(result, me) {
  if (me !== null) return me;
  const moved = chipsMoved(result);
  return moved.reduce((best, n, i) => (n > moved[best] ? i : best), 0);
}

const tone = (n) => (n > 0 ? "plus" : n < 0 ? "minus" : "even");

/** The card's contents for the finished hand of `ctx` (TableShell.ctx or the
 * replay's), drawn by `game` (static/js/games/*.js); `onClose` closes it. */
export function resultCard(ctx, game, { onClose }) {
  const hand = ctx.hand;
  const result = hand.result;
  const head = h("div", { class: "result-head" },
    h("span", { class: "result-title" }, fmt(_("Hand #%(n)s result"), { n: hand.number })),
    h("button", { type: "button", class: "close", "aria-label": _("Close"), "data-result-close": "", onclick: onClose }, "×"));
  if (result.voided) {
    return h("div", { class: "result-card" }, head, h("p", { "data-voided": "" },
      result.reason ? fmt(_("This hand was voided: %(reason)s"), { reason: result.reason }) : _("This hand was voided.")));
  }
  if (local.hand !== hand.id) Object.assign(local, { hand: hand.id, open: false });
  const who = subjectOf(result, ctx.me);
  const moved = chipsMoved(result)[who];
  const units = result.net[who];
  const versus = against(result.payments, who);
  const lines = Object.keys(versus).map(Number).filter((i) => versus[i]).sort((a, b) => a - b)
    .map((i) => h("li", { class: tone(versus[i]), "data-against": i, "data-chips": versus[i] * result.unit },
      h("span", { class: "vs" }, fmt(_("against %(name)s"), { name: ctx.nameOf(i) })),
      h("strong", {}, signed(versus[i] * result.unit))));
  // A wallet pays no more than it holds: then the chips moved are less than the units say.
  const capped = result.chips && result.unit !== 1 && result.chips[who] !== units * result.unit;
  const details = game.summary(ctx);
  return h("div", { class: "result-card", "data-summary-game": game.name, "data-result-for": who },
    head,
    h("div", { class: `result-big ${tone(moved)}`, "data-result-big": moved },
      ctx.me === null ? h("span", { class: "who", "data-result-who": "" }, ctx.nameOf(who)) : null,
      h("strong", {}, fmt(_("%(chips)s chip"), { chips: signed(moved) })),
      result.unit !== 1 ? h("span", { class: "result-units" }, fmt(_("%(units)s units"), { units: signed(units) })) : null),
    game.headline ? game.headline(ctx) : null,
    lines.length ? h("ul", { class: "result-lines", "data-result-lines": "" }, lines)
      : h("p", { class: "result-lines none", "data-result-lines": "" }, _("Nothing won or lost against anyone.")),
    capped ? h("p", { class: "muted capped" }, _("Nobody pays more than they hold: the chips moved are capped.")) : null,
    h("div", { class: "result-foot" },
      details ? h("details", {
        class: "result-details", "data-result-details": "", open: local.open,
        ontoggle: (e) => { local.open = e.target.open; },
      }, h("summary", {}, _("Details")), details) : null,
      hand.settled ? null : h("span", { class: "paying muted", "data-paying": "" }, _("Paying out…"))));
}
