// Translations come from Django's JavaScriptCatalog (/jsi18n/, domain djangojs),
// loaded by base.html before the modules.
const g = globalThis;

export const _ = (text) => (typeof g.gettext === "function" ? g.gettext(text) : text);

/** A word whose meaning depends on where it stands ("Turn": whose move, or a poker street). */
export const pgettext = (context, text) => (typeof g.pgettext === "function" ? g.pgettext(context, text) : text);

/** "%(name)s" placeholders, as Django's interpolate(text, obj, true). */
export const fmt = (text, params) =>
  text.replace(/%\((\w+)\)s/g, (all, key) => (key in params ? String(params[key]) : all));

/** fmt's words as parts for h(): a placeholder given a node (a player's name
 * kept to one short line) becomes that node, the rest stays text. */
export const fmtParts = (text, params) =>
  text.split(/(%\(\w+\)s)/).filter((part) => part !== "").map((part) => {
    const key = /^%\((\w+)\)s$/.exec(part);
    return key && key[1] in params ? params[key[1]] : part;
  });

export const lang = () => document.documentElement.lang || "vi";

/** 10.000 in Vietnamese, 10,000 in English (like the |chips template filter). */
export function chips(value) {
  if (value === null || value === undefined || Number.isNaN(Number(value))) return "";
  const n = Math.trunc(Number(value));
  const grouped = Math.abs(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, lang() === "vi" ? "." : ",");
  return (n < 0 ? "-" : "") + grouped;
}

/** +3 / -2 / 0 with a sign, for results. */
export const signed = (n) => (n > 0 ? "+" : "") + chips(n);
