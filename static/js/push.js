// The profile page's notifications: this browser's Web Push subscription and
// what I want pushed (the API's /api/v1/push/key, /api/v1/me/push/...).
const root = document.querySelector("[data-push]");

function csrf() {
  return document.querySelector("[name=csrfmiddlewaretoken]")?.value || "";
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok && response.status !== 204) {
    let message = response.statusText;
    try {
      message = (await response.json()).message || message;
    } catch (err) {
      // (not JSON)
    }
    throw new Error(message);
  }
  return response.status === 204 ? null : response.json();
}

function keyBytes(base64url) {
  const padded = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function say(text) {
  root.querySelector("[data-push-state]").textContent = text;
}

async function currentSubscription() {
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

async function showState() {
  const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  const enable = root.querySelector("[data-push-enable]");
  const disable = root.querySelector("[data-push-disable]");
  if (!supported) {
    say(root.dataset.textUnsupported);
    enable.hidden = disable.hidden = true;
    return;
  }
  if (Notification.permission === "denied") {
    say(root.dataset.textBlocked);
    enable.hidden = disable.hidden = true;
    return;
  }
  const subscription = await currentSubscription();
  say(subscription ? root.dataset.textOn : root.dataset.textOff);
  enable.hidden = Boolean(subscription);
  disable.hidden = !subscription;
}

async function enablePush() {
  try {
    if ((await Notification.requestPermission()) !== "granted") {
      await showState();
      return;
    }
    const { vapid_public_key: key } = await api("GET", "/api/v1/push/key");
    const registration = await navigator.serviceWorker.ready;
    const subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(key),
    });
    const saved = await api("POST", "/api/v1/me/push/subscriptions", { kind: "web", ...subscription.toJSON() });
    localStorage.setItem("vipgame.push.subscription", String(saved.id));
    await showState();
  } catch (err) {
    say(`${root.dataset.textFailed} ${err.message || err}`);
  }
}

async function disablePush() {
  try {
    const subscription = await currentSubscription();
    const id = localStorage.getItem("vipgame.push.subscription");
    if (id) await api("DELETE", `/api/v1/me/push/subscriptions/${encodeURIComponent(id)}`).catch(() => null);
    localStorage.removeItem("vipgame.push.subscription");
    if (subscription) await subscription.unsubscribe();
    await showState();
  } catch (err) {
    say(`${root.dataset.textFailed} ${err.message || err}`);
  }
}

async function loadPreferences() {
  const prefs = await api("GET", "/api/v1/me/push/preferences");
  for (const box of root.querySelectorAll("[data-push-pref]")) {
    box.checked = Boolean(prefs[box.dataset.pushPref]);
    box.disabled = false;
    box.addEventListener("change", async () => {
      box.disabled = true;
      try {
        const saved = await api("PATCH", "/api/v1/me/push/preferences", { [box.dataset.pushPref]: box.checked });
        box.checked = Boolean(saved[box.dataset.pushPref]);
      } catch (err) {
        box.checked = !box.checked;
        say(`${root.dataset.textFailed} ${err.message || err}`);
      } finally {
        box.disabled = false;
      }
    });
  }
}

if (root) {
  root.hidden = false;
  root.querySelector("[data-push-enable]").addEventListener("click", enablePush);
  root.querySelector("[data-push-disable]").addEventListener("click", disablePush);
  showState().catch((err) => say(`${root.dataset.textFailed} ${err.message || err}`));
  loadPreferences().catch((err) => say(`${root.dataset.textFailed} ${err.message || err}`));
}
