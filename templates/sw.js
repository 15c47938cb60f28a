// VIPGAME's service worker (vipgame/pwa.py; docs/browser.md "Installable and push").
// Served from /sw.js: its scope is the whole site.
const VERSION = "{{ version }}";
const SHELL_CACHE = `vipgame-shell-${VERSION}`;
const SHELL = {{ shell|safe }};
const OFFLINE = {{ offline|safe }};
const ICON = {{ icon|safe }};
const STATIC_PREFIX = {{ static_prefix|safe }};
// Hashed static names (production): a cached file never goes stale.
const CACHE_FIRST = {{ cache_first|safe }};

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(SHELL_CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys
        .filter((key) => key.startsWith("vipgame-shell-") && key !== SHELL_CACHE)
        .map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // Pages always come from the server (they show live chips and seats); the
    // offline page when it cannot be reached.
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE)));
    return;
  }
  if (!url.pathname.startsWith(STATIC_PREFIX)) return; // the API and sockets: never cached
  if (CACHE_FIRST) {
    event.respondWith(caches.match(request).then((hit) => hit || fetch(request)));
  } else {
    event.respondWith(fetch(request).catch(() => caches.match(request)));
  }
});

// A push notice (docs/protocol.md "Push"): shown unless a page of the site has
// the focus (the player is looking at it already).
self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch (err) {
    notice = {};
  }
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      if (windows.some((win) => win.focused && win.visibilityState === "visible")) {
        return undefined;
      }
      return self.registration.showNotification(notice.title || "VIPGAME", {
        body: notice.body || "",
        tag: notice.tag || "vipgame",
        renotify: true,
        icon: ICON,
        badge: ICON,
        data: { url: notice.url || "/", type: notice.type || "", table: notice.table || null },
      });
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((win) => win.url === target);
      return open ? open.focus() : self.clients.openWindow(target);
    }),
  );
});
