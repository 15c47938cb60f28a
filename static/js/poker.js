// Poker words in the player's language: hand names with their ranks and kicker
// ("Đôi K, kicker A" / "Pair of Kings, kicker A"), streets and actions. Poker
// terms are not Mậu Binh or Tiến Lên terms: English mode says them in English.
import { _, fmt, lang, chips, pgettext } from "./i18n.js";

const ORDER = "23456789TJQKA";
const SHOWN = { T: "10" };
const r = (rank) => SHOWN[rank] || rank;

const VI = {
  high_card: "Mậu thầu", pair: "Đôi", two_pair: "Thú", trips: "Sám", straight: "Sảnh",
  flush: "Thùng", full_house: "Cù lũ", quads: "Tứ quý", straight_flush: "Thùng phá sảnh",
};
const EN = {
  high_card: "High card", pair: "Pair", two_pair: "Two pair", trips: "Three of a kind",
  straight: "Straight", flush: "Flush", full_house: "Full house", quads: "Four of a kind",
  straight_flush: "Straight flush",
};

/** Ranks of the best five grouped: by count, then by rank, highest first. */
function groups(best) {
  const counts = new Map();
  for (const card of best) counts.set(card[0], (counts.get(card[0]) || 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || ORDER.indexOf(b[0]) - ORDER.indexOf(a[0]));
}

/** The top card of a straight (5 for the wheel A-2-3-4-5). */
function straightTop(best) {
  const ranks = best.map((c) => ORDER.indexOf(c[0]));
  if (ranks.includes(12) && ranks.includes(3) && !ranks.includes(11)) return "5";
  return ORDER[Math.max(...ranks)];
}

/** The category's name alone, in the page's language. */
export function categoryName(category) {
  return (lang() === "en" ? EN : VI)[category] || category;
}

/** A hand's name with what decides it: ranks and the first kicker. */
export function handName(category, best) {
  const name = categoryName(category);
  if (!best || best.length !== 5) return name;
  const g = groups(best).map(([rank]) => r(rank));
  switch (category) {
    case "high_card": return fmt(_("%(name)s %(rank)s"), { name, rank: g[0] }) + (g[1] ? fmt(_(", kicker %(kicker)s"), { kicker: g[1] }) : "");
    case "pair": return fmt(_("%(name)s %(rank)s"), { name, rank: g[0] }) + fmt(_(", kicker %(kicker)s"), { kicker: g[1] });
    case "two_pair": return fmt(_("%(name)s %(high)s and %(low)s"), { name, high: g[0], low: g[1] }) + fmt(_(", kicker %(kicker)s"), { kicker: g[2] });
    case "trips": return fmt(_("%(name)s %(rank)s"), { name, rank: g[0] }) + fmt(_(", kicker %(kicker)s"), { kicker: g[1] });
    case "quads": return fmt(_("%(name)s %(rank)s"), { name, rank: g[0] }) + fmt(_(", kicker %(kicker)s"), { kicker: g[1] });
    case "full_house": return fmt(_("%(name)s %(high)s over %(low)s"), { name, high: g[0], low: g[1] });
    case "straight": case "straight_flush": return fmt(_("%(name)s, %(rank)s high"), { name, rank: r(straightTop(best)) });
    case "flush": return fmt(_("%(name)s, %(rank)s high"), { name, rank: g[0] });
    default: return name;
  }
}

export function streetName(street) {
  const names = {
    preflop: pgettext("poker street", "Preflop"), flop: pgettext("poker street", "Flop"),
    turn: pgettext("poker street", "Turn"), river: pgettext("poker street", "River"),
    showdown: pgettext("poker street", "Showdown"), finished: "",
  };
  return street in names ? names[street] : street;
}

/** One betting action as a sentence tail: "folds", "raises to 40"... */
export function actionText(record) {
  switch (record.action) {
    case "fold": return _("folds");
    case "check": return _("checks");
    case "call": return fmt(_("calls %(amount)s"), { amount: chips(record.amount) });
    case "raise": return fmt(_("raises to %(amount)s"), { amount: chips(record.to) });
    case "all_in": return fmt(_("goes all-in (%(amount)s)"), { amount: chips(record.to) });
    default: return record.action;
  }
}
