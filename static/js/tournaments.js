// The lobby's tournaments tab: the open Sit & Gos by game and buy-in (places
// taken, buy-in and fee, bots, status), register / unregister, "open my
// table" for a running one I am in, and a small form to create one; all
// through the REST API (/api/v1/tournaments..., docs/tournaments.md). The
// list is asked for again every POLL_MS while the tab shows and the page is
// visible (a Sit & Go's places change without any table's message).
import { h, replace } from "./dom.js";
import { _, fmt, chips, lang } from "./i18n.js";

export const POLL_MS = 5000;

/** Its name: a Sit & Go's, or a scheduled tournament's. */
export const title = (t) => fmt(t.kind === "sit_and_go" ? _("Sit & Go #%(id)s") : _("Tournament #%(id)s"), { id: t.id });

export const STATUS = () => ({
  registering: _("Registering"), running: _("Running"), finished: _("Finished"), cancelled: _("Cancelled"),
});

function csrf() {
  return document.querySelector("[name=csrfmiddlewaretoken]")?.value || "";
}

function freshKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The API, in the page's language: a refusal throws its message (the
 * player's language) with its `code`. Each POST has an Idempotency-Key of its
 * own (one tap, one registration). */
export async function api(method, path, body) {
  const headers = { Accept: "application/json", "Accept-Language": lang() };
  if (method !== "GET") {
    Object.assign(headers, { "Content-Type": "application/json", "X-CSRFToken": csrf(), "Idempotency-Key": freshKey() });
  }
  const response = await fetch(path, {
    method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    // (no JSON body)
  }
  if (!response.ok) {
    const error = new Error((data && data.message) || response.statusText || String(response.status));
    error.code = data && data.code;
    throw error;
  }
  return data;
}

/** The tab. `games`: each game's facts (games.plugins: label, Sit & Go sizes). */
export function mountTournaments(root, games) {
  const panel = root.querySelector("[data-tournaments]");
  const list = panel.querySelector("[data-sng-list]");
  const errorLine = panel.querySelector("[data-sng-error]");
  const form = panel.querySelector("[data-sng-form]");
  const me = JSON.parse(document.getElementById("my-tables").textContent).user;
  const withSitAndGos = Object.entries(games).filter(([, facts]) => (facts.sit_and_go_seats || []).length);
  let shown = false;
  let timer = null;
  let busy = false;

  const say = (text) => {
    errorLine.textContent = text || "";
    errorLine.hidden = !text;
  };

  const button = (label, action, t) => h("button", {
    type: "button", class: `button small${action === "unregister" ? " ghost" : ""}`, [`data-sng-${action}`]: t.id,
    onclick: () => act(action, t),
  }, label);

  function card(t) {
    const url = `/tournaments/${t.id}/`;
    const actions = [];
    if (me !== null && t.status === "registering") {
      if (t.mine) actions.push(button(_("Unregister"), "unregister", t));
      else if (t.registered < t.seats) actions.push(button(_("Register"), "register", t));
    }
    // (several tables, a scheduled tournament's: mine is in "Your tables", above)
    if (t.mine && t.status === "running" && t.tables.length === 1) {
      actions.push(h("a", { class: "button small", href: `/tables/${t.tables[0]}/`, "data-sng-open-table": t.id }, _("Open my table")));
    }
    actions.push(h("a", { class: "button small ghost", href: url, "aria-label": fmt(_("Details: %(name)s"), { name: title(t) }) }, _("Details")));
    return h("article", { class: `table-card sng-card ${t.status}${t.mine ? " mine" : ""}`, "data-sng": t.id, "data-sng-status": t.status },
      h("header", {},
        h("a", { class: "table-name", href: url }, title(t)),
        h("span", { class: `pill ${t.status}` }, STATUS()[t.status] || t.status)),
      t.mine ? h("small", { class: "why", "data-why": "registered" }, _("You are in it")) : null,
      h("p", { class: "stake-line" },
        h("span", { "data-sng-buy-in": t.buy_in }, fmt(_("Buy-in %(buy_in)s + fee %(fee)s"), { buy_in: chips(t.buy_in), fee: chips(t.fee) })),
        " · ", h("span", { "data-sng-taken": t.registered }, fmt(_("%(taken)s/%(seats)s players"), { taken: t.registered, seats: t.seats }))),
      h("p", { class: "muted" }, fmt(_("%(chips)s starting chips"), { chips: chips(t.starting_chips) }),
        t.allow_bots ? [" · ", h("span", { "data-sng-bots": "" }, _("Bots may fill it"))] : null),
      h("p", { class: "actions" }, actions));
  }

  function render(found) {
    // Open for registration, and mine (running, or over) too.
    const rows = found.filter((t) => t.status === "registering" || t.mine);
    const groups = Object.entries(games)
      .map(([game, facts]) => [facts.label, rows.filter((t) => t.game === game).sort((a, b) => a.buy_in - b.buy_in || a.id - b.id)])
      .filter(([, items]) => items.length);
    replace(list, groups.length
      ? groups.map(([label, items]) => h("section", { class: "sng-game" },
        h("h3", {}, label), h("div", { class: "table-cards" }, items.map(card))))
      : h("p", { class: "muted", "data-sng-none": "" }, _("No Sit & Go open right now: create one.")));
  }

  async function refresh() {
    try {
      const found = await api("GET", "/api/v1/tournaments?page_size=100");
      render(found.results || found);
    } catch (error) {
      say(error.message);
    }
  }

  async function act(action, t) {
    if (busy) return;
    busy = true;
    say("");
    try {
      await api("POST", `/api/v1/tournaments/${t.id}/${action}`);
    } catch (error) {
      say(error.message);
    } finally {
      busy = false;
    }
    await refresh();
  }

  if (form) {
    const game = form.querySelector("[data-sng-game]");
    const seats = form.querySelector("[data-sng-seats]");
    replace(game, withSitAndGos.map(([code, facts]) => h("option", { value: code }, facts.label)));
    const sizes = () => replace(seats, games[game.value].sit_and_go_seats.map((n) => h("option", { value: n }, String(n))));
    game.addEventListener("change", sizes);
    if (withSitAndGos.length) sizes();
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (busy) return;
      busy = true;
      say("");
      const data = new FormData(form);
      const body = {
        game: game.value,
        seats: Number(seats.value),
        buy_in: Number(data.get("buy_in")),
        starting_chips: Number(data.get("starting_chips")),
        level_seconds: Math.round(Number(data.get("level_minutes")) * 60),
        allow_bots: data.get("allow_bots") !== null,
        bots_after_seconds: Number(data.get("bots_after_seconds")),
      };
      try {
        await api("POST", "/api/v1/tournaments", body);
        form.closest("details").open = false;
      } catch (error) {
        say(error.message);
      } finally {
        busy = false;
      }
      await refresh();
    });
  }

  const poll = () => {
    clearInterval(timer);
    timer = null;
    if (shown && document.visibilityState === "visible") {
      refresh();
      timer = setInterval(refresh, POLL_MS);
    }
  };
  document.addEventListener("visibilitychange", poll);

  return {
    show(visible) {
      panel.hidden = !visible;
      if (visible !== shown) {
        shown = visible;
        poll();
      }
    },
  };
}
