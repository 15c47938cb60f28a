// Playing cards drawn with CSS: "Ah" → A♥ in red. Text form as the server's
// (rank 2-9 T J Q K A, suit s c d h).
import { h } from "./dom.js";

export const SUITS = { s: "♠", c: "♣", d: "♦", h: "♥" };
const RANK_LABEL = { T: "10" };

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[card.length - 1];
export const isRed = (card) => suitOf(card) === "d" || suitOf(card) === "h";
export const label = (card) => (RANK_LABEL[rankOf(card)] || rankOf(card)) + SUITS[suitOf(card)];

export function cardEl(card, { small = false, extra = "" } = {}) {
  const rank = RANK_LABEL[rankOf(card)] || rankOf(card);
  const suit = SUITS[suitOf(card)];
  return h(
    "span",
    {
      class: `card ${isRed(card) ? "red" : "black"}${small ? " small" : ""}${extra ? " " + extra : ""}`,
      "data-card": card,
      role: "img",
      "aria-label": rank + suit,
    },
    h("span", { class: "corner" }, h("span", { class: rank.length > 1 ? "r ten" : "r" }, rank), h("span", { class: "s" }, suit)),
    h("span", { class: "pip" }, suit),
  );
}

export function backEl({ small = false } = {}) {
  return h("span", { class: `card back${small ? " small" : ""}`, "aria-hidden": "true" });
}

export function cardRow(cards, opts = {}) {
  const list = cards || [];
  const row = h("span", { class: "cards" + (opts.fan ? " fan" : "") }, list.map((c) => cardEl(c, opts)));
  // --n, how many: a row that must fit its box (a long play) overlaps by it.
  // (Through the CSSOM: the CSP allows no style attribute.)
  row.style.setProperty("--n", String(list.length));
  return row;
}

export function backs(count, opts = {}) {
  const shown = Math.min(count, opts.max || count);
  return h("span", { class: "cards fan" }, Array.from({ length: shown }, () => backEl(opts)));
}

export const text = (cards) => (cards || []).map(label).join(" ");
