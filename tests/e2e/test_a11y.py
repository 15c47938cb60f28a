"""Accessible play, WCAG 2.2 AA (issue 32 item 6): axe-core, vendored for the
tests only (tests/e2e/vendor/axe.min.js, MPL 2.0, never served), finds no
critical and no serious violation on any page a player or a moderator uses:
the public pages, the lobby, the profile, the rules, each game's table in the
middle of a hand and at its result, the replay, and the moderator's admin
pages. What it finds below "serious" is printed (``-s``), not failed.

One Daphne stack and one browser serve the whole module (``site``, ``pages``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from ..registry import browser_games
from .conftest import DESKTOP, E2E_TABLE_DEFAULTS, PASSWORD, in_a_thread, leave_now, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")
# WCAG 2.0, 2.1 and 2.2 at A and AA, and axe's best practices (a page's one
# <h1>, landmarks): the impact, not the tag, decides what fails.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
FAILING = {"critical", "serious"}


def axe(page: Any, where: str) -> list[dict[str, Any]]:
    """axe-core's violations on ``page`` as it stands, each printed; the
    critical and serious ones are returned. (Injected through the DevTools
    protocol, which the pages' CSP does not govern.)"""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE + "\n;0")
    found = page.evaluate(
        """async (tags) => {
          const r = await axe.run(document, {
            runOnly: { type: "tag", values: tags }, resultTypes: ["violations"],
          });
          return r.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
          }));
        }""",
        TAGS,
    )
    for v in found:
        print(f"axe {where}: {v['impact']} {v['id']} ({len(v['nodes'])}): {v['help']}")
        for node in v["nodes"][:6]:
            print(f"    {node['target']}: {(node['summary'] or '').splitlines()[-1].strip()}")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]}
        for v in found
        if v["impact"] in FAILING
    ]


def bot_table(page: Any, site: Any, game: str) -> int:
    """A four-seat bots table of ``game`` whose result stays on the table
    for 30 s (long enough to check it); sat down and ready."""
    from games import services

    pairs = (item.split("=") for item in E2E_TABLE_DEFAULTS.split(","))
    numbers: dict[str, Any] = {name: int(value) for name, value in pairs}
    numbers["summary_seconds"] = 30

    def create() -> int:
        return services.table_create(
            owner=None, game=game, stake=10, seat_count=4, fill_with_bots=True, **numbers
        ).pk

    table_id = int(in_a_thread(create))
    page.goto(f"{site.url}/tables/{table_id}/")
    page.click("[data-action=sit]")
    page.wait_for_selector("[data-table-app] .seat.you")
    page.click("[data-action=ready]")
    return table_id


MID_HAND = {
    # my turn, or my arrangement: the controls a player uses are drawn
    "tienlen": "() => { const s = window.vipTable.state; return s.hand && !s.hand.finished"
    " && s.actors.includes(s.you) }",
    "maubinh": "() => { const s = window.vipTable.state; return s.hand && !s.hand.finished"
    " && s.hand.view.phase === 'arrange' }",
    "holdem": "() => { const s = window.vipTable.state; return s.hand && !s.hand.finished"
    " && s.actors.includes(s.you) }",
}

# One move of mine that is always legal (played with the mouse here: the
# keyboard has tests of its own below).
MOVE = """(game) => {
  const t = window.vipTable, s = t.state;
  if (!s.hand || s.hand.finished || !s.actors.includes(s.you)) return false;
  const click = (sel) => {
    const b = document.querySelector(sel);
    if (!b || b.disabled) return false;
    b.click();
    return true;
  };
  if (game === "maubinh") return click("[data-action=submit]");
  if (game === "holdem") return click("[data-action=check]") || click("[data-action=fold]");
  const view = s.hand.view;
  if (view.hints && view.hints.can_pass) return click("[data-action=pass]");
  const card = view.must_include || view.hand[0];
  click("[data-action=clear]");
  document.querySelector(`[data-my-hand] [data-card="${card}"]`).click();
  return click("[data-action=play]");
}"""


def play_to_the_result(page: Any, game: str) -> None:
    for _ in range(200):
        if page.evaluate("() => window.vipTable.state.table.status === 'summary'"):
            return
        page.evaluate(MOVE, game)
        page.wait_for_timeout(250)
    raise AssertionError(f"{game}: no result")


def moderator(site: Any) -> str:
    from accounts.models import User

    def make() -> str:
        hasher = PBKDF2PasswordHasher()
        user = User.objects.create(
            username="mod_a11y",
            display_name="Mod",
            is_staff=True,
            is_superuser=True,
            password=hasher.encode(PASSWORD, hasher.salt(), iterations=1000),
        )
        return str(user.username)

    return str(in_a_thread(make))


def log_in(page: Any, site: Any, username: str) -> None:
    page.goto(f"{site.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site.url}/")


def test_no_critical_or_serious_violation_anywhere(browser, pages, site):
    page = pages.new()
    failures: dict[str, Any] = {}

    def check(where: str) -> None:
        page.wait_for_load_state()
        found = axe(page, where)
        if found:
            failures[where] = found

    for path in ("/", "/accounts/login/", "/accounts/signup/", "/rules/"):
        page.goto(site.url + path)
        check(path)
    for game in browser_games():
        page.goto(f"{site.url}/rules/{game}/")
        check(f"/rules/{game}/")

    sign_up(page, site)
    signed_in = ("/", "/tables/", "/tables/leaderboard/", "/accounts/profile/", "/wallet/")
    for path in (*signed_in, "/tables/history/"):
        page.goto(site.url + path)
        check(path)

    hands: dict[str, int] = {}
    for game in browser_games():
        bot_table(page, site, game)
        page.wait_for_function(MID_HAND[game], timeout=30_000)
        check(f"{game} mid-hand")
        play_to_the_result(page, game)
        page.wait_for_selector("[data-summary]:not([hidden])")
        check(f"{game} result")
        hands[game] = int(page.evaluate("window.vipTable.state.hand.id"))
        leave_now(page)

    page.goto(f"{site.url}/tables/history/")
    check("/tables/history/ (played)")
    for game, hand in hands.items():
        page.goto(f"{site.url}/tables/history/{hand}/")
        page.wait_for_selector("[data-replay-app] [data-felt] .seat")
        check(f"replay {game}")

    # (The admin's own scripts set inline styles the CSP blocks, and it asks
    # for a missing favicon: console errors of Django's admin, not of these
    # pages' accessibility, so its context is not one of ``pages``.)
    admin = browser.new_context(viewport=DESKTOP, locale="vi-VN")
    page = admin.new_page()
    log_in(page, site, moderator(site))
    first_hand = min(hands.values())
    for path in (
        "/admin/",
        "/admin/accounts/user/",
        "/admin/games/table/",
        "/admin/games/hand/",
        f"/admin/games/hand/{first_hand}/inspect/",
        "/admin/moderation/chatreport/",
        "/admin/moderation/integrityreport/",
        "/admin/moderation/auditentry/",
        "/admin/wallet/adjustment/",
        "/admin/wallet/account/house/",
    ):
        page.goto(site.url + path)
        check(path)
    # a player's page, with the moderator's panel
    page.goto(f"{site.url}/admin/accounts/user/")
    page.click("#result_list tbody tr th a")
    check("a player's page")

    admin.close()
    assert failures == {}, json.dumps(failures, indent=1, ensure_ascii=False)
