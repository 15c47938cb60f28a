"""Installable and push (docs/browser.md "Installable and push"): Chromium's
install criteria met (manifest, icons, service worker), the offline page
served from the service worker's cache, and a backgrounded table page
notified of its turn by the service worker, fed the notice the logging sender
recorded (the push service itself is outside this machine)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from .conftest import CHROMIUM_ARGS, chromium_path, open_play_now, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
# Chromium itself, not its headless shell: in the shell a page keeps the focus
# when another is brought in front, so the table never goes to the background.
WHOLE_BROWSER = True

NOTIFICATIONS = """() => navigator.serviceWorker.ready
  .then((r) => r.getNotifications())
  .then((list) => list.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data})))"""


def worker_ready(page: Any) -> None:
    """The service worker installed, active and controlling the page."""
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    if not page.evaluate("() => Boolean(navigator.serviceWorker.controller)"):
        page.reload()
        page.wait_for_function("() => Boolean(navigator.serviceWorker.controller)")


def test_chromium_finds_the_site_installable(browser, site, tmp_path):
    """In a profile of its own: Chromium never offers to install from an
    incognito context (Playwright's usual contexts are)."""
    context = browser.browser_type.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=chromium_path(full=True),
        headless=True,
        args=CHROMIUM_ARGS,
    )
    try:
        page = context.new_page()
        page.goto(f"{site.url}/")
        worker_ready(page)
        cdp = context.new_cdp_session(page)
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == []
        assert json.loads(manifest["data"])["display"] == "standalone"
        assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
        for size in (192, 512):
            icon = page.request.get(f"{site.url}/static/img/icon-{size}.png")
            assert icon.ok
            assert icon.headers["content-type"] == "image/png"
    finally:
        context.close()


def test_the_offline_page_comes_from_the_cache(pages, site):
    page = pages.new()
    page.goto(f"{site.url}/")
    worker_ready(page)
    page.context.set_offline(True)
    try:
        page.goto(f"{site.url}/tables/")
        page.wait_for_selector("[data-error-page=offline]")
        assert page.locator("h1").inner_text() == "Bạn đang mất mạng"
        # The shell's stylesheet came from the cache too.
        assert (
            page.evaluate("() => getComputedStyle(document.querySelector('.site-header')).display")
            != "inline"
        )
    finally:
        page.context.set_offline(False)
    # The browser says the network request failed (the worker answered instead).
    pages.errors[:] = [e for e in pages.errors if "ERR_INTERNET_DISCONNECTED" not in e]


def shown_notifications(page: Any, count: int, timeout: float = 15) -> list[dict[str, Any]]:
    """The notifications the service worker shows, once there are ``count``."""
    deadline = time.monotonic() + timeout
    shown = page.evaluate(NOTIFICATIONS)
    while len(shown) < count and time.monotonic() < deadline:
        page.wait_for_timeout(200)
        shown = page.evaluate(NOTIFICATIONS)
    return list(shown)


def recorded(site: Any, user_id: int, kind: str, timeout: float = 60) -> dict[str, Any]:
    """The first push of ``kind`` the logging sender recorded for the player."""
    path = site.log_dir / "push.jsonl"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if record["user"] == user_id and record["payload"]["type"] == kind:
                    return dict(record["payload"])
        time.sleep(0.2)
    raise AssertionError(f"no {kind} push for user {user_id} in {path}")


def test_a_backgrounded_table_is_notified_of_its_turn(pages, site):
    page = pages.new()
    page.context.grant_permissions(["notifications"], origin=site.url)
    sign_up(page, site)
    worker_ready(page)
    me = page.evaluate("() => fetch('/api/v1/me').then((r) => r.json())")
    # This browser's subscription, as push.js sends it (Chromium headless has no
    # push service to subscribe with: the endpoint is never called, the logging
    # sender records the push instead).
    page.goto(f"{site.url}/accounts/profile/")
    page.wait_for_selector("[data-push]:not([hidden])")
    page.wait_for_selector("[data-push-pref=turn]:not([disabled])")
    assert page.is_checked("[data-push-pref=turn]")
    saved = page.evaluate(
        """async () => {
          const pair = await crypto.subtle.generateKey(
            {name: "ECDH", namedCurve: "P-256"}, true, ["deriveBits"]);
          const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
          const b64 = (bytes) => btoa(String.fromCharCode(...bytes))
            .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
          const auth = crypto.getRandomValues(new Uint8Array(16));
          const response = await fetch("/api/v1/me/push/subscriptions", {
            method: "POST", credentials: "same-origin",
            headers: {"Content-Type": "application/json",
              "X-CSRFToken": document.querySelector("[name=csrfmiddlewaretoken]").value},
            body: JSON.stringify({kind: "web", endpoint: "https://push.example.test/e2e",
              expirationTime: null, keys: {p256dh: b64(raw), auth: b64(auth)}}),
          });
          return [response.status, await response.json()];
        }"""
    )
    assert saved[0] == 201, saved

    open_play_now(page, site, "maubinh")
    table_url = page.url.removeprefix(site.url)
    # Nobody else gets focus: the table page is the focused window until the
    # second page comes to the front (headless Chromium otherwise tells every
    # page it has the focus).
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": False})
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    page.wait_for_timeout(300)
    [registration] = [r for r in registrations if not r.get("isDeleted")][:1]
    if page.locator("[data-action=ready]:visible").count():
        page.click("[data-action=ready]")
    notice = recorded(site, me["id"], "turn")
    assert notice["url"] == table_url
    assert notice["title"] == "Đến lượt bạn"

    def deliver() -> None:
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": site.url,
                "registrationId": registration["registrationId"],
                "data": json.dumps(notice),
            },
        )

    # The table on screen and focused: the page shows the turn itself.
    assert page.evaluate("() => document.hasFocus()")
    deliver()
    page.wait_for_timeout(1000)
    assert page.evaluate(NOTIFICATIONS) == []

    # Another page in front: the table is in the background, and notified.
    # (Another site's page: a page of this site in front would have the focus.)
    other = page.context.new_page()
    other.goto("about:blank")
    other.bring_to_front()
    page.wait_for_function("() => !document.hasFocus()")
    deliver()
    [shown] = shown_notifications(page, count=1)
    assert shown["title"] == "Đến lượt bạn"
    assert shown["body"] == notice["body"]
    assert shown["tag"] == f"table-{notice['table']}"
    assert shown["data"]["url"] == table_url
