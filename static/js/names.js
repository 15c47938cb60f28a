// Names on the seats never cut to meaninglessness (issue 32 item 4): a name
// wider than its plate is abbreviated by rule, not cut at whatever letter the
// edge falls on ("Thành Ngu…"). The words before the last become initials
// ("Nguyễn Hoàng Thành Long" → "N. H. T. Long", then "N.H.T. Long", then
// "Long"); a single long word keeps its two ends ("Pa0Fc…9C3B"). The full
// name stays the node's title and accessible name, and a tap on the plate
// opens the player's card with it (profile.js).

/** The shorter forms of `name`, longest first. */
export function shorterForms(name) {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const forms = [];
  if (words.length > 1) {
    const last = words[words.length - 1];
    const initials = words.slice(0, -1).map((w) => `${[...w][0]}.`);
    forms.push(`${initials.join(" ")} ${last}`, `${initials.join("")} ${last}`, last);
  }
  const letters = [...words[words.length - 1] || ""];
  for (let keep = letters.length - 1; keep >= 2; keep -= 1) {
    const head = Math.ceil(keep / 2);
    forms.push(`${letters.slice(0, head).join("")}…${letters.slice(letters.length - (keep - head)).join("")}`);
  }
  return forms;
}

const fits = (node) => node.scrollWidth <= node.clientWidth + 1;

/** Abbreviate the name in `node` (a one-line, overflow-hidden box) until it
 * fits. Its text stays the full name (what is read out, copied, tested); the
 * short form is drawn instead of it (data-short, the class "abbr": fit.css
 * draws it as the node's ::before, at the node's own font size, --name-size). */
export function fitName(node) {
  node.classList.remove("abbr");
  delete node.dataset.short;
  node.removeAttribute("title");
  if (!node.clientWidth || fits(node)) return;
  node.style.setProperty("--name-size", getComputedStyle(node).fontSize);
  node.title = node.textContent;
  node.classList.add("abbr");
  for (const form of shorterForms(node.textContent)) {
    node.dataset.short = form;
    if (fits(node)) return;
  }
}

/** Every seat's name in `felt`, and every name in the centre's words (Tiến
 * Lên's "… goes out first!"), now and whenever they are drawn again or the
 * felt changes size. */
export function fitSeatNames(felt) {
  const all = () => {
    for (const node of felt.querySelectorAll(".plate .name, .center .who")) fitName(node);
  };
  // (its own abbreviations change attributes only, not the tree)
  new MutationObserver(all).observe(felt, { childList: true, subtree: true });
  new ResizeObserver(all).observe(felt);
  all();
}
