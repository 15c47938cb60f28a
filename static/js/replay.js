// The replay viewer: step through a finished hand's events as this player was
// allowed to see them (games.selectors.hand_replay), with the picture of the
// table at each step and the fairness check of the deal.
import { h, replace } from "./dom.js";
import { _, fmt, chips, signed } from "./i18n.js";
import { cardRow, text } from "./cards.js";
import { verifyHand } from "./fairness.js";
import { HAND_NAMES_VI, INSTANT_NAMES_VI } from "./chi.js";
import { COMBOS_VI, TOI_TRANG_VI } from "./terms.js";
import { actionText, handName, streetName } from "./poker.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const root = document.querySelector("[data-replay-app]");
const events = data.events;
const name = (i) => (data.players[i] ? data.players[i].name : `#${i + 1}`);
let step = events.length ? 0 : -1;

function describe(e) {
  switch (e.type) {
    case "hand_started": return fmt(_("Hand #%(n)s starts"), { n: e.number || data.number });
    case "deal": return _("The cards are dealt");
    case "dealt": return fmt(_("You are dealt %(cards)s"), { cards: text(e.cards) });
    case "submitted": return fmt(_("%(name)s has arranged"), { name: name(e.player) });
    case "arranged": return fmt(_("Your arrangement: %(c1)s | %(c2)s | %(c3)s"), { c1: text(e.chi1), c2: text(e.chi2), c3: text(e.chi3) }) + (e.lung ? " — Binh lủng" : "");
    case "auto_arranged": return e.players.length ? fmt(_("Arranged automatically: %(names)s"), { names: e.players.map(name).join(", ") }) : _("Everyone arranged in time");
    case "reveal": return `Chi ${e.step}: ` + e.hands.map((x) => `${name(x.player)} ${HAND_NAMES_VI[x.hand] || x.hand} (${signed(e.units[x.player])})`).join(" · ");
    case "played": return `${name(e.player)}: ${COMBOS_VI[e.combination] || e.combination} ${text(e.cards)}${e.chop ? " — Chặt!" : ""}`;
    case "passed": return fmt(_("%(name)s passes"), { name: name(e.player) });
    case "new_round": return fmt(_("%(name)s leads a new round"), { name: name(e.leader) });
    case "chop_settled": return fmt(_("Chặt! %(loser)s pays %(winner)s %(units)s units"), { loser: name(e.payer), winner: name(e.payee), units: e.amount });
    case "timed_out": return fmt(_("%(name)s ran out of time"), { name: name(e.player) });
    case "left": return fmt(_("%(name)s left"), { name: name(e.player) });
    case "hand_finished":
      if (e.winner !== undefined && e.winner !== null) return fmt(_("%(name)s wins!"), { name: name(e.winner) });
      return _("The hand is over");
    case "hand_start": return _("The cards are dealt");
    case "blind": return `${name(e.player)}: ${e.blind === "small" ? "SB" : "BB"} ${chips(e.amount)}`;
    case "action": return `${name(e.player)} ${actionText(e)}`;
    case "board": return `${streetName(e.street)}: ${text(e.cards)}`;
    case "show": return `${name(e.player)}: ${text(e.cards)}`;
    case "showdown": return e.hands.map((x) => `${name(x.player)}: ${handName(x.category, x.best)}`).join(" · ");
    case "pot": return e.winners.map((w, i) => fmt(_("%(name)s wins %(amount)s"), { name: name(w), amount: chips(e.shares[i]) })).join(", ");
    case "uncalled": return fmt(_("%(amount)s returned to %(name)s"), { amount: chips(e.amount), name: name(e.player) });
    case "hand_end": return _("The hand is over");
    default:
      if (TOI_TRANG_VI[e.type] && e.cards) return `${name(e.player)}: Tới trắng — ${TOI_TRANG_VI[e.type]}`;
      return e.type;
  }
}

/** The table as this player saw it after event `upTo`. */
function picture(upTo) {
  const seen = events.slice(0, upTo + 1);
  const parts = [];
  const dealt = seen.find((e) => e.type === "dealt");
  if (data.game === "tienlen") {
    const played = seen.filter((e) => e.type === "played");
    if (dealt) {
      const gone = new Set(played.filter((e) => e.player === data.you).flatMap((e) => e.cards));
      parts.push(h("div", {}, h("strong", {}, _("Your cards")), " ", cardRow(dealt.cards.filter((c) => !gone.has(c)), { small: true })));
    }
    const last = [...seen].reverse().find((e) => e.type === "played" || e.type === "new_round");
    if (last && last.type === "played") parts.push(h("div", {}, h("strong", {}, _("On the table")), " ", name(last.player), " ", cardRow(last.cards, { small: true })));
    const counts = data.players.map((p, i) => `${p.name}: ${13 - played.filter((e) => e.player === i).reduce((n, e) => n + e.cards.length, 0)}`);
    parts.push(h("div", { class: "muted" }, _("Cards left"), ": ", counts.join(" · ")));
  } else if (data.game === "holdem") {
    if (dealt) parts.push(h("div", {}, h("strong", {}, _("Your cards")), " ", cardRow(dealt.cards, { small: true })));
    const board = seen.filter((e) => e.type === "board").flatMap((e) => e.cards);
    parts.push(h("div", {}, h("strong", {}, _("Board")), " ", board.length ? cardRow(board, { small: true }) : "—"));
    for (const show of seen.filter((e) => e.type === "show")) parts.push(h("div", {}, name(show.player), " ", cardRow(show.cards, { small: true })));
  } else {
    if (dealt) parts.push(h("div", {}, h("strong", {}, _("Your cards")), " ", cardRow(dealt.cards, { small: true }),
      dealt.instant ? h("span", { class: "badge gold" }, INSTANT_NAMES_VI[dealt.instant] || dealt.instant) : null));
    for (const reveal of seen.filter((e) => e.type === "reveal")) {
      parts.push(h("div", { class: "mini-chi" }, h("strong", {}, `Chi ${reveal.step}`),
        reveal.hands.map((x) => h("span", { class: "rev" }, ` ${name(x.player)} `, cardRow(x.cards, { small: true }), ` ${HAND_NAMES_VI[x.hand] || x.hand}`))));
    }
  }
  return h("div", { class: "picture" }, parts);
}

function known() {
  const result = {};
  const dealt = events.find((e) => e.type === "dealt");
  if (dealt && data.you !== null) result[data.you] = dealt.cards;
  if (data.game === "maubinh") {
    const byPlayer = {};
    for (const e of events.filter((x) => x.type === "reveal")) for (const x of e.hands) (byPlayer[x.player] ||= []).push(...x.cards);
    for (const [i, cards] of Object.entries(byPlayer)) if (cards.length === 13) result[i] = cards;
  } else if (data.game === "tienlen") {
    const end = events.find((e) => e.type === "hand_finished");
    if (end && end.hands) end.hands.forEach((left, i) => {
      result[i] = [...left, ...events.filter((e) => e.type === "played" && e.player === i).flatMap((e) => e.cards)];
    });
  } else {
    for (const e of events.filter((x) => x.type === "show")) result[e.player] = e.cards;
  }
  const board = data.game === "holdem" ? events.filter((e) => e.type === "board").flatMap((e) => e.cards) : null;
  return { known: result, knownBoard: board };
}

async function verify(out) {
  out.textContent = _("Checking…");
  try {
    const f = data.fairness;
    const r = await verifyHand({
      game: data.game, serverSeed: f.server_seed, commitment: f.commitment, handId: f.hand_id,
      clientSeeds: f.client_seeds, players: data.players.length, ...known(),
    });
    out.dataset.ok = r.commitmentOk && r.dealOk ? "1" : "0";
    out.className = "verify-result " + (r.commitmentOk && r.dealOk ? "ok" : "bad");
    out.textContent = (r.commitmentOk ? _("✓ The seed matches the commitment.") : _("✗ The seed does NOT match the commitment!"))
      + " " + (r.dealOk ? _("✓ The recomputed deck deals exactly the cards that were dealt.") : _("✗ The recomputed deck does NOT match the cards dealt!"));
  } catch (err) {
    out.className = "verify-result bad";
    out.textContent = String(err.message || err);
  }
}

function render() {
  const go = (n) => () => { step = Math.max(0, Math.min(events.length - 1, n)); render(); };
  const list = h("ol", { class: "replay-events" }, events.map((e, i) => h("li", {
    class: i === step ? "current" : i > step ? "future" : "", "data-step": i, onclick: go(i),
  }, describe(e))));
  const out = h("p", { class: "verify-result", "data-verify-result": "" });
  const f = data.fairness;
  const net = data.result && data.result.chips;
  replace(root,
    h("div", { class: "replay-controls" },
      h("button", { type: "button", class: "button small ghost", onclick: go(0), "aria-label": _("First") }, "⏮"),
      h("button", { type: "button", class: "button small", onclick: go(step - 1), "data-prev": "" }, "◀ ", _("Back")),
      h("span", { class: "step", "data-step-label": "" }, fmt(_("Step %(n)s of %(total)s"), { n: step + 1, total: events.length })),
      h("button", { type: "button", class: "button small", onclick: go(step + 1), "data-next": "" }, _("Next"), " ▶"),
      h("button", { type: "button", class: "button small ghost", onclick: go(events.length - 1), "aria-label": _("Last") }, "⏭")),
    h("p", { class: "replay-now", "data-replay-now": "" }, step >= 0 ? describe(events[step]) : ""),
    step >= 0 ? picture(step) : null,
    list,
    net ? h("ul", { class: "units-list" }, data.players.map((p, i) => h("li", {}, p.name, ": ", h("strong", { class: net[i] > 0 ? "plus" : net[i] < 0 ? "minus" : "" }, signed(net[i]))))) : null,
    h("details", { class: "fairness" }, h("summary", {}, _("Fairness (provably fair)")),
      h("div", { class: "kv" }, h("span", { class: "k" }, _("Commitment")), h("code", {}, f.commitment)),
      h("div", { class: "kv" }, h("span", { class: "k" }, _("Server seed (revealed)")), h("code", {}, f.server_seed)),
      h("div", { class: "kv" }, h("span", { class: "k" }, _("Hand id")), h("code", {}, f.hand_id)),
      h("div", { class: "kv" }, h("span", { class: "k" }, _("Client seeds, in seat order")), h("code", {}, JSON.stringify(f.client_seeds))),
      h("button", { type: "button", class: "button small", "data-verify": "", onclick: () => verify(out) }, _("Verify the deal")), out));
}

document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") { step = Math.min(events.length - 1, step + 1); render(); }
  if (e.key === "ArrowLeft") { step = Math.max(0, step - 1); render(); }
});
render();
