// Tiến Lên Miền Nam: select cards, the cards that are part of a legal play now
// are highlighted (the view's `hints`), play or pass; chops and thối announced.
import { h } from "../dom.js";
import { _, fmt, fmtParts, chips, signed } from "../i18n.js";
import { cardEl, cardRow, backs, text } from "../cards.js";
import { dealtInTurns } from "../fairness.js";
import { COMBOS_VI, TOI_TRANG_VI } from "../terms.js";
import { cardListAttrs, rovingCards, shortcut } from "../access.js";

const COMBOS = COMBOS_VI;
const TOI_TRANG = TOI_TRANG_VI;
const THOI = {
  black_two: "heo đen", red_two: "heo đỏ", three_pair_run: "3 đôi thông", quad: "tứ quý",
  four_pair_run: "4 đôi thông",
};

const local = { hand: null, selected: new Set(), thoiShown: null };

// A player's name in the centre's words: one line, abbreviated by rule when
// too long, as on the seats (names.js: a name may be 40 characters in one
// word, which pushed the pile into the side seats on a phone on its side).
const who = (ctx, index) => h("span", { class: "who" }, ctx.nameOf(index));

function reasonText(p) {
  const d = p.detail || {};
  switch (p.reason) {
    case "cards": return fmt(_("%(n)s cards left"), { n: d.count });
    case "thoi": return `Thối ${THOI[d.combination] || d.combination}`;
    case "cong": return "Cóng";
    case "ket_3_bich": return "Kết 3 bích";
    case "chan_ket_3_bich": return "Chặn kết 3 bích";
    case "chop": return "Chặt";
    case "toi_trang": return `Tới trắng (${TOI_TRANG[d.type] || d.type})`;
    default: return p.reason;
  }
}

function myCards(ctx) {
  const view = ctx.view;
  const toggle = (card) => {
    if (local.selected.has(card)) local.selected.delete(card);
    else local.selected.add(card);
    ctx.shell.render();
  };
  if (local.hand !== ctx.hand.id) {
    local.hand = ctx.hand.id;
    local.selected = new Set();
  }
  for (const card of [...local.selected]) if (!view.hand.includes(card)) local.selected.delete(card);
  const myTurn = ctx.me !== null && ctx.actors.includes(ctx.me) && !view.finished;
  const hints = myTurn && view.hints ? new Set(view.hints.cards) : null;
  const cards = view.hand.map((card) => {
    const classes = [];
    if (local.selected.has(card)) classes.push("selected");
    if (hints && hints.has(card)) classes.push("playable");
    if (hints && !hints.has(card)) classes.push("dim");
    const node = cardEl(card, { extra: classes.join(" ") });
    node.addEventListener("click", () => toggle(card));
    return node;
  });
  // One tab stop: the arrow keys move between the cards, Space selects (static/js/access.js).
  rovingCards("hand", [cards], { selected: (card) => local.selected.has(card), onToggle: toggle });
  const play = () => {
    const chosen = view.hand.filter((c) => local.selected.has(c));
    if (!chosen.length) return;
    ctx.act({ type: "play", cards: chosen });
  };
  return h("div", { class: "tl-mine" },
    h("div", { class: "cards hand", "data-my-hand": "", ...cardListAttrs("hand", _("My cards")) }, cards),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "button", "data-action": "play", ...shortcut("p"), disabled: !myTurn || !local.selected.size, onclick: play }, _("Play")),
      h("button", { type: "button", class: "button ghost", "data-action": "pass", ...shortcut("s"), disabled: !myTurn || !(view.hints && view.hints.can_pass), onclick: () => ctx.act({ type: "pass" }) }, _("Pass")),
      h("button", { type: "button", class: "button ghost small", "data-action": "clear", ...shortcut("c"), disabled: !local.selected.size, onclick: () => { local.selected.clear(); ctx.shell.render(); } }, _("Clear")),
      myTurn ? h("span", { class: "your-turn", "data-your-turn": "" }, _("Your turn!")) : null,
      view.must_include && myTurn ? h("span", { class: "muted" }, fmt(_("Your play must include %(card)s"), { card: text([view.must_include]) })) : null));
}

const game = {
  name: "tienlen",

  // Dealing order (docs/fairness.md): thirteen cards to each player in turn.
  deal: dealtInTurns(13),

  seat(ctx, position) {
    const view = ctx.view;
    if (!view) return null;
    const index = ctx.playerAt(position);
    if (index < 0) return null;
    const parts = [];
    if (view.finished) {
      if (view.hands[index].length) parts.push(cardRow(view.hands[index], { small: true, fan: true }));
      if (view.winner === index) parts.push(h("span", { class: "badge gold" }, _("Winner")));
    } else if (index !== ctx.me) {
      parts.push(h("span", { class: "count-wrap" }, backs(view.card_counts[index], { small: true, max: 4 }),
        h("span", { class: "count", "data-count": view.card_counts[index] }, view.card_counts[index])));
    }
    if (!view.finished && view.passed[index]) parts.push(h("span", { class: "badge off" }, _("Passed")));
    if (view.left[index]) parts.push(h("span", { class: "badge off" }, _("Left")));
    return h("div", { class: "seat-game" }, parts);
  },

  center(ctx) {
    const view = ctx.view;
    if (!view) return h("div", { class: "center-note" }, _("Waiting for the next hand…"));
    if (view.finished) {
      // The play that ended the hand stays on the felt, with who went out.
      const last = view.instant ? null : [...view.history].reverse().find((m) => m.action === "play");
      if (!last) {
        return h("div", { class: "center-note" }, h("div", { class: "big" },
          view.instant ? `Tới trắng: ${TOI_TRANG[view.instant] || view.instant}` : fmtParts(_("%(name)s goes out first!"), { name: who(ctx, view.winner) })));
      }
      const named = view.table && view.table.player === last.player ? view.table.combination : null;
      return h("div", { class: "center-note played" },
        // (the last play is the winner's: one line says both)
        h("div", { class: "pile", "data-pile": last.cards.join(" "), "data-last-play": "" }, cardRow(last.cards, { small: true }),
          h("strong", { class: "pile-end" }, fmtParts(_("%(name)s goes out first!"), { name: who(ctx, view.winner) }),
            named ? ` · ${COMBOS[named] || named}` : "")));
    }
    const t = view.table;
    const round = view.history.filter((m) => m.round === view.round);
    const last = round.slice(-3).filter((m) => m.action === "pass").map((m) => fmt(_("%(name)s passes"), { name: ctx.nameOf(m.player) }));
    return h("div", { class: "center-note played" },
      t ? h("div", { class: "pile", "data-pile": t.cards.join(" ") }, cardRow(t.cards),
        h("div", { class: "pile-who" }, who(ctx, t.player), " · ", COMBOS[t.combination] || t.combination))
        : h("div", { class: "big" }, fmt(_("%(name)s leads a new round"), { name: ctx.nameOf(ctx.actors[0]) })),
      view.chain ? h("div", { class: "chain" }, fmt(_("Chop chain: %(units)s units at stake"), { units: view.chain.units })) : null,
      last.length ? h("div", { class: "muted" }, last.join(" · ")) : null);
  },

  mine(ctx) {
    const view = ctx.view;
    if (!view || ctx.me === null || view.finished) return null;
    return myCards(ctx);
  },

  events(ctx, events) {
    for (const e of events) {
      if (e.type === "played") {
        const combo = COMBOS[e.combination] || e.combination;
        if (e.chop) ctx.shell.announce(fmt(_("%(name)s chops with %(combo)s!"), { name: ctx.nameOf(e.player), combo }), "big");
        else {
          ctx.shell.eventLog.prepend(h("li", {}, `${ctx.nameOf(e.player)}: ${combo} ${text(e.cards)}`));
          ctx.shell.live.say(fmt(_("%(name)s plays %(combo)s: %(cards)s"), { name: ctx.nameOf(e.player), combo, cards: text(e.cards) }));
        }
      } else if (e.type === "chop_settled") {
        ctx.shell.announce(fmt(_("Chặt! %(loser)s pays %(winner)s %(units)s units"), { loser: ctx.nameOf(e.payer), winner: ctx.nameOf(e.payee), units: e.amount }), "big");
      } else if (e.type === "instant_won") {
        ctx.shell.announce(fmt(_("%(name)s: tới trắng — %(kind)s!"), { name: ctx.nameOf(e.player), kind: TOI_TRANG[e.kind] || e.kind }), "big");
      } else if (e.type === "passed") {
        ctx.shell.eventLog.prepend(h("li", {}, fmt(_("%(name)s passes"), { name: ctx.nameOf(e.player) })));
        ctx.shell.live.say(fmt(_("%(name)s passes"), { name: ctx.nameOf(e.player) }));
      } else if (e.type === "hand_finished" && e.winner !== null) {
        ctx.shell.announce(fmt(_("%(name)s goes out first!"), { name: ctx.nameOf(e.winner) }), "big");
      }
    }
  },

  // What the screen reacts to (static/js/moments.js): cards played, chops, thối.
  moments({ events, me, seatOf, ended, result }) {
    const out = [];
    for (const e of events) {
      if (e.type !== "played") continue;
      out.push({ type: "play", player: e.player, seat: seatOf(e.player), cards: e.cards, mine: e.player === me });
      if (e.chop) out.push({ type: "chop", player: e.player, seat: seatOf(e.player) });
    }
    if (ended && result) {
      const owed = new Map(); // each payer of thối, with the units of all they pay for it
      for (const p of result.payments.filter((x) => x.reason === "thoi")) owed.set(p.payer, (owed.get(p.payer) || 0) + p.amount);
      for (const [player, amount] of owed) out.push({ type: "thoi", player, seat: seatOf(player), amount });
    }
    return out;
  },

  // The itemised payments, folded away on the result card (static/js/result.js);
  // the thối and cóng are also told once, as the hand ends.
  summary(ctx) {
    const view = ctx.view;
    const result = ctx.hand && ctx.hand.result;
    if (!view || !result || result.voided) return null;
    if (local.thoiShown !== ctx.hand.id) {
      local.thoiShown = ctx.hand.id;
      // One line per player and kind: two black 2s are "Thối heo đen ×2 (−6)".
      const told = new Map();
      for (const p of result.payments.filter((x) => x.reason === "thoi" || x.reason === "cong")) {
        const key = `${p.payer}|${reasonText(p)}`;
        const line = told.get(key) || { payer: p.payer, what: reasonText(p), amount: 0, n: 0 };
        line.amount += p.amount;
        line.n += 1;
        told.set(key, line);
      }
      for (const { payer, what, amount, n } of told.values()) {
        ctx.shell.announce(`${ctx.nameOf(payer)}: ${what}${n > 1 ? ` ×${n}` : ""} (${signed(-amount)})`, "bad");
      }
    }
    const items = result.payments.map((p) => h("li", { "data-reason": p.reason },
      fmt(_("%(payer)s pays %(payee)s %(units)s"), { payer: ctx.nameOf(p.payer), payee: ctx.nameOf(p.payee), units: p.amount }), " — ", reasonText(p),
      p.detail && p.detail.cards ? h("span", { class: "muted" }, ` ${text(p.detail.cards)}`) : null));
    return h("div", { class: "sum-body" },
      h("h4", {}, _("Payments (units of the stake)")), h("ol", { class: "payments" }, items));
  },

  known(ctx) {
    const view = ctx.view;
    const known = {};
    if (!view.finished) return { known };
    view.hands.forEach((left, i) => {
      const played = view.history.filter((m) => m.player === i).flatMap((m) => m.cards);
      known[i] = [...left, ...played];
    });
    return { known };
  },
};

// The replay page (static/js/replay.js): the events as text and the cards
// known for the fairness check (the table at each step is drawn as live).
game.replay = {
  describe(e, name) {
    switch (e.type) {
      case "played": return `${name(e.player)}: ${COMBOS[e.combination] || e.combination} ${text(e.cards)}${e.chop ? " — Chặt!" : ""}`;
      case "passed": return fmt(_("%(name)s passes"), { name: name(e.player) });
      case "round_started": return fmt(_("%(name)s leads a new round"), { name: name(e.leader) });
      case "chop_settled": return fmt(_("Chặt! %(loser)s pays %(winner)s %(units)s units"), { loser: name(e.payer), winner: name(e.payee), units: e.amount });
      case "instant_won": return `${name(e.player)}: Tới trắng — ${TOI_TRANG[e.kind] || e.kind}`;
      case "hand_dealt": // (the rules' own, after the table's: who leads first)
        return e.first === undefined ? null : fmt(_("%(name)s leads a new round"), { name: name(e.first) });
      default: return null;
    }
  },

  known(events) {
    const known = {};
    const end = events.find((e) => e.type === "hand_finished");
    if (end && end.hands) end.hands.forEach((left, i) => {
      known[i] = [...left, ...events.filter((e) => e.type === "played" && e.player === i).flatMap((e) => e.cards)];
    });
    return { known };
  },
};

export default game;
