// The table's motion (Web Animations): cards dealt from the centre to each
// seat, played cards flying to the pile, Mậu Binh chi flipping one by one with
// the units won or lost against each opponent, chips sliding to the pot and to
// the winners, the board turned street by street (an all-in's run out one
// street at a time, the result after the last), a win banner placed clear of
// every card. With `prefers-reduced-motion` nothing moves (the
// banner still shows, still). `log` lists each moment and how many animations
// it started (the browser tests read it as window.vipMotion.log).
import { h } from "./dom.js";
import { _, fmt, signed } from "./i18n.js";
import { backEl, cardEl } from "./cards.js";
import { STREET_MS, holdMs } from "./moments.js";

const log = [];
globalThis.vipMotion = { log };

const EASE = "cubic-bezier(.2,.7,.3,1)";
const BANNER_MS = 2400;

export const reducedMotion = () => !!globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

let layer = null;
function fxLayer() {
  if (!layer || !layer.isConnected) {
    layer = h("div", { class: "fx-layer", "aria-hidden": "true", "data-fx": "" });
    document.body.append(layer);
  }
  return layer;
}

function centreOf(node) {
  const r = node.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

const at = (p) => `translate(${p.x}px, ${p.y}px) translate(-50%, -50%)`;
/** The node if it is laid out (a phone's arrangement may hide the felt). */
function shown(node) {
  const r = node && node.getBoundingClientRect();
  return r && (r.width || r.height) ? node : null;
}
const seatSpot = (shell, seat) => shown(shell.felt.querySelector(`.seat[data-seat="${seat}"] .avatar`));
// Where cards come from and go to: the felt's centre, else my own cards.
const middle = (shell) => shown(shell.center) || shell.mine;
const pot = (shell) => shown(shell.center.querySelector("[data-pot]")) || middle(shell);

/** A token (a card back, a chip, a label) flying in the fx layer from one
 * point to another; it goes when it lands. */
function fly(token, from, to, { duration = 360, delay = 0, lift = 0 } = {}) {
  token.classList.add("fx-token");
  fxLayer().append(token);
  const frames = [
    { transform: at(from), opacity: 0.2 },
    { transform: at({ x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 - lift }), opacity: 1, offset: 0.5 },
    { transform: at(to), opacity: 1 },
  ];
  const animation = token.animate(frames, { duration, delay, easing: EASE, fill: "both" });
  animation.onfinish = animation.oncancel = () => token.remove();
  return 1;
}

/** An element on the screen arriving at its place from `from` (a point). */
function arrive(node, from, { duration = 340, delay = 0, turn = 0 } = {}) {
  const c = centreOf(node);
  const start = `translate(${from.x - c.x}px, ${from.y - c.y}px) rotate(${turn}deg) scale(.6)`;
  node.animate([{ transform: start, opacity: 0 }, { transform: "none", opacity: 1 }],
    { duration, delay, easing: EASE, fill: "backwards" });
  return 1;
}

function shake(node, { delay = 0, size = 7 } = {}) {
  const x = (d) => ({ transform: `translateX(${d}px)` });
  node.animate([x(0), x(-size), x(size), x(-size / 2), x(size / 2), x(0)], { duration: 420, delay });
  return 1;
}

function pulse(node, { scale = 1.2, times = 1 } = {}) {
  node.animate([{ transform: "scale(1)" }, { transform: `scale(${scale})` }, { transform: "scale(1)" }],
    { duration: 420, iterations: times, easing: "ease-in-out" });
  return 1;
}

/** A label rising over a point and fading (units won or lost, "Thối"). */
function float(text, kind, where, { delay = 0 } = {}) {
  const label = h("span", { class: `fx-token fx-label ${kind}` }, text);
  fxLayer().append(label);
  const up = { x: where.x, y: where.y - 34 };
  const animation = label.animate([
    { transform: at(where), opacity: 0 },
    { transform: at({ x: where.x, y: where.y - 12 }), opacity: 1, offset: 0.2 },
    { transform: at(up), opacity: 1, offset: 0.8 },
    { transform: at(up), opacity: 0 },
  ], { duration: 1500, delay, fill: "both" });
  animation.onfinish = animation.oncancel = () => label.remove();
  return 1;
}

const chip = () => h("span", { class: "fx-chip" });

function chipsBetween(from, to, { count = 3, delay = 0 } = {}) {
  let n = 0;
  for (let i = 0; i < count; i++) n += fly(chip(), from, to, { duration: 420, delay: delay + i * 60, lift: 18 });
  return n;
}

const MOTIONS = {
  deal(m, shell) {
    const from = centreOf(middle(shell));
    let n = 0;
    const others = m.seats.filter((seat) => seat !== shell.state.seat);
    others.forEach((seat, k) => {
      const spot = seatSpot(shell, seat);
      if (!spot) return;
      const to = centreOf(spot);
      for (let i = 0; i < 3; i++) n += fly(backEl({ small: true }), from, to, { delay: (i * others.length + k) * 45 });
    });
    shell.mine.querySelectorAll(".card").forEach((card, i) => {
      n += arrive(card, from, { delay: 80 + i * 28 });
    });
    return n;
  },

  turn(m, shell) {
    const spot = seatSpot(shell, m.seat);
    return spot ? pulse(spot, { scale: 1.18, times: 2 }) : 0;
  },

  play(m, shell) {
    const spot = m.mine ? shell.mine : seatSpot(shell, m.seat);
    if (!spot) return 0;
    const from = centreOf(spot);
    const pile = shell.center.querySelector("[data-pile]");
    if (pile && pile.dataset.pile === m.cards.join(" ")) {
      let n = 0;
      pile.querySelectorAll(".card").forEach((card, i) => { n += arrive(card, from, { delay: i * 30, turn: -12 }); });
      return n;
    }
    // (An earlier play of the same change: the pile already shows a later one.)
    const to = centreOf(middle(shell));
    return m.cards.reduce((n, card, i) => n + fly(cardEl(card, { small: true }), from, to, { delay: i * 30 }), 0);
  },

  chop(m, shell) {
    const pile = shell.center.querySelector("[data-pile]") || shell.center;
    return shake(pile, { delay: 250, size: 10 });
  },

  thoi(m, shell) {
    const spot = seatSpot(shell, m.seat);
    if (!spot) return 0;
    return shake(spot) + float("Thối", "minus", centreOf(spot), { delay: 200 });
  },

  allin(m, shell) {
    const spot = seatSpot(shell, m.seat);
    if (!spot) return 0;
    return pulse(spot, { scale: 1.3, times: 2 }) + chipsBetween(centreOf(spot), centreOf(pot(shell)), { count: 5 });
  },

  bet(m, shell) {
    const spot = seatSpot(shell, m.seat);
    if (!spot) return 0;
    const bet = spot.closest(".seat").querySelector("[data-bet]");
    return chipsBetween(centreOf(spot), centreOf(bet || pot(shell)), { count: 2 });
  },

  pot(m, shell) {
    const to = centreOf(pot(shell));
    return m.seats.reduce((n, seat) => {
      const spot = seatSpot(shell, seat);
      return spot ? n + chipsBetween(centreOf(spot), to, { count: 2 }) : n;
    }, 0);
  },

  reveal(m, shell) {
    let n = 0;
    const seats = [...shell.felt.querySelectorAll(".seat")];
    seats.forEach((seat, k) => {
      const chi = seat.querySelectorAll(".seat-game > .mini-chi")[m.step - 1];
      if (!chi) return;
      chi.querySelectorAll(".card").forEach((card, i) => {
        card.animate([{ transform: "rotateY(90deg)", filter: "brightness(.4)" }, { transform: "rotateY(0)", filter: "none" }],
          { duration: 300, delay: k * 140 + i * 40, easing: "ease-out", fill: "backwards" });
        n += 1;
      });
    });
    for (const u of m.units) {
      const spot = seatSpot(shell, u.seat);
      if (spot) n += float(signed(u.units), u.units > 0 ? "plus" : u.units < 0 ? "minus" : "", centreOf(spot), { delay: 350 });
    }
    return n;
  },

  board(m, shell) {
    let n = 0;
    m.streets.forEach((cards, k) => {
      cards.forEach((card, i) => {
        const node = shell.center.querySelector(`[data-board] [data-card="${card}"]`);
        if (!node) return;
        node.animate([{ transform: "rotateY(90deg)", opacity: 0 }, { transform: "rotateY(0)", opacity: 1 }],
          { duration: 320, delay: k * STREET_MS + i * 60, easing: "ease-out", fill: "backwards" });
        n += 1;
      });
    });
    return n;
  },

  end(m, shell, hold) {
    let n = 0;
    const sources = shell.center.querySelector("[data-pot]")
      ? [pot(shell)] : m.losers.map((p) => seatSpot(shell, p.seat)).filter(Boolean);
    for (const w of m.winners) {
      const spot = seatSpot(shell, w.seat);
      if (!spot) continue;
      sources.forEach((source, k) => { n += chipsBetween(centreOf(source), centreOf(spot), { count: 4, delay: hold + k * 90 }); });
    }
    return n;
  },
};

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Where the banner's centre goes: the felt's middle unless a card, the
 * board or the pots are there; else just below the centre, just above it,
 * the felt's top, its bottom (the first spot clear of every card shown). */
function bannerSpot(node, shell) {
  const area = (shown(shell.felt) || shell.mine).getBoundingClientRect();
  const size = node.getBoundingClientRect();
  const half = { x: size.width / 2 + 6, y: size.height / 2 + 6 }; // (its pop grows it a little)
  const avoid = [...document.querySelectorAll(".card, [data-board], [data-pot], .pots")]
    .filter((el) => !el.closest("[data-fx]"))
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.width && r.height);
  const x = area.left + area.width / 2;
  const ys = [area.top + area.height / 2];
  const centre = shown(shell.center);
  if (centre) {
    const c = centre.getBoundingClientRect();
    ys.push(c.bottom + half.y + 4, c.top - half.y - 4);
  }
  ys.push(area.top + half.y, area.bottom - half.y);
  const clear = ys.find((y) => !avoid.some((r) => overlaps(
    { left: x - half.x, right: x + half.x, top: y - half.y, bottom: y + half.y }, r)));
  return { x, y: clear === undefined ? ys[0] : clear };
}

/** The hand's end in big letters over the felt, clear of the cards, a short
 * flourish after `hold` ms (a board still running out): my win or loss, or
 * (when I was not dealt in, or broke even) who won. The amounts are the
 * result card's (static/js/result.js). Returns the animations started and
 * what it showed ([outcome, words], null if nothing). */
function banner(m, shell, still, hold) {
  let title;
  let outcome = "other";
  if (m.units !== null && m.units !== 0) {
    outcome = m.units > 0 ? "win" : "lose";
    title = m.units > 0 ? _("You win!") : _("You lose");
  } else if (m.winners.length) {
    title = fmt(_("%(name)s wins!"), { name: m.winners.map((w) => w.name).join(", ") });
  } else {
    return { animations: 0, shown: null };
  }
  for (const old of fxLayer().querySelectorAll("[data-win-banner]")) old.remove();
  const node = h("div", { class: `win-banner ${outcome}`, role: "status", "data-win-banner": outcome },
    h("strong", {}, title));
  node.style.visibility = "hidden";
  fxLayer().append(node);
  const spot = bannerSpot(node, shell);
  Object.assign(node.style, { left: `${spot.x}px`, top: `${spot.y}px`, visibility: "" });
  const shown = [outcome, title];
  if (still) {
    setTimeout(() => node.remove(), BANNER_MS);
    return { animations: 0, shown };
  }
  const place = "translate(-50%, -50%)";
  const animation = node.animate([
    { transform: `${place} scale(.4)`, opacity: 0 },
    { transform: `${place} scale(1.08)`, opacity: 1, offset: 0.12 },
    { transform: `${place} scale(1)`, opacity: 1, offset: 0.2 },
    { transform: `${place} scale(1)`, opacity: 1, offset: 0.85 },
    { transform: `${place} scale(.96)`, opacity: 0 },
  ], { duration: BANNER_MS, delay: hold, easing: "ease-out", fill: "both" });
  animation.onfinish = animation.oncancel = () => node.remove();
  return { animations: 1, shown };
}

/** Move the screen for these moments (static/js/moments.js). */
export function react(list, shell) {
  const still = reducedMotion() || document.hidden; // (a hidden tab runs no animation)
  let hold = 0; // (a board running out street by street holds back what follows)
  for (const m of list) {
    let animations = 0;
    let shown = null;
    if (m.type === "end") ({ animations, shown } = banner(m, shell, still, hold));
    if (!still && MOTIONS[m.type]) animations += MOTIONS[m.type](m, shell, hold);
    if (!still) hold += holdMs(m);
    // (an end keeps my units, whether anyone won and the banner it showed: the
    // next hand may be dealt, and the banner gone, before a reader of the log
    // looks)
    log.push(m.type === "end"
      ? { type: m.type, animations, units: m.units, winners: m.winners.length, banner: shown }
      : { type: m.type, animations });
    if (log.length > 200) log.shift();
  }
}
