"""Accessible play, WCAG 2.2 AA (issue 32 item 6): axe-core, vendored for the
tests only (tests/e2e/vendor/axe.min.js, MPL 2.0, never served), finds no
critical and no serious violation on any page a player or a moderator uses:
the public pages, the lobby (its tournaments tab too), the profile, the rules,
a tournament's page and its table with the live bar, each game's table in the
middle of a hand and at its result, the replay, and the moderator's admin
pages. What it finds below "serious" is printed (``-s``), not failed.

One Daphne stack and one browser serve the whole module (``site``, ``pages``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.hashers import make_password

from ..registry import browser_games
from .conftest import (
    DESKTOP,
    E2E_TABLE_DEFAULTS,
    PASSWORD,
    PHONE,
    in_a_thread,
    leave_now,
    shot,
    sign_up,
    switch_language,
)

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


# My turn (a Mậu Binh arrangement too: everyone still arranging acts): the
# controls a player uses are drawn.
MID_HAND = """() => { const s = window.vipTable.state;
  return s.hand && !s.hand.finished && s.actors.includes(s.you) }"""

# My turn, or a hand that ended before it came (a Tiến Lên or Mậu Binh instant
# win at the deal, a Hold'em hand everyone folded to my big blind).
MY_TURN_OR_OVER = """() => { const s = window.vipTable.state;
  return s.hand && (s.hand.finished || s.actors.includes(s.you)) }"""


def wait_for_my_turn(page: Any) -> None:
    """My turn in this hand or, when this deal ended without asking me
    anything, in the next one (dealt by itself once the result's 30 s pass)."""
    page.wait_for_function(MY_TURN_OR_OVER, timeout=30_000)
    if not page.evaluate(MID_HAND):
        page.wait_for_function(MID_HAND, timeout=90_000)


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
        user = User.objects.create(
            username="mod_a11y",
            display_name="Mod",
            is_staff=True,
            is_superuser=True,
            password=make_password(PASSWORD),
        )
        return str(user.username)

    return str(in_a_thread(make))


def log_in(page: Any, site: Any, username: str) -> None:
    page.goto(f"{site.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site.url}/")


def tournament_pages(page: Any, site: Any, username: str, check: Any, on_a_phone: Any) -> None:
    """The lobby's tournaments tab, a Sit & Go's page and its table with the
    live bar (a heads-up Sit & Go of the player's, a bot in the other place),
    then the Sit & Go called off (its table closes)."""
    from accounts.models import User
    from tournaments import services

    def start() -> int:
        by = User.objects.get(username=username)
        tournament = services.tournament_create_and_register(
            by=by, game="holdem", seats=2, buy_in=10, allow_bots=True, bots_after_seconds=0
        )
        services.tournament_fill_with_bots(tournament_id=tournament.pk)
        return tournament.pk

    tournament = int(in_a_thread(start))
    page.goto(f"{site.url}/tables/?tab=tournaments")
    page.wait_for_selector(f"[data-sng='{tournament}'] [data-sng-open-table]")
    page.click("[data-sng-create] summary")
    check("/tables/?tab=tournaments")
    on_a_phone("/tables/?tab=tournaments")
    page.goto(f"{site.url}/tournaments/{tournament}/")
    check("/tournaments/<id>/ (running)")
    page.click("[data-tournament-table]")
    page.wait_for_selector("[data-tourney-bar] [data-tourney-level]")
    check("a tournament's table")
    on_a_phone("a tournament's table")
    in_a_thread(lambda: services.tournament_cancel(tournament_id=tournament, reason="a11y"))


def test_no_critical_or_serious_violation_anywhere(browser, pages, site):
    page = pages.new()
    failures: dict[str, Any] = {}

    def check(where: str) -> None:
        page.wait_for_load_state()
        found = axe(page, where)
        if found:
            failures[where] = found

    def on_a_phone(where: str) -> None:
        """The same page as a 360 px phone shows it (drawers, my bar), then back."""
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(300)
        check(f"{where} (phone)")
        page.set_viewport_size(DESKTOP)

    for path in ("/", "/accounts/login/", "/accounts/signup/", "/rules/"):
        page.goto(site.url + path)
        check(path)
    for game in browser_games():
        page.goto(f"{site.url}/rules/{game}/")
        check(f"/rules/{game}/")

    username = sign_up(page, site)
    signed_in = ("/", "/tables/", "/tables/leaderboard/", "/accounts/profile/", "/wallet/")
    for path in (*signed_in, "/tables/history/"):
        page.goto(site.url + path)
        check(path)
    on_a_phone("/tables/")
    tournament_pages(page, site, username, check, on_a_phone)

    hands: dict[str, int] = {}
    for game in browser_games():
        bot_table(page, site, game)
        wait_for_my_turn(page)
        # a busy chat and event log (each a scrolling region then)
        page.evaluate(
            """() => { for (let i = 0; i < 60; i++) {
                 window.vipTable.chatLine({ id: -1 - i, name: "An", text: `line ${i}` });
                 window.vipTable.announce(`event ${i}`);
               } }"""
        )
        check(f"{game} mid-hand")
        on_a_phone(f"{game} mid-hand")
        play_to_the_result(page, game)
        page.wait_for_selector("[data-summary]:not([hidden])")
        check(f"{game} result")
        on_a_phone(f"{game} result")
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


# -- a whole hand by keyboard alone ---------------------------------------

# The most key presses a whole hand may take, from the table page's load to
# its result, sitting down (about 21 Tab from the top of the page) and getting
# ready included. The issue measured 243 for one Tiến Lên hand, 223 of them
# Tab; measured here (2026-11-29): Tiến Lên 28 to 94 over six hands (48 since
# the test takes the fewest keys from the focused card to the one it plays),
# Mậu Binh 33, Hold'em 28 and 29.
TIENLEN_KEYS, MAUBINH_KEYS, HOLDEM_KEYS = 120, 45, 60

STATE = """() => {
  const s = window.vipTable.state;
  const active = document.activeElement;
  return {
    hand: s.hand ? { id: s.hand.id, finished: s.hand.finished, view: s.hand.view } : null,
    mine: !!(s.hand && !s.hand.finished && s.actors.includes(s.you)),
    status: s.table.status, seat: s.seat, v: s.v,
    focus: active && active !== document.body ? (active.dataset.card || active.dataset.action
      || active.tagName) : null,
    selected: [...document.querySelectorAll("[data-mine] [aria-selected=true]")]
      .map((n) => n.dataset.card),
  };
}"""


class Keys:
    """The keyboard, counted: every press of the test goes through it."""

    def __init__(self, page: Any) -> None:
        self.page, self.count, self.tabs = page, 0, 0

    def press(self, key: str, times: int = 1) -> None:
        for _ in range(times):
            self.page.keyboard.press(key)
            self.count += 1
            self.tabs += key == "Tab"


def keyboard_table(page: Any, site: Any, game: str) -> Keys:
    """A bots table of ``game`` (as ``bot_table``), sat at and readied by keys."""
    from games import services

    pairs = (item.split("=") for item in E2E_TABLE_DEFAULTS.split(","))
    numbers: dict[str, Any] = {name: int(value) for name, value in pairs}
    numbers.update(summary_seconds=30, turn_seconds=20)

    def create() -> int:
        return services.table_create(
            owner=None, game=game, stake=10, seat_count=4, fill_with_bots=True, **numbers
        ).pk

    table_id = int(in_a_thread(create))
    page.goto(f"{site.url}/tables/{table_id}/")
    page.wait_for_selector("[data-action=sit]")
    keys = Keys(page)
    for _ in range(40):  # Tab to the Sit down button
        if page.evaluate("() => document.activeElement.dataset.action === 'sit'"):
            break
        keys.press("Tab")
    keys.press("Enter")
    page.wait_for_selector("[data-action=ready]")
    assert page.evaluate(STATE)["focus"] is not None, "focus fell to the body after sitting"
    keys.press("r")
    return keys


def my_turn(page: Any, seen: int) -> dict[str, Any] | None:
    """Waits for my next turn (a state newer than ``seen``) or the result."""
    page.wait_for_function(
        """(seen) => { const s = window.vipTable.state;
          return s.hand && ((s.hand.finished && s.table.status === 'summary')
            || (!s.hand.finished && s.actors.includes(s.you) && s.v > seen)); }""",
        arg=seen,
        timeout=60_000,
    )
    state = page.evaluate(STATE)
    return None if state["hand"]["finished"] else dict(state)


def next_hand(page: Any) -> int:
    """A hand that ended before my first turn (a tới trắng at the deal; all
    folding to my big blind): auto-ready deals the next one, which the test
    plays, its keys still counted from the page's load. The state's version."""
    page.wait_for_function(
        """(id) => { const h = window.vipTable.state.hand;
          return h.id !== id && !h.finished }""",
        arg=page.evaluate("window.vipTable.state.hand.id"),
        timeout=60_000,
    )
    return int(page.evaluate("window.vipTable.state.v"))


def said(page: Any) -> list[str]:
    return list(page.evaluate("window.vipTable.live.said"))


RANKS = "3456789TJQKA2"
SUITS = "scdh"


def single(view: dict[str, Any]) -> str | None:
    """The one card I play alone, or None to pass: leading, the card I must
    include, else my lowest; on a single, my lowest card that beats it."""
    table = view["table"]
    if table is None:
        return str(view["must_include"] or view["hand"][0])
    if table["combination"] != "single":
        return None
    strength = lambda c: (RANKS.index(c[0]), SUITS.index(c[-1]))  # noqa: E731
    beats = [c for c in view["hand"] if strength(c) > strength(table["cards"][0])]
    return str(min(beats, key=strength)) if beats else None


def test_a_whole_tien_len_hand_by_keyboard(pages, site):
    page = pages.new()
    sign_up(page, site)
    keys = keyboard_table(page, site, "tienlen")
    turns = selections = 0
    seen = 0
    while True:
        state = my_turn(page, seen)
        if state is None and not turns and page.evaluate("window.vipTable.state.hand.view.instant"):
            seen = next_hand(page)  # a tới trắng ended the hand at its deal
            continue
        if state is None:
            break
        turns += 1
        assert state["focus"] is not None, f"turn {turns}: focus on the body"
        view = state["hand"]["view"]
        card = single(view)
        if card is None:
            keys.press("s")  # pass
        else:  # one card: to my cards, to it by the arrows, Space, then Play
            hand = view["hand"]
            if state["focus"] not in hand:
                keys.press("h")  # to my cards: the one the keyboard was last on
            at = hand.index(page.evaluate(STATE)["focus"])
            want, last = hand.index(card), len(hand) - 1
            # the fewest keys: the arrows from here, or Home or End first
            way = min(
                (abs(want - at), None, "ArrowRight" if want > at else "ArrowLeft"),
                (1 + want, "Home", "ArrowRight"),
                (1 + last - want, "End", "ArrowLeft"),
                key=lambda option: option[0],
            )
            if way[1]:
                keys.press(way[1])
            keys.press(way[2], way[0] - (1 if way[1] else 0))
            keys.press("Space")
            selections += 1
            after = page.evaluate(STATE)
            assert after["focus"] == card, "focus left the card selected"
            assert after["selected"] == [card]
            if selections == 1:
                shot(page, "a11y-tienlen-keyboard")
            keys.press("p")
        page.wait_for_function("(v) => window.vipTable.state.v > v", arg=state["v"])
        seen = page.evaluate("window.vipTable.state.v")
        assert page.evaluate(STATE)["focus"] is not None, f"turn {turns}: focus fell after the move"
    page.wait_for_selector("[data-summary]:not([hidden])")
    lines = said(page)
    print(f"tienlen: {keys.count} keys ({keys.tabs} Tab), {turns} turns, {selections} selections")
    print("said:", lines)
    assert turns >= 1
    assert keys.count <= TIENLEN_KEYS
    assert any(line.startswith("Đến lượt bạn: còn") for line in lines)
    assert any("bỏ lượt" in line or "đánh" in line for line in lines)
    assert any(line.startswith("Hết ván") for line in lines)


def test_a_whole_mau_binh_hand_by_keyboard(pages, site):
    """Arranged without dragging: two cards swapped by keys across the chi and
    back, the auto-arrangement taken by its key, submitted by its key."""
    page = pages.new()
    sign_up(page, site)
    keys = keyboard_table(page, site, "maubinh")
    wait_for_my_turn(page)
    rows = lambda: page.evaluate(  # noqa: E731
        """() => [1, 2, 3].map((n) => [...document.querySelectorAll(
             `[data-chi='${n}'] [data-card]`)].map((c) => c.dataset.card))"""
    )
    keys.press("a")  # auto-arrange (never binh lủng)
    start = rows()
    keys.press("h")  # to the cards: chi 1's first
    keys.press("Space")
    assert page.evaluate(STATE)["selected"] == [start[0][0]]
    keys.press("3")  # chi 3's first card
    keys.press("Space")  # swapped
    swapped = rows()
    assert swapped[0][0] == start[2][0]
    assert swapped[2][0] == start[0][0]
    assert page.evaluate(STATE)["focus"] is not None, "focus fell after the swap"
    shot(page, "a11y-maubinh-keyboard")
    keys.press("1")
    keys.press("Space")
    keys.press("3")
    keys.press("Space")  # and back
    assert rows() == start
    keys.press("s")  # submit
    page.wait_for_function(
        """() => { const own = window.vipTable.state.hand.view.own;
          return own && own.submission; }"""
    )
    sent = page.evaluate("window.vipTable.state.hand.view.own.submission")
    assert [sent["chi1"], sent["chi2"], sent["chi3"]] == start
    page.wait_for_selector("[data-summary]:not([hidden])", timeout=60_000)
    lines = said(page)
    print(f"maubinh: {keys.count} keys ({keys.tabs} Tab)")
    print("said:", lines)
    assert keys.count <= MAUBINH_KEYS
    assert any(line.startswith("Đến lượt bạn: còn") for line in lines)
    assert any(line.startswith("Chi 3") for line in lines)
    assert any(line.startswith("Hết ván") for line in lines)


def test_a_whole_holdem_hand_by_keyboard_in_english(pages, site):
    page = pages.new(locale="en-GB")
    sign_up(page, site)
    page.goto(f"{site.url}/")
    switch_language(page, "en")
    keys = keyboard_table(page, site, "holdem")
    turns, seen = 0, 0
    while True:
        state = my_turn(page, seen)
        if state is None and not turns:
            seen = next_hand(page)  # everyone folded to my big blind
            continue
        if state is None:
            break
        turns += 1
        assert state["focus"] is not None, f"turn {turns}: focus on the body"
        legal = state["hand"]["view"]["legal"]
        keys.press("k" if legal.get("check") else "c" if legal.get("call") else "f")
        page.wait_for_function("(v) => window.vipTable.state.v > v", arg=state["v"])
        seen = page.evaluate("window.vipTable.state.v")
    page.wait_for_selector("[data-summary]:not([hidden])")
    lines = said(page)
    print(f"holdem: {keys.count} keys ({keys.tabs} Tab), {turns} turns")
    print("said:", lines)
    assert turns >= 1
    assert keys.count <= HOLDEM_KEYS
    assert any(line.startswith("Your turn:") for line in lines)
    assert any(line.startswith("Hand #") and "over" in line for line in lines)


def test_focus_comes_back_to_the_same_control_after_a_redraw(blank):
    page, errors = blank
    got = page.evaluate(
        """async () => {
          const { keepFocus } = await import("/static/js/access.js");
          const root = document.body.appendChild(document.createElement("div"));
          const draw = (disabled) => {
            root.replaceChildren();
            for (const action of ["play", "pass"]) {
              const b = root.appendChild(document.createElement("button"));
              b.dataset.action = action;
              b.disabled = disabled && action === "pass";
            }
            const mine = root.appendChild(document.createElement("div"));
            mine.dataset.mine = "";
            const b = mine.appendChild(document.createElement("button"));
            b.dataset.action = "clear";
          };
          draw(false);
          root.querySelector("[data-action=pass]").focus();
          const out = [];
          keepFocus(root, () => draw(false)); // the same button, drawn again
          out.push(document.activeElement.dataset.action);
          keepFocus(root, () => draw(true)); // now disabled: my bar's first control
          out.push(document.activeElement.dataset.action);
          return out;
        }"""
    )
    assert got == ["pass", "clear"]
    assert errors == []


def test_a_chop_and_a_pass_are_said(blank):
    page, errors = blank
    lines = page.evaluate(
        """async () => {
          const { TableShell } = await import("/static/js/table.js");
          const { LiveRegion } = await import("/static/js/access.js");
          const game = (await import("/static/js/games/tienlen.js")).default;
          const shell = Object.create(TableShell.prototype);
          shell.live = new LiveRegion();
          shell.toast = document.createElement("div");
          shell.eventLog = document.createElement("ol");
          const ctx = { shell, nameOf: (i) => ["An", "Bình"][i] };
          game.events(ctx, [
            { type: "passed", player: 1 },
            { type: "played", player: 0, combination: "three_pair_run",
              cards: ["3s", "3c", "4s", "4c", "5s", "5c"], chop: true },
          ]);
          return shell.live.said;
        }"""
    )
    assert lines == ["Bình passes", "An chops with 3 đôi thông!"]
    assert errors == []
