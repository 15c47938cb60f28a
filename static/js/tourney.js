// The live bar of a tournament's table (loaded by table.js when the state's
// `table.money` is "tournament"): the level in play and its stake (blinds and
// ante where the levels raise blinds), a countdown to the next level, the
// places paid and the players left, from GET /api/v1/tournaments?table=<id>
// then /api/v1/tournaments/<id>. Asked again at each new hand (the table's
// `hands_played` changes), when it closes and when the countdown ends. One line under the
// status line: it never stands over the felt.
import { h, replace } from "./dom.js";
import { _, fmt, chips } from "./i18n.js";
import { api, title } from "./tournaments.js";
import { icon } from "./icons.js";

export function mountTourney(shell) {
  const bar = h("div", { class: "tourney-bar", role: "group", "aria-label": _("Tournament"), "data-tourney-bar": "" });
  shell.root.querySelector("[data-status]").after(bar);
  shell.root.classList.add("tourney");
  let tournament = null;
  let deadline = null; // the next level, in the page's clock (ms)
  let hands = null;
  let asking = false;
  let again = false; // asked for while asking: once more after

  function stake(level, kind) {
    if (kind === "blinds") {
      const blinds = fmt(_("Blinds %(sb)s/%(bb)s"), { sb: chips(level.small_blind), bb: chips(level.big_blind) });
      return level.ante ? `${blinds} · ${fmt(_("ante %(ante)s"), { ante: chips(level.ante) })}` : blinds;
    }
    return fmt(_("Stake %(stake)s"), { stake: chips(level.stake) });
  }

  function draw() {
    const t = tournament;
    if (!t) return;
    const level = t.level;
    const paid = t.prizes.filter((p) => p > 0);
    const items = [
      h("a", { class: "tourney-name", href: `/tournaments/${t.id}/`, "data-tourney-link": t.id },
        icon("cup"), h("span", { class: "tourney-label" }, title(t))),
    ];
    if (level) {
      items.push(h("span", { class: "pill", "data-tourney-level": level.number }, fmt(_("Level %(n)s"), { n: level.number })));
      items.push(h("span", { class: "pill", "data-tourney-stake": "" }, stake(level, t.level_kind)));
      items.push(h("span", { class: "pill", "data-tourney-next": "" }));
    } else if (t.status === "finished") {
      items.push(h("span", { class: "pill", "data-tourney-over": "" }, _("The tournament is over.")));
    }
    items.push(h("span", { class: "pill", "data-tourney-left": t.players_left },
      fmt(_("%(left)s/%(seats)s left"), { left: t.players_left, seats: t.registered })));
    items.push(h("span", { class: "pill", "data-tourney-paid": paid.length, title: paid.map((p, i) => `${i + 1}: ${chips(p)}`).join(" · ") },
      fmt(_("Paid: %(prizes)s"), { prizes: paid.map(chips).join(" / ") })));
    replace(bar, items);
    tick();
  }

  function tick() {
    const node = bar.querySelector("[data-tourney-next]");
    if (!node) return;
    if (deadline === null) {
      node.textContent = _("Last level");
      return;
    }
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    node.textContent = fmt(_("Next level in %(time)s"), { time: text });
    if (left === 0 && !asking) ask(); // (the server's next level; again a second later if it lags)
  }

  async function ask() {
    if (asking) {
      again = true;
      return;
    }
    asking = true;
    try {
      let id = tournament && tournament.id;
      if (!id) {
        // (registering or running; once over, asked by its status)
        const lookup = async (query) => ((await api("GET", `/api/v1/tournaments?table=${shell.config.table}${query}`)).results || [])[0];
        const first = (await lookup("")) || (await lookup("&status=finished"));
        if (!first) return;
        id = first.id;
      }
      tournament = await api("GET", `/api/v1/tournaments/${id}`);
      const next = tournament.level && tournament.level.next_in;
      deadline = typeof next === "number" ? Date.now() + next * 1000 : null;
      draw();
    } catch {
      // (offline for a moment: asked again at the next hand)
    } finally {
      // At the countdown's end the server may still be a moment behind: not again before a second.
      setTimeout(() => {
        asking = false;
        if (again) {
          again = false;
          ask();
        }
      }, 1000);
    }
  }

  setInterval(tick, 500);
  return {
    /** Each state of the table: a new hand asks again, and so does its
     * closing (the tournament is over). */
    changed(state) {
      const key = `${state.table.hands_played}/${state.table.status === "closed"}`;
      if (key !== hands) {
        hands = key;
        ask();
      }
    },
  };
}
