// Mậu Binh chi strength and names in the browser (docs/rules.md 2.2, 2.3), mirroring
// games/rules/hand5.py and games/rules/maubinh/chi.py: suits never rank; a
// strength is category << 20 | five rank nibbles, comparable across 5 and 3 cards.

const RANKS = "23456789TJQKA";
const ACE = 12;
const SHIFT = 20;
const FOUR_ACES = 9;
export const CATEGORY = {
  high_card: 0, pair: 1, two_pair: 2, trips: 3, straight: 4, flush: 5,
  full_house: 6, quads: 7, straight_flush: 8, four_aces: 9,
};
const NAMES = Object.keys(CATEGORY);

// Game terms stay Vietnamese in both languages.
export const HAND_NAMES_VI = {
  high_card: "Mậu thầu", pair: "Đôi", two_pair: "Thú", trips: "Sám", straight: "Sảnh",
  flush: "Thùng", full_house: "Cù lũ", quads: "Tứ quý", straight_flush: "Thùng phá sảnh",
  four_aces: "Tứ quý A",
};

export const INSTANT_NAMES_VI = {
  three_straights: "Ba cái sảnh", three_flushes: "Ba cái thùng", six_pairs: "Lục phé bôn",
  five_pairs_trips: "Năm đôi một sám", twelve_one_colour: "12 lá đồng màu",
  thirteen_one_colour: "13 lá đồng màu", three_straight_flushes: "Ba thùng phá sảnh",
  dragon: "Sảnh rồng", flush_dragon: "Rồng cuốn",
};

const rank = (card) => RANKS.indexOf(card[0]);
const suit = (card) => card[card.length - 1];

function pack(category, ranks) {
  let value = 0;
  for (let i = 0; i < 5; i++) value = value * 16 + (i < ranks.length ? ranks[i] + 1 : 0);
  return category * 2 ** SHIFT + value;
}

function grouped(ranks) {
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  const order = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || b - a);
  return { counts, order, shape: order.map((r) => counts.get(r)) };
}

function straightTop(ranks) {
  const distinct = [...new Set(ranks)].sort((a, b) => a - b);
  if (distinct.length !== 5) return null;
  if (distinct[4] - distinct[0] === 4) return distinct[4];
  if (distinct.join() === [0, 1, 2, 3, ACE].join()) return 3;
  return null;
}

function evaluate5(cards) {
  const ranks = cards.map(rank);
  const { order, shape } = grouped(ranks);
  const flush = new Set(cards.map(suit)).size === 1;
  const top = straightTop(ranks);
  if (top !== null) return [flush ? CATEGORY.straight_flush : CATEGORY.straight, [top]];
  if (shape[0] === 4) return [CATEGORY.quads, order];
  if (shape[0] === 3 && shape[1] === 2) return [CATEGORY.full_house, order];
  if (flush) return [CATEGORY.flush, [...ranks].sort((a, b) => b - a)];
  if (shape[0] === 3) return [CATEGORY.trips, order];
  if (shape[0] === 2 && shape[1] === 2) return [CATEGORY.two_pair, order];
  if (shape[0] === 2) return [CATEGORY.pair, order];
  return [CATEGORY.high_card, order];
}

function evaluate3(cards) {
  const { order, shape } = grouped(cards.map(rank));
  const category = shape[0] === 3 ? CATEGORY.trips : shape[0] === 2 ? CATEGORY.pair : CATEGORY.high_card;
  return [category, order];
}

/** rules: {four_aces_top, straight_flush_order} of the table's ruleset. */
export function strength(cards, rules = {}) {
  if (cards.length === 3) return pack(...evaluate3(cards));
  if (cards.length !== 5) return null;
  const [category, ranks] = evaluate5(cards);
  if (rules.four_aces_top && category === CATEGORY.quads && ranks[0] === ACE) return pack(FOUR_ACES, ranks);
  if (rules.straight_flush_order === "royal_wheel_high" && category === CATEGORY.straight_flush) {
    const remapped = ranks[0] === ACE ? 14 : ranks[0] === 3 ? 13 : ranks[0];
    return pack(CATEGORY.straight_flush, [remapped]);
  }
  return pack(category, ranks);
}

export const categoryOf = (value) => Math.floor(value / 2 ** SHIFT);

export function handName(cards, rules) {
  const value = strength(cards, rules);
  if (value === null) return null;
  return NAMES[categoryOf(value)];
}

/** Which chi breaks the order (docs/rules.md 2.1): "2" if chi 2 beats chi 1, "3" if chi 3 beats chi 2, else null. */
export function lung(chi1, chi2, chi3, rules) {
  if (chi1.length !== 5 || chi2.length !== 5 || chi3.length !== 3) return null;
  const [s1, s2, s3] = [strength(chi1, rules), strength(chi2, rules), strength(chi3, rules)];
  if (s2 > s1) return "2";
  if (s3 > s2) return "3";
  return null;
}

const tieBreakRanks = (value) => {
  const ranks = [];
  for (let shift = 16; shift >= 0; shift -= 4) {
    const nibble = Math.floor(value / 2 ** shift) % 16;
    if (nibble) ranks.push(nibble - 1);
  }
  return ranks;
};

/** 1 if chi `a` beats `b`, 0 if equal, -1 if weaker (games/rules/maubinh/chi.py
 * compare_chi): across sizes, the category, then only the ranks both have. */
export function compare(a, b, rules = {}) {
  const [sa, sb] = [strength(a, rules), strength(b, rules)];
  if (a.length !== b.length && categoryOf(sa) === categoryOf(sb)) {
    const [ra, rb] = [tieBreakRanks(sa), tieBreakRanks(sb)];
    for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
      if (ra[i] !== rb[i]) return ra[i] > rb[i] ? 1 : -1;
    }
    return 0;
  }
  return Math.sign(sa - sb);
}
