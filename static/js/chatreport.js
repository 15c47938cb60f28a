// Reporting a table chat line to the moderators (the socket's `report`,
// docs/protocol.md): a flag on every line but one's own, a confirmation with
// the reason, and a word back when the report is filed.
import { h } from "./dom.js";
import { _, fmt } from "./i18n.js";
import { icon } from "./icons.js";

const CATEGORIES = () => [
  ["abuse", _("Abuse or insults")], ["spam", _("Spam or advertising")],
  ["cheating", _("Cheating or collusion")], ["other", _("Something else")],
];
const pending = new Map(); // request id -> the chat line's node

/** The flag of a chat line (null on my own lines or when not logged in). */
export function reportButton(shell, message) {
  const me = shell.config.user;
  if (!me || message.user_id === me.id || !message.id) return null;
  return h("button", {
    type: "button", class: "report", title: _("Report this line to the moderators"),
    "aria-label": _("Report this line to the moderators"), "data-report": message.id,
    onclick: (e) => ask(shell, message, e.currentTarget.closest("li")),
  }, icon("flag"));
}

function ask(shell, message, line) {
  const select = h("select", { "data-report-category": "", "aria-label": _("Why?") },
    CATEGORIES().map(([value, label]) => h("option", { value }, label)));
  const text = h("span", { class: "report-ask" },
    h("q", {}, message.text), " — ", message.name,
    h("label", { class: "report-why" }, _("Why?"), " ", select));
  shell.confirm(_("Report this line to the moderators?"), text, _("Report"), _("Cancel"), () => {
    const id = shell.conn.request({ type: "report", message_id: message.id, category: select.value });
    if (id === null) shell.flash(_("Not connected."), "error");
    else pending.set(id, line);
  });
}

/** The socket's `ack` of a report: the line shows it was reported. */
export function reportAcked(shell, ack) {
  const line = pending.get(ack.id);
  pending.delete(ack.id);
  if (line) {
    line.classList.add("reported");
    const flag = line.querySelector("[data-report]");
    if (flag) { flag.disabled = true; flag.title = _("Reported"); }
  }
  shell.flash(fmt(_("Thank you: a moderator will look at this line (#%(id)s)."), { id: ack.reported }), "info");
}
