// The private table's invite link selects itself on a click (no inline handler:
// the Content-Security-Policy allows scripts from this site's files only).
for (const input of document.querySelectorAll("[data-invite-link]")) {
  input.addEventListener("click", () => input.select());
}
