// A player's card, opened by a tap on their seat: avatar, name, hands played
// and net chips this week (GET /api/v1/players/<id>).
import { h, replace } from "./dom.js";
import { _, fmt, chips, signed } from "./i18n.js";
import { avatarImg } from "./avatars.js";

let open = null;

function close() {
  if (!open) return;
  open.remove();
  open = null;
  document.removeEventListener("keydown", onKey);
}

function onKey(event) {
  if (event.key === "Escape") close();
}

/** Show the card of `seat` (a table state's seat: user_id, name, avatar, bot). */
export async function showProfile(seat) {
  close();
  const stats = h("dl", { class: "profile-stats", "data-profile-stats": "" }, h("dd", { class: "muted" }, _("Loading…")));
  const box = h("div", { class: "profile-card", role: "dialog", "aria-modal": "true", "aria-label": seat.name, "data-profile-card": seat.user_id },
    h("button", { type: "button", class: "close", "aria-label": _("Close"), "data-profile-close": "", onclick: close }, "×"),
    avatarImg(seat.avatar, { size: 88, extra: "big" }),
    h("h3", { "data-profile-name": "" }, seat.name, seat.bot ? h("span", { class: "badge bot" }, _("Bot")) : null),
    stats);
  open = h("div", { class: "profile-backdrop", "data-profile": "", onclick: (e) => { if (e.target === open) close(); } }, box);
  document.body.append(open);
  document.addEventListener("keydown", onKey);
  box.querySelector("[data-profile-close]").focus();
  const shown = open;
  let body;
  try {
    const response = await fetch(`/api/v1/players/${encodeURIComponent(seat.user_id)}`, {
      credentials: "same-origin", headers: { Accept: "application/json", "Accept-Language": document.documentElement.lang || "vi" },
    });
    body = await response.json();
    if (!response.ok) throw new Error(body.message || response.statusText);
  } catch (err) {
    if (open === shown) replace(stats, h("dd", { class: "error", "data-profile-error": "" }, String(err.message || err)));
    return;
  }
  if (open !== shown) return;
  const net = body.net_week;
  replace(stats,
    h("dt", {}, _("Hands played")), h("dd", { "data-profile-hands": body.hands }, chips(body.hands)),
    h("dt", {}, _("This week")),
    h("dd", { class: net > 0 ? "plus" : net < 0 ? "minus" : "", "data-profile-net": net }, fmt(_("%(chips)s chips"), { chips: signed(net) })));
}

/** The seat's avatar, which opens the player's card. */
export function seatAvatar(seat, ...extra) {
  const show = () => showProfile(seat);
  return h("div", {
    class: "avatar", role: "button", tabindex: 0, "data-profile-open": seat.user_id,
    onclick: show, onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(); } },
    // Named by its image (not aria-label): the clock's seconds drawn on it are
    // hidden from screen readers, and a label would not contain them (WCAG 2.5.3).
  }, avatarImg(seat.avatar, { size: 50, alt: fmt(_("%(name)s: profile"), { name: seat.name }) }), extra);
}
