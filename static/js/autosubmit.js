// "Play now" after logging in: post the form at once (the button stays for no-JS).
const form = document.querySelector("form[data-autosubmit]");
if (form) form.requestSubmit();
