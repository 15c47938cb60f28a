// The lobby: open tables of the chosen game, and "your tables" (where you
// sit, what you own, where you were invited: all games), kept live over
// /ws/lobby/ (which also lists your private tables, to you only); and the
// tournaments tab (static/js/tournaments.js).
import { h, replace } from "./dom.js";
import { _, fmt, chips } from "./i18n.js";
import { Connection } from "./socket.js";
import { showBalance } from "./balance.js";
import { avatarImg } from "./avatars.js";
import { mountTournaments } from "./tournaments.js";

const STATUS = () => ({
  waiting: _("Waiting for players"), playing: _("Playing"), summary: _("Showing the result"),
});

const root = document.querySelector("[data-lobby]");
const body = root.querySelector("[data-lobby-tables]");
const tables = new Map();
let game = root.dataset.game;

for (const entry of JSON.parse(document.getElementById("lobby-tables").textContent)) tables.set(entry.id, entry);

// Your tables (selectors.my_lobby_entries): lobby entries with why each is
// listed (seat, owned, invited); `me` finds you among a card's players.
const minePanel = root.querySelector("[data-my-tables-panel]");
const mineBody = root.querySelector("[data-my-tables]");
const myData = JSON.parse(document.getElementById("my-tables").textContent);
const me = myData.user;
const mine = new Map(myData.tables.map((t) => [t.id, t]));

// A table's card: its name and stake, who sits there (avatars and names) and
// its free seats, its status, and the way in.
function tableCard(t, why = null) {
  const url = `/tables/${t.id}/`;
  const sitting = new Map((t.players || []).map((p) => [p.position, p]));
  const seats = Array.from({ length: t.seat_count }, (_unused, position) => {
    const p = sitting.get(position);
    return p
      ? h("li", { class: `sitter${p.bot ? " bot" : ""}`, "data-sitter": position, title: p.bot ? `${p.name} (${_("Bot")})` : p.name },
        avatarImg(p.avatar, { size: 40 }), h("span", { class: "sitter-name" }, p.name))
      : h("li", { class: "sitter free", "data-free-seat": position }, h("span", { class: "free-ring", "aria-hidden": "true" }, "+"),
        h("span", { class: "sitter-name" }, _("Free seat")));
  });
  const full = t.taken >= t.seat_count;
  // Where you sit, the way back to your seat (never "Watch").
  const yours = (t.players || []).some((p) => p.user_id === me);
  return h("article", { class: `table-card ${t.status}`, "data-table-row": t.id },
    h("header", {},
      h("a", { class: "table-name", href: url }, t.name || fmt(_("Table %(id)s"), { id: t.id })),
      h("span", { class: `pill ${t.status}` }, STATUS()[t.status] || t.status)),
    t.private ? h("small", { class: "why", "data-why": "private" }, _("Private")) : null,
    why,
    h("p", { class: "stake-line" }, fmt(_("Stake %(stake)s"), { stake: chips(t.stake) }),
      " · ", h("span", { "data-taken": t.taken }, fmt(_("%(taken)s/%(seats)s seats"), { taken: t.taken, seats: t.seat_count }))),
    h("ul", { class: "sitters" }, seats),
    t.rules && t.rules.length ? h("small", { class: "muted table-rules", "data-table-rules": t.id },
      fmt(_("Own rules: %(rules)s"), { rules: t.rules.map(([name, value]) => `${name} ${JSON.stringify(value)}`).join(", ") })) : null,
    yours ? h("a", { class: "button small", href: url, "data-back-to-seat": t.id }, _("Back to your seat"))
      : h("a", { class: `button small${full ? " ghost" : ""}`, href: url }, full ? _("Watch") : _("Join")));
}

// Why one of your tables is listed.
function whyLine(t) {
  const reasons = [];
  if (t.seat) reasons.push(["seated", _("You sit here")]);
  if (t.seat && t.seat.chips != null) reasons.push(["held", fmt(_("%(chips)s chips held at your seat"), { chips: chips(t.seat.chips) })]);
  if (t.owned) reasons.push(["owned", _("Your table")]);
  if (t.invited) reasons.push(["invited", _("Invited")]);
  return h("p", { class: "why-line" }, reasons.map(([key, text]) => h("span", { class: `why ${key}`, "data-why": key }, text)));
}

// A card of the lobby's changed: so is your table's, and you may have sat
// down or left (the card's players carry their user ids).
function followMine(entry) {
  const known = mine.get(entry.id);
  const sitting = (entry.players || []).find((p) => p.user_id === me);
  if (entry.status === "closed") { mine.delete(entry.id); return; }
  const seat = sitting ? (known && known.seat && known.seat.position === sitting.position ? known.seat
    : { position: sitting.position, in_hand: false, leaving: false, leave_after_hand: false }) : null;
  const next = { owned: false, invited: false, ...known, ...entry, seat };
  if (next.seat || next.owned || next.invited) mine.set(entry.id, next);
  else mine.delete(entry.id);
}

function render() {
  const rows = [...tables.values()]
    .filter((t) => t.game === game && t.status !== "closed")
    .sort((a, b) => a.stake - b.stake || a.id - b.id);
  replace(body, rows.length ? rows.map((t) => tableCard(t))
    : h("p", { class: "muted" }, _("No open table yet: create one or play now with bots.")));
  const yours = [...mine.values()].sort((a, b) => (!a.seat - !b.seat) || (!a.owned - !b.owned) || b.id - a.id);
  minePanel.hidden = yours.length === 0;
  replace(mineBody, yours.map((t) => tableCard(t, whyLine(t))));
}

// The tournaments tab (static/js/tournaments.js) or a game's tables: one view at a time.
const lobbyGames = JSON.parse(document.getElementById("lobby-games").textContent);
const tourneys = mountTournaments(root, lobbyGames);
const tourneyTab = root.querySelector("[data-tournaments-tab]");
function showView(view) {
  root.dataset.view = view;
  for (const node of root.querySelectorAll("[data-games-part]")) node.hidden = view !== "games";
  tourneyTab.setAttribute("aria-selected", String(view === "tournaments"));
  tourneys.show(view === "tournaments");
}
tourneyTab.addEventListener("click", (event) => {
  event.preventDefault();
  for (const other of root.querySelectorAll("[data-tab]")) other.setAttribute("aria-selected", "false");
  history.replaceState(null, "", "?tab=tournaments");
  showView("tournaments");
});
showView(root.dataset.view === "tournaments" ? "tournaments" : "games");

for (const tab of root.querySelectorAll("[data-tab]")) {
  tab.addEventListener("click", (event) => {
    event.preventDefault();
    game = tab.dataset.tab;
    root.dataset.game = game;
    showView("games");
    for (const other of root.querySelectorAll("[data-tab]")) other.setAttribute("aria-selected", String(other === tab));
    for (const node of root.querySelectorAll("[data-game-only]")) node.hidden = node.dataset.gameOnly !== game;
    for (const input of root.querySelectorAll("input[name=game]")) input.value = game;
    const select = root.querySelector("select[name=game]");
    if (select) { select.value = game; select.dispatchEvent(new Event("change")); }
    history.replaceState(null, "", `?game=${game}`);
    render();
  });
}

// The create form: only the presets and fields of the chosen game.
const form = root.querySelector("[data-create-form]");
if (form) {
  // Each game's presets, seats and own fields, from its plugin (games.plugins).
  const games = lobbyGames;
  const select = form.querySelector("select[name=game]");
  const sync = () => {
    const chosen = games[select.value];
    const preset = form.querySelector("select[name=preset]");
    for (const option of preset.options) option.hidden = !chosen.presets.includes(option.value);
    if (!chosen.presets.includes(preset.value)) preset.value = chosen.presets[0];
    for (const node of form.querySelectorAll("[data-game-field]")) node.hidden = !chosen.fields.includes(node.dataset.gameField);
    const seats = form.querySelector("input[name=seat_count]");
    [seats.min, seats.max] = chosen.seats;
    if (Number(seats.value) > Number(seats.max)) seats.value = seats.max;
    if (Number(seats.value) < Number(seats.min)) seats.value = seats.min;
  };
  select.addEventListener("change", sync);
  sync();
}

new Connection("/ws/lobby/", {
  onMessage(message) {
    if (showBalance(message)) return;
    if (message.type === "lobby") {
      tables.clear();
      for (const entry of message.tables) tables.set(entry.id, entry);
      // Your table missing from a fresh list has closed.
      for (const id of [...mine.keys()]) if (!tables.has(id)) mine.delete(id);
      if (me !== null) for (const entry of message.tables) followMine(entry);
    } else if (message.type === "table") {
      tables.set(message.table.id, message.table);
      if (me !== null) followMine(message.table);
    } else return;
    render();
  },
});
render();
