// The replay viewer: step through a finished hand's events as this player was
// allowed to see them (games.selectors.hand_replay), with the picture of the
// table at each step and the fairness check of the deal. The game's own
// events, picture and dealing order are its module's (static/js/games/*.js).
import { h, replace } from "./dom.js";
import { _, fmt, signed } from "./i18n.js";
import { text } from "./cards.js";
import { verifyHand } from "./fairness.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const root = document.querySelector("[data-replay-app]");
const game = (await import(root.dataset.gameModule)).default;
const events = data.events;
const name = (i) => (data.players[i] ? data.players[i].name : `#${i + 1}`);
const hand = { name, you: data.you, players: data.players };
let step = events.length ? 0 : -1;

function describe(e) {
  return game.replay.describe(e, name) ?? describeCommon(e);
}

function describeCommon(e) {
  switch (e.type) {
    case "hand_started": return fmt(_("Hand #%(n)s starts"), { n: e.number || data.number });
    case "deal": return _("The cards are dealt");
    case "dealt": return fmt(_("You are dealt %(cards)s"), { cards: text(e.cards) });
    case "timed_out": return fmt(_("%(name)s ran out of time"), { name: name(e.player) });
    case "left": return fmt(_("%(name)s left"), { name: name(e.player) });
    case "hand_finished":
      if (e.winner !== undefined && e.winner !== null) return fmt(_("%(name)s wins!"), { name: name(e.winner) });
      return _("The hand is over");
    default: return e.type;
  }
}

/** The table as this player saw it after event `upTo`. */
function picture(upTo) {
  return h("div", { class: "picture" }, game.replay.picture(events.slice(0, upTo + 1), hand));
}

/** The cards known to have been dealt: the player's own, and what the game showed. */
function known() {
  const { known: shown, knownBoard = null } = game.replay.known(events, hand);
  const result = { ...shown };
  const dealt = events.find((e) => e.type === "dealt");
  if (dealt && data.you !== null) result[data.you] = dealt.cards;
  return { known: result, knownBoard };
}

async function verify(out) {
  out.textContent = _("Checking…");
  try {
    const f = data.fairness;
    const r = await verifyHand({
      game, serverSeed: f.server_seed, commitment: f.commitment, handId: f.hand_id,
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
