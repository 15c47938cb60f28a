// The lobby: open tables of the chosen game, kept live over /ws/lobby/.
import { h, replace } from "./dom.js";
import { _, fmt, chips } from "./i18n.js";
import { Connection } from "./socket.js";
import { showBalance } from "./balance.js";

const STATUS = () => ({
  waiting: _("Waiting for players"), playing: _("Playing"), summary: _("Showing the result"),
});

const root = document.querySelector("[data-lobby]");
const body = root.querySelector("[data-lobby-tables]");
const tables = new Map();
let game = root.dataset.game;

for (const entry of JSON.parse(document.getElementById("lobby-tables").textContent)) tables.set(entry.id, entry);

function render() {
  const rows = [...tables.values()]
    .filter((t) => t.game === game && t.status !== "closed" && !t.private)
    .sort((a, b) => a.stake - b.stake || a.id - b.id);
  replace(body, rows.length ? rows.map((t) => h("tr", { "data-table-row": t.id },
    h("td", {}, h("a", { href: `/tables/${t.id}/` }, t.name || fmt(_("Table %(id)s"), { id: t.id })),
      t.rules && t.rules.length ? h("small", { class: "muted table-rules", "data-table-rules": t.id },
        " · " + fmt(_("Own rules: %(rules)s"), { rules: t.rules.map(([name, value]) => `${name} ${JSON.stringify(value)}`).join(", ") })) : null),
    h("td", { class: "num" }, chips(t.stake)),
    h("td", { class: "num", "data-taken": t.taken }, `${t.taken}/${t.seat_count}`),
    h("td", {}, h("span", { class: `pill ${t.status}` }, STATUS()[t.status] || t.status)),
    h("td", {}, h("a", { class: "button small", href: `/tables/${t.id}/` }, t.taken < t.seat_count ? _("Join") : _("Watch")))))
    : h("tr", {}, h("td", { colspan: 5, class: "muted" }, _("No open table yet: create one or play now with bots."))));
}

for (const tab of root.querySelectorAll("[data-tab]")) {
  tab.addEventListener("click", (event) => {
    event.preventDefault();
    game = tab.dataset.tab;
    root.dataset.game = game;
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
  const games = JSON.parse(document.getElementById("lobby-games").textContent);
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
    } else if (message.type === "table") {
      tables.set(message.table.id, message.table);
    } else return;
    render();
  },
});
render();
