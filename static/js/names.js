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
 * fits; the full name is kept in data-full-name, title and aria-label. */
export function fitName(node) {
  const full = node.dataset.fullName || node.textContent;
  if (node.textContent !== full) node.textContent = full;
  if (!node.clientWidth || fits(node)) {
    if (node.dataset.fullName) node.removeAttribute("title");
    return;
  }
  node.dataset.fullName = full;
  node.title = full;
  node.setAttribute("aria-label", full);
  for (const form of shorterForms(full)) {
    node.textContent = form;
    if (fits(node)) return;
  }
}

/** Every seat's name in `felt`, now and whenever the seats are drawn again
 * or the felt changes size. */
export function fitSeatNames(felt) {
  const all = () => {
    for (const node of felt.querySelectorAll(".plate .name")) fitName(node);
  };
  new MutationObserver((changes) => {
    // (not for its own abbreviations: those change a name's text only)
    if (changes.some((c) => c.target === felt || c.target.classList?.contains("seat"))) all();
    else if (changes.some((c) => [...c.addedNodes].some((n) => n.nodeType === 1 && !n.closest?.(".plate .name")))) all();
  }).observe(felt, { childList: true, subtree: true });
  new ResizeObserver(all).observe(felt);
  all();
}
