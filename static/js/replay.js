// The visual replay: the table itself (felt, seats, cards, pile or board,
// chips) stepping through a finished hand. Each step is a state the server
// replayed through the rules (games.selectors.hand_steps): the viewer's view
// after one change, nothing dealt or shown later; the result comes with the
// last step. The felt's parts are drawn by the game's own module
// (static/js/games/*.js: seat, center, mine, summary, events), the seats with
// the live table's markup (table.css). The fairness check of the deal stays.
import { h, replace, $ } from "./dom.js";
import { _, fmt, pgettext, chips, lang } from "./i18n.js";
import { text } from "./cards.js";
import { verifyHand } from "./fairness.js";
import { resultCard } from "./result.js";
import { icon } from "./icons.js";
import { fitSeatNames } from "./names.js";

const data = JSON.parse($("#replay-data").textContent);
const replayed = JSON.parse($("#replay-steps").textContent);
const config = JSON.parse($("#replay-config").textContent);
const root = $("[data-replay-app]");
const game = (await import(root.dataset.gameModule)).default;
const steps = replayed ? replayed.steps : [];
const players = data.players;
const positions = players.map((p) => p.position);
const me = data.you;
const name = (i) => (players[i] ? players[i].name : `#${i + 1}`);
const STEP_MS = 1600;
const SPEEDS = [0.5, 1, 2, 4];
let step = 0;
let speed = 1;
let playing = false;
let timer = null;
let resultClosed = false;

// -- what a step says ----------------------------------------------------------

function describe(e) {
  return game.replay.describe(e, name) ?? describeCommon(e);
}

function describeCommon(e) {
  switch (e.type) {
    case "hand_started": return e.number ? fmt(_("Hand #%(n)s starts"), { n: e.number }) : null;
    case "hand_dealt": return _("The cards are dealt");
    case "dealt": return fmt(_("You are dealt %(cards)s"), { cards: text(e.cards) });
    case "timed_out": return fmt(_("%(name)s ran out of time"), { name: name(e.player) });
    case "left": return fmt(_("%(name)s left"), { name: name(e.player) });
    case "hand_finished":
      if (e.winner !== undefined && e.winner !== null) return fmt(_("%(name)s wins!"), { name: name(e.winner) });
      return _("The hand is over");
    default: return null;
  }
}

const caption = (events) => [...new Set(events.map(describe).filter(Boolean))].join(" · ");

// -- the table at a step ---------------------------------------------------------

/** What the game modules read of the live table (TableShell.ctx), for step k. */
function ctxAt(k) {
  const s = steps[k];
  const last = k === steps.length - 1;
  // The seat's chips: a stack where the game has one (else nothing: a wallet is not the hand's).
  const seats = players.map((p, i) => ({
    position: p.position, user_id: p.user_id, name: p.name, bot: p.bot,
    chips: s.view && Array.isArray(s.view.stacks) ? s.view.stacks[i] : null,
  }));
  const table = { id: data.table, stake: config.stake, seat_count: config.seat_count, status: last ? "summary" : "playing", seats };
  // Each step is a picture of its own: the modules keep what a player was doing
  // (a selection, an arrangement) by hand id.
  const hand = { id: `${data.hand}:${k}`, number: data.number, players, view: s.view, finished: last, settled: true, result: s.result };
  const seat = me === null ? null : positions[me];
  const state = { v: k, seat, you: me, actors: s.actors, clock: null, table, hand, events: s.events };
  return {
    shell, config, state, table, hand, view: s.view, you: seat, me, actors: s.actors, players: positions,
    playerAt: (position) => positions.indexOf(position),
    posOf: (index) => (index in positions ? positions[index] : null),
    nameOf: name,
    seatAt: (position) => seats.find((x) => x.position === position) || null,
    act: () => null,
    now: () => Date.now(),
  };
}

const felt = h("div", { class: "felt", "data-felt": "" });
const center = h("div", { class: "center", "data-center": "" });
const toast = h("div", { class: "toast", "aria-live": "polite", "data-toast": "" });
const summary = h("div", { class: "summary", hidden: true, "data-summary": "" });
const mine = h("div", { class: "mine", "data-mine": "" });
const now = h("p", { class: "replay-now", "data-replay-now": "", "aria-live": "polite" });
const log = h("ol", { class: "replay-events", "data-replay-log": "" });
felt.append(center, toast);

// What the modules call on the live table's shell; a replay only shows.
const shell = {
  render: () => show(step),
  announce: (message, kind = "info") => flash(message, kind),
  flash: (message, kind = "info") => flash(message, kind),
  eventLog: h("ol"),
  live: { say: () => {} }, // (the replay says each step in its own live line, `now`)
};

function flash(message, kind) {
  const node = h("div", { class: `flash ${kind}`, "data-flash": kind }, message);
  toast.append(node);
  setTimeout(() => node.remove(), 2400 / speed);
}

function seatNode(ctx, index, acting, dealer) {
  const p = players[index];
  const seat = ctx.seatAt(p.position);
  const stack = game.seatChips ? game.seatChips(ctx, seat) : seat.chips;
  const initial = (p.name || "?").trim().charAt(0).toUpperCase() || "?";
  return h("div", {
    class: `seat${index === me ? " you" : ""}${acting ? " acting" : ""}`,
    "data-seat": p.position, "data-player": index, "data-name": p.name,
  },
  h("div", { class: "avatar" }, h("span", { class: "initial" }, initial),
    dealer ? h("span", { class: "dealer", title: _("Dealer") }, "D") : null),
  h("div", { class: "plate" },
    h("span", { class: "name", "data-seat-name": "" }, p.name),
    stack === null || stack === undefined ? null : h("span", { class: "chips" }, h("span", { class: "chip-icon" }), chips(stack))),
  p.bot ? h("div", { class: "badges" }, h("span", { class: "badge bot", title: _("Bot"), "data-bot": "" }, icon("bot", _("Bot")))) : null,
  game.seat(ctx, p.position));
}

/** The hand's players where they sat, the viewer at the bottom (as at the live table). */
function renderSeats(ctx) {
  for (const node of felt.querySelectorAll(".seat")) node.remove();
  const n = Math.max(config.seat_count, ...positions.map((p) => p + 1));
  const base = ctx.you === null ? 0 : ctx.you;
  const dealer = game.dealer ? game.dealer(ctx) : null;
  for (let k = 0; k < n; k++) {
    const position = (base + k) % n;
    const index = positions.indexOf(position);
    if (index < 0) continue;
    const angle = Math.PI / 2 + (2 * Math.PI * k) / n;
    const x = 50 + 44 * Math.cos(angle);
    const y = 50 + 40 * Math.sin(angle);
    const node = seatNode(ctx, index, ctx.actors.includes(index), dealer === position);
    node.style.left = `${x}%`;
    node.style.top = `${y}%`;
    node.classList.add(y > 60 ? "bottom" : y < 40 ? "top" : "middle");
    if (x < 30) node.classList.add("left");
    if (x > 70) node.classList.add("right");
    felt.append(node);
  }
}

/** The result card (static/js/result.js) at the last step, beside the table. */
function renderSummary(ctx) {
  const result = ctx.hand.result;
  if (!result || resultClosed) {
    replace(summary);
    summary.hidden = true;
    return;
  }
  const close = () => { resultClosed = true; summary.hidden = true; };
  replace(summary, resultCard(ctx, game, { onClose: close }));
  summary.hidden = false;
}

// -- stepping ------------------------------------------------------------------

const slider = h("input", {
  type: "range", min: 1, max: Math.max(1, steps.length), value: 1, step: 1,
  "aria-label": _("Step"), "data-step-slider": "",
  oninput: (e) => go(Number(e.target.value) - 1),
});
const label = h("span", { class: "step", "data-step-label": "" });
const playButton = h("button", { type: "button", class: "button small", "data-play": "", onclick: () => toggle() });
const speedSelect = h("select", {
  "aria-label": _("Speed"), "data-speed": "",
  onchange: (e) => { speed = Number(e.target.value); if (playing) schedule(); },
}, SPEEDS.map((s) => h("option", { value: s, selected: s === speed }, `${String(s).replace(".", lang() === "vi" ? "," : ".")}×`)));

function button(label, attrs, onclick) {
  return h("button", { type: "button", class: "button small ghost", onclick, ...attrs }, label);
}

/** Show step k; `forward` when it follows the step shown (its events flash as at the table). */
function show(k, { forward = false } = {}) {
  step = Math.max(0, Math.min(steps.length - 1, k));
  const ctx = ctxAt(step);
  const last = step === steps.length - 1;
  if (!forward) replace(toast);
  if (!last) resultClosed = false;
  if (forward) game.events(ctx, steps[step].events);
  renderSeats(ctx);
  replace(center, game.center(ctx));
  replace(mine, game.mine(ctx) ?? null);
  renderSummary(ctx);
  replace(now, caption(steps[step].events));
  replace(log, steps.slice(0, step + 1).map((s, i) => h("li", {
    class: i === step ? "current" : "", "data-step": i, onclick: () => go(i),
  }, caption(s.events))));
  log.scrollTop = log.scrollHeight;
  label.textContent = fmt(_("Step %(n)s of %(total)s"), { n: step + 1, total: steps.length });
  slider.value = String(step + 1);
  root.dataset.step = String(step);
  root.dataset.last = last ? "1" : "0";
  if (last) stop();
}

function go(k) {
  const forward = k === step + 1;
  if (!forward) stop();
  show(k, { forward });
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(() => { go(step + 1); if (playing) schedule(); }, STEP_MS / speed);
}

function toggle() {
  if (playing) { stop(); return; }
  if (step === steps.length - 1) show(0);
  playing = true;
  paint();
  schedule();
}

function stop() {
  playing = false;
  clearTimeout(timer);
  paint();
}

function paint() {
  playButton.textContent = playing ? `⏸ ${_("Pause")}` : `▶ ${pgettext("replay", "Play")}`;
  playButton.dataset.playing = playing ? "1" : "0";
}

document.addEventListener("keydown", (e) => {
  if (e.target.closest && e.target.closest("input, select, textarea")) return;
  const keys = {
    ArrowRight: () => go(step + 1), ArrowLeft: () => go(step - 1),
    Home: () => go(0), End: () => go(steps.length - 1),
  };
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  else if (e.key === " " && !e.target.closest("button, a, summary")) { e.preventDefault(); toggle(); }
});

// -- the fairness check of the deal ---------------------------------------------

/** The cards known to have been dealt: the player's own, and what the game showed. */
function known() {
  const { known: shown, knownBoard = null } = game.replay.known(data.events, { name, you: me, players });
  const result = { ...shown };
  const dealt = data.events.find((e) => e.type === "dealt");
  if (dealt && me !== null) result[me] = dealt.cards;
  return { known: result, knownBoard };
}

async function verify(out) {
  out.textContent = _("Checking…");
  try {
    const f = data.fairness;
    const r = await verifyHand({
      game, serverSeed: f.server_seed, commitment: f.commitment, handId: f.hand_id,
      clientSeeds: f.client_seeds, players: players.length, ...known(),
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

function fairness() {
  const f = data.fairness;
  const out = h("p", { class: "verify-result", "data-verify-result": "" });
  const kv = (k, v) => h("div", { class: "kv" }, h("span", { class: "k" }, k), h("code", {}, v));
  return h("details", { class: "panel fairness" }, h("summary", {}, _("Fairness (provably fair)")),
    kv(_("Commitment"), f.commitment), kv(_("Server seed (revealed)"), f.server_seed), kv(_("Hand id"), f.hand_id),
    kv(_("Client seeds, in seat order"), JSON.stringify(f.client_seeds)),
    h("button", { type: "button", class: "button small", "data-verify": "", onclick: () => verify(out) }, _("Verify the deal")), out);
}

// -- the page --------------------------------------------------------------------

if (steps.length) {
  const controls = h("div", { class: "replay-controls", "data-replay-controls": "" },
    button("|◀", { "aria-label": _("First"), "data-first": "" }, () => go(0)),
    button("◀", { "aria-label": _("Back"), "data-prev": "" }, () => go(step - 1)),
    playButton,
    button("▶", { "aria-label": _("Next"), "data-next": "" }, () => go(step + 1)),
    button("▶|", { "aria-label": _("Last"), "data-last": "" }, () => go(steps.length - 1)),
    slider, label, speedSelect);
  replace(root,
    h("div", { class: "replay-table" }, felt),
    mine,
    controls,
    h("div", { class: "replay-side" }, summary, now,
      h("details", { class: "panel log", open: window.innerWidth > 900 }, h("summary", {}, _("What happened")), log),
      fairness()));
  fitSeatNames(felt); // (long names abbreviated by rule, as at the live table)
  paint();
  show(0);
} else {
  // The record could not be replayed through the rules: its events as text.
  replace(root, h("div", { class: "replay-side" },
    h("ol", { class: "replay-events", "data-replay-log": "" }, data.events.map((e) => h("li", {}, describe(e) || e.type))),
    fairness()));
}
