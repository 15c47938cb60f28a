// The tournament page while it registers or runs: the page is drawn again
// (reloaded) when its status, places or players left change, asked for
// every POLL_MS while the page is visible.
import { api, POLL_MS } from "./tournaments.js";

const root = document.querySelector("[data-tournament]");
let known = null;

async function check() {
  if (document.visibilityState !== "visible") return;
  try {
    const t = await api("GET", `/api/v1/tournaments/${root.dataset.tournament}`);
    const now = JSON.stringify([t.status, t.registered, t.players_left, t.level && t.level.number]);
    if (known !== null && now !== known) location.reload();
    known = now;
  } catch {
    // (offline for a moment: the next check)
  }
}

check();
setInterval(check, POLL_MS);
