// Every page: the service worker (/sw.js, scope: the whole site) that caches the
// static shell, shows the offline page and receives push notices
// (docs/browser.md "Installable and push").
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // (no worker: the site works as before, without offline page or push)
  });
}
