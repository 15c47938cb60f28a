// Keyboard and screen-reader play (WCAG 2.2 AA, issue 32 item 6): focus kept
// across the table's re-renders, cards as one tab stop moved through by the
// arrow keys, action shortcut keys, and the polite live region that says what
// happens. The table is redrawn from each state by rebuilding its DOM: without
// this a keyboard player's focus fell to the page's body at every turn.
import { h } from "./dom.js";

// The attributes that name a control for good across redraws, most specific first.
const KEYS = ["data-card", "data-action", "data-hint", "data-sit", "data-profile-open", "data-verify", "data-result-close", "data-confirm-no", "data-confirm-yes"];

/** A selector that finds `node`'s control again in a redrawn table, or null. */
export function focusKey(node) {
  if (!node || node.nodeType !== 1) return null;
  for (const name of KEYS) {
    if (node.hasAttribute(name)) {
      const value = node.getAttribute(name);
      return value ? `[${name}="${CSS.escape(value)}"]` : `[${name}]`;
    }
  }
  return null;
}

/** Run `draw()` (which rebuilds parts of `root`) and put the focus back on the
 * same logical control when the redraw took it away: the same card or button;
 * a card played or a button now disabled gives the focus to my hand's current
 * card, else to the first control of my bar. */
export function keepFocus(root, draw) {
  const before = document.activeElement;
  const inside = before && before !== document.body && root.contains(before);
  const key = inside ? focusKey(before) : null;
  const group = inside ? before.closest("[data-roving]") : null;
  const groupName = group ? group.dataset.roving : null;
  draw();
  if (!inside) return;
  const now = document.activeElement;
  if (now && now !== document.body && root.contains(now)) return; // (never moved)
  const usable = (node) => node && !node.disabled && node.offsetParent !== null;
  const candidates = [
    groupName && key && root.querySelector(`[data-roving="${groupName}"] ${key}`),
    key && root.querySelector(key),
    groupName && root.querySelector(`[data-roving="${groupName}"] [tabindex="0"]`),
    root.querySelector("[data-mine] [data-roving] [tabindex='0']"),
    ...root.querySelectorAll("[data-mine] button, [data-controls] button"),
  ];
  for (const target of candidates) {
    if (!usable(target)) continue;
    target.focus({ preventScroll: true });
    if (document.activeElement === target) return; // (a card on the felt takes no focus)
  }
}

const remembered = {}; // each roving group's current item (by its data-card)

/** Cards as one tab stop (the roving tabindex of a listbox, ARIA APG):
 * Left/Right (and Up/Down across `rows`) move between them, Home/End to the
 * ends, Space or Enter calls `onToggle(card)`; each card says whether it is
 * selected (aria-selected). `rows`: arrays of card nodes (one a row);
 * `name`: the group's name (its current card is kept across redraws). */
export function rovingCards(name, rows, { selected, onToggle }) {
  const all = rows.flat();
  const cards = all.map((node) => node.dataset.card);
  if (!cards.includes(remembered[name])) remembered[name] = cards[0];
  const position = (node) => {
    for (let r = 0; r < rows.length; r++) {
      const i = rows[r].indexOf(node);
      if (i >= 0) return [r, i];
    }
    return [0, 0];
  };
  const go = (node) => {
    if (!node) return;
    for (const other of all) other.setAttribute("tabindex", other === node ? "0" : "-1");
    remembered[name] = node.dataset.card;
    node.focus();
  };
  for (const node of all) {
    const card = node.dataset.card;
    node.setAttribute("role", "option");
    node.setAttribute("aria-selected", selected(card) ? "true" : "false");
    node.setAttribute("tabindex", card === remembered[name] ? "0" : "-1");
    node.addEventListener("focus", () => { remembered[name] = card; });
    node.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const [r, i] = position(node);
      const k = all.indexOf(node);
      let next = null;
      if (e.key === "ArrowRight") next = all[Math.min(all.length - 1, k + 1)];
      else if (e.key === "ArrowLeft") next = all[Math.max(0, k - 1)];
      else if (e.key === "ArrowDown" && rows.length > 1) next = rows[Math.min(rows.length - 1, r + 1)].at(Math.min(i, rows[Math.min(rows.length - 1, r + 1)].length - 1));
      else if (e.key === "ArrowUp" && rows.length > 1) next = rows[Math.max(0, r - 1)].at(Math.min(i, rows[Math.max(0, r - 1)].length - 1));
      else if (e.key === "Home") next = all[0];
      else if (e.key === "End") next = all[all.length - 1];
      else if (e.key === " " || e.key === "Enter") {
        e.preventDefault();
        e.stopPropagation();
        onToggle(card);
        return;
      } else if (/^[1-9]$/.test(e.key) && rows.length > 1 && Number(e.key) <= rows.length) {
        next = rows[Number(e.key) - 1][0]; // to the first card of row N
      } else return;
      e.preventDefault();
      e.stopPropagation();
      go(next);
    });
  }
}

/** The key that takes the focus to my cards. */
export const HAND_KEY = "H";

/** A listbox around cards (`rovingCards`): named, multi-selectable. */
export const cardListAttrs = (name, label, multi = true) => ({
  role: "listbox", "aria-label": label, "aria-multiselectable": multi ? "true" : null,
  "aria-orientation": "horizontal", "aria-keyshortcuts": HAND_KEY, "data-roving": name,
});

/** The attributes of a button with shortcut `key` (shown on it by CSS,
 * static/css/site.css `[data-key]::after`; told to screen readers). */
export const shortcut = (key) => ({ "data-key": key.toUpperCase(), "aria-keyshortcuts": key.toUpperCase() });

/** Pressing a button's shortcut key anywhere on the page (not while typing)
 * clicks the visible, enabled button of `root` that has it. */
export function installShortcuts(root) {
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    const target = e.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    if (e.key.length !== 1) return;
    const key = e.key.toUpperCase();
    if (key === HAND_KEY) { // to my cards (their current one), from anywhere
      const card = root.querySelector('[data-mine] [data-roving] [tabindex="0"]');
      if (card) {
        e.preventDefault();
        card.focus();
      }
      return;
    }
    const button = [...root.querySelectorAll(`[data-key="${CSS.escape(key)}"]`)]
      .find((b) => !b.disabled && b.offsetParent !== null);
    if (!button) return;
    e.preventDefault();
    button.click();
  });
}

/** The polite live region: what happens at the table, said once each. */
export class LiveRegion {
  constructor() {
    this.node = h("div", { class: "sr-only", role: "status", "aria-live": "polite", "aria-atomic": "false", "data-live": "" });
    this.said = []; // every line said (the tests read it: window.vipTable.live.said)
  }

  say(text) {
    const value = String(text || "").trim();
    if (!value) return;
    this.said.push(value);
    const line = h("p", { "data-live-line": "" }, value);
    this.node.append(line);
    while (this.node.children.length > 6) this.node.firstChild.remove();
  }
}
