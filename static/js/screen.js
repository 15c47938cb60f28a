// The table page as a game screen (static/css/table.css, "the game screen"):
// chat, fairness and the event log are drawers, one button each. On a wide
// screen the open ones stand beside the table (chat open at first); on a small
// one a drawer slides over the table, one at a time, closed at first. Which are
// open is remembered on this device, for each kind of screen. Toasts sit just
// below the top seat, never on it.
import { h, svg } from "./dom.js";
import { _ } from "./i18n.js";
import { fitSeatNames } from "./names.js";

// The same query as table.css's docked drawers.
const WIDE = "(min-width: 1200px) and (min-height: 600px)";
const STORE = "vipgame.drawers";
const DEFAULTS = { wide: ["chat"], small: [] };
const LABELS = { chat: () => _("Chat"), fairness: () => _("Fairness"), log: () => _("What happened"), rules: () => _("Rules") };
const ICONS = {
  chat: "M4 4h16v11H9l-5 4z",
  fairness: "M12 2l8 3.5v6c0 4.8-3.4 8.7-8 10.5-4.6-1.8-8-5.7-8-10.5v-6zM8 12l3 3 5-6",
  log: "M4 6h16M4 12h16M4 18h11",
  rules: "M5 3h11l3 3v15H5zM8 9h8M8 13h8M8 17h5",
};

function icon(name) {
  const node = svg("svg", { class: "drawer-icon", viewBox: "0 0 24 24", "aria-hidden": "true" });
  node.append(svg("path", { d: ICONS[name] }));
  return node;
}

function remembered() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(STORE) || "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

function remember(kind, open) {
  try {
    localStorage.setItem(STORE, JSON.stringify({ ...remembered(), [kind]: open }));
  } catch {
    // Private mode or storage full: the drawers just are not remembered.
  }
}

export function mountDrawers(root, { rulesUrl = "" } = {}) {
  const side = root.querySelector(".side");
  const panels = [...side.querySelectorAll("details[data-drawer]")];
  const wide = window.matchMedia(WIDE);
  const kind = () => (wide.matches ? "wide" : "small");
  const chat = panels.find((p) => p.dataset.drawer === "chat");
  const buttons = new Map();
  const unread = h("span", { class: "unread", hidden: true, "data-unread": "" });
  let unseen = 0;

  const bar = h("div", { class: "drawer-bar", "data-drawer-bar": "" });
  const sync = () => {
    for (const panel of panels) buttons.get(panel).setAttribute("aria-expanded", String(panel.open));
    // Over the table, a drawer starts under its buttons (they switch drawers).
    side.style.top = wide.matches ? "" : `${Math.round(bar.getBoundingClientRect().bottom) + 4}px`;
    root.classList.toggle("drawer-open", panels.some((p) => p.open));
    if (chat && chat.open) unseen = 0;
    unread.hidden = !unseen;
    unread.textContent = unseen > 9 ? "9+" : String(unseen);
  };
  // Shown as remembered for this kind of screen (at first, and when it changes).
  const apply = () => {
    const open = new Set(remembered()[kind()]);
    for (const panel of panels) panel.open = open.has(panel.dataset.drawer);
    sync();
  };
  // The player's own choice, remembered at once for the screen it was made on.
  const choose = (open) => {
    for (const panel of panels) panel.open = open.has(panel.dataset.drawer);
    remember(kind(), [...open]);
    sync();
  };
  const toggle = (panel) => {
    // Over the table there is room for one drawer at a time.
    const open = new Set(wide.matches ? panels.filter((p) => p.open).map((p) => p.dataset.drawer) : []);
    if (panel.open) open.delete(panel.dataset.drawer);
    else open.add(panel.dataset.drawer);
    choose(open);
  };
  const closeAll = () => choose(new Set());

  for (const panel of panels) {
    const name = panel.dataset.drawer;
    buttons.set(panel, h("button", {
      type: "button", class: "drawer-button", title: LABELS[name](), "aria-expanded": "false",
      "data-drawer-toggle": name, onclick: () => toggle(panel),
    }, icon(name), h("span", { class: "label" }, LABELS[name]()), name === "chat" ? unread : null));
    panel.querySelector("summary").addEventListener("click", (e) => { e.preventDefault(); toggle(panel); });
    panel.addEventListener("toggle", sync);
  }
  bar.append(...buttons.values());
  // The table's rules ("Luật chơi"): its own page, in a new tab, so that the
  // game goes on undisturbed here.
  if (rulesUrl) {
    bar.append(h("a", {
      class: "drawer-button", href: rulesUrl, target: "_blank", rel: "noopener", title: LABELS.rules(),
      "data-rules-button": "",
    }, icon("rules"), h("span", { class: "label" }, LABELS.rules())));
  }
  root.querySelector("[data-status]").after(bar);

  // A new chat line while the chat is closed shows on its button.
  const log = side.querySelector("[data-chat-log]");
  if (chat && log) {
    new MutationObserver((changes) => {
      if (chat.open) return;
      unseen += changes.reduce((n, c) => n + c.addedNodes.length, 0);
      sync();
    }).observe(log, { childList: true });
  }
  // Over the table, a tap outside the drawer or Escape closes it.
  document.addEventListener("pointerdown", (e) => {
    if (wide.matches || !root.classList.contains("drawer-open")) return;
    if (!side.contains(e.target) && !bar.contains(e.target)) closeAll();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !wide.matches && root.classList.contains("drawer-open")) closeAll();
  });
  wide.addEventListener("change", apply);
  window.addEventListener("resize", sync);
  apply();
}

const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** Toasts start just below the lowest top seat, or, where they would cover a
 * card of the centre (the pile a chop is about, the board), just below the
 * centre's cards: placed when one comes, when the seats are redrawn (every
 * state) and when the felt changes size. */
export function placeToasts(felt, toast) {
  const place = () => {
    if (!toast.childElementCount) return;
    const box = felt.getBoundingClientRect();
    const inside = box.top + felt.clientTop; // (the toast's top is from inside the felt's rim)
    let below = 0;
    for (const seat of felt.querySelectorAll(".seat.top")) below = Math.max(below, seat.getBoundingClientRect().bottom - inside);
    const cards = [...felt.querySelectorAll("[data-center] .card")]
      .map((card) => card.getBoundingClientRect()).filter((r) => r.width && r.height);
    const at = (top) => {
      toast.style.top = `${Math.round(top)}px`;
      const shown = [...toast.children].map((n) => n.getBoundingClientRect()).filter((r) => r.height);
      const fits = shown.every((r) => r.bottom <= box.bottom - 0.03 * box.height);
      return fits && !shown.some((r) => cards.some((c) => meets(r, c)));
    };
    if (at(below + 6) || !cards.length) return;
    const under = Math.max(...cards.map((c) => c.bottom)) - inside + 6;
    if (!at(under)) at(below + 6); // (no room below them either: as before)
  };
  new MutationObserver(place).observe(toast, { childList: true });
  new MutationObserver(place).observe(felt, { childList: true });
  new ResizeObserver(place).observe(felt);
}

/** The factors by which a big screen scales the table (static/css/fit.css,
 * "the table scales as a whole"), as unitless custom properties: --felt-k on
 * the felt, its width over 1000 px (at least 1), for the seats and the
 * centre; --bar-k on the table, the screen over 1600×900 (1 to 2), for my
 * bar. Computed here because CSS alone would divide a length by a length
 * (typed arithmetic in calc(), which only Chromium does); the stylesheet
 * uses them from 1600×900 up only. */
export function scaleWithScreen(root, felt) {
  const round = (k) => String(Math.round(k * 1000) / 1000);
  const set = () => {
    const width = parseFloat(getComputedStyle(felt).width) || 0;
    felt.style.setProperty("--felt-k", round(Math.max(1, width / 1000)));
    const bar = Math.min(window.innerWidth / 1600, window.innerHeight / 900);
    root.style.setProperty("--bar-k", round(Math.min(2, Math.max(1, bar))));
  };
  new ResizeObserver(set).observe(felt);
  window.addEventListener("resize", set);
  set();
}

export function mountScreen(shell) {
  mountDrawers(shell.root, { rulesUrl: shell.config.rules_url });
  placeToasts(shell.felt, shell.toast);
  fitSeatNames(shell.felt);
  scaleWithScreen(shell.root, shell.felt);
}
