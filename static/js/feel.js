// How the table feels: after each change TableShell calls `changed`, which
// derives the moments (static/js/moments.js) and hands them to the motion
// (static/js/motion.js) and the sound (static/js/sound.js); `tick` puts the
// seconds on the running clocks' rings and ticks in the last 5 s of mine. The
// mute switch sits on the felt.
import { h, replace, svg } from "./dom.js";
import { _ } from "./i18n.js";
import { moments, clockSecond, holdMs } from "./moments.js";
import { react } from "./motion.js";
import { sound } from "./sound.js";

/** A speaker, with waves when the sound is on and a cross when it is off. */
function speaker(muted) {
  const icon = svg("svg", { viewBox: "0 0 24 24", width: 20, height: 20, "aria-hidden": "true" });
  const line = { fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round" };
  icon.append(svg("path", { d: "M3 9h4l5-4v14l-5-4H3z", fill: "currentColor" }),
    svg("path", { ...line, d: muted ? "M16 9l6 6M22 9l-6 6" : "M16 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13" }));
  return icon;
}

// The sound of each moment; a change's sounds play one after another, each
// once, after the time the one before takes (a board run out street by
// street: its streets).
const CUES = {
  deal: "deal", turn: "turn", play: "card", chop: "chop", thoi: "thoi", allin: "allin",
  bet: "chip", pot: "chip", reveal: "card", tick: "tick", board: "card",
};
const LENGTH = { deal: 0.4, chop: 0.3, thoi: 0.6, allin: 0.45, win: 0.6, lose: 0.5 };

/** The sounds of these moments as [name, delay in seconds]. */
export function cues(list) {
  const out = [];
  let delay = 0;
  for (const m of list) {
    const name = m.type === "end" ? (m.units > 0 ? "win" : m.units < 0 ? "lose" : null) : CUES[m.type];
    if (!name || out.some(([n]) => n === name)) continue;
    out.push([name, delay]);
    delay += (LENGTH[name] || 0.15) + holdMs(m) / 1000;
  }
  return out;
}

export class Feel {
  constructor(shell) {
    this.shell = shell;
    this.lastTick = null;
    this.toggle = h("button", {
      type: "button", class: "sound-toggle", "data-sound-toggle": "",
      "aria-label": _("Mute the sound"), title: _("Mute the sound"),
      onclick: () => sound.setMuted(!sound.muted),
    });
    sound.listeners.push(() => this.showMuted());
    this.showMuted();
    shell.felt.append(this.toggle);
  }

  showMuted() {
    replace(this.toggle, speaker(sound.muted));
    this.toggle.setAttribute("aria-pressed", String(sound.muted));
    this.toggle.dataset.muted = sound.muted ? "1" : "0";
  }

  /** After a state or a delta was applied (and rendered). */
  changed(before, after) {
    this.dispatch(() => moments(before, after, this.shell.game));
  }

  /** Move and sound for the moments `derive` gives; a fault here is logged and
   * never stops the table. */
  dispatch(derive) {
    try {
      const list = derive();
      if (!list.length) return;
      react(list, this.shell);
      for (const [name, delay] of cues(list)) sound.play(name, delay);
      // Phones buzz on my turn (browsers allow it once the page has been tapped).
      if (list.some((m) => m.type === "turn") && navigator.vibrate && navigator.userActivation?.hasBeenActive !== false) {
        navigator.vibrate([70, 50, 70]);
      }
    } catch (err) {
      console.error("table moments:", err);
    }
  }

  /** Every clock tick of the shell (and after each render), `now` in server time. */
  tick(now) {
    const state = this.shell.state;
    const clock = state.clock;
    const seconds = clock ? String(Math.max(0, Math.ceil((clock.deadline - now) / 1000))) : "";
    for (const arc of this.shell.felt.querySelectorAll("[data-ring]")) {
      const avatar = arc.closest(".avatar");
      let label = avatar.querySelector("[data-ring-seconds]");
      if (!label) avatar.append(label = h("span", { class: "ring-seconds", "data-ring-seconds": "", "aria-hidden": "true" }));
      if (label.textContent !== seconds) label.textContent = seconds;
    }
    const second = clockSecond(state, now);
    if (second && second.key !== this.lastTick) {
      this.lastTick = second.key;
      this.dispatch(() => [{ type: "tick", seconds: second.seconds }]);
    }
  }
}
