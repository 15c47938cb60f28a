"""Issue 32 item 4, "fits every hand and screen", and the clock part of item 2.

On a 390×844 phone every interactive element of each game's table (mid-hand,
my buttons shown), of the lobby and of the header is at least 44×44 px (the
cards of my hand, which overlap as thirteen must on a phone, at least
WCAG 2.5.8's 24 px of their visible part), and so at 360×740, 844×390 and
740×360 mid-hand and with each game's fullest result, where no seat meets
another seat or a control either; no seat badge is cut at any size checked;
All-in asks first; a ten stays "10" in overlapping small cards; the lobby's
names are never cut; at 1920×1080 the seats and my cards grow with the felt
and my cards stay near my seat, by factors computed in JS (no stylesheet
divides a length by a length, which only Chromium does); the replay's
thirteen cards fit 390 px (tests/e2e/test_replay.py); and while the browser
is offline the turn clock stops claiming a turn and a move is refused
visibly.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ..registry import browser_games
from .conftest import (
    ROOT,
    in_a_thread,
    next_hand_if_dealt_finished,
    open_bot_table,
    shot,
    sign_up,
    table_state,
)
from .test_screen import (
    HOLD_THE_RESULT,
    HOLDEM_AT_MOST,
    LONGEST_NAME,
    MAUBINH_AT_MOST,
    MAUBINH_MARKS,
    MY_TURN_OR_DONE,
    TIENLEN_AT_MOST,
    mid_hand,
    play_one_move,
    settle,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
# A short phone, and phones on their side.
SMALL_PHONES = {
    "360x740": {"width": 360, "height": 740},
    "844x390": {"width": 844, "height": 390},
    "740x360": {"width": 740, "height": 360},
}
BIG = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1366, "height": 768}
TAP = 44  # px, each way
CARD_TAP = 24  # px: WCAG 2.5.8's minimum, for the overlapping cards of my hand

# Every interactive element shown, with its box: [what, width, height, is a card].
TARGETS = """() => {
  const selector = "a[href], button, input:not([type=hidden]), select, textarea, summary, "
    + "label:has(> input), "
    + "[role=button], [tabindex]:not([tabindex='-1']), .mine .card, .arrange .card";
  const out = [];
  for (const node of document.querySelectorAll(selector)) {
    if (node.closest("[hidden], .side, [data-confirm]")) continue;  // (closed drawers, no dialog)
    if (node.matches(".arrange.shown .card")) continue;  // (my revealed chi: shown, not tapped)
    const style = getComputedStyle(node);
    if (style.visibility === "hidden" || node.getClientRects().length === 0) continue;
    const r = node.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    // A label's own input is measured as the label (tapping either works).
    if (node.matches("input") && node.closest("label")) continue;
    const card = node.matches(".card");
    let width = r.width;
    if (card) {  // the visible part: up to the next card of its row
      const next = node.nextElementSibling;
      if (next && next.matches(".card")) {
        width = Math.min(width, next.getBoundingClientRect().left - r.left);
      }
    }
    const name = node.dataset.action || node.dataset.card || node.dataset.drawerToggle
      || node.getAttribute("aria-label") || (node.textContent || "").trim().slice(0, 24)
      || node.getAttribute("name") || node.tagName;
    out.push([`${node.tagName.toLowerCase()} ${name}`, Math.round(width * 10) / 10,
      Math.round(r.height * 10) / 10, card]);
  }
  return out;
}"""


# Every animation that ends (the deal's, a chip's), ended: a card arriving is
# drawn scaled down on its way (the rings' endless ones are left running).
ANIMATIONS_DONE = """() => Promise.all(document.getAnimations()
  .filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
  .map((a) => a.finished.catch(() => null)))"""


def too_small(page: Any, where: str) -> list[str]:
    """The targets under the minimum; prints the smallest of them all."""
    targets = page.evaluate(TARGETS)
    assert targets, where
    smallest = min(targets, key=lambda t: min(t[1], t[2]))
    name, width, height = smallest[:3]
    print(f"{where}: {len(targets)} targets, the smallest {name!r} {width}×{height}")
    small = []
    for name, width, height, card in targets:
        least = CARD_TAP if card else TAP
        if width < least - 0.5 or height < TAP - 0.5:
            small.append(f"{where}: {name} {width}×{height}")
    return small


@pytest.mark.parametrize("game", browser_games())
def test_every_tap_target_on_a_phone_is_44_px(pages, site, game):
    """Each game's table mid-hand with my buttons shown, the header, and the
    lobby, at 390×844."""
    page = pages.new(viewport=PHONE)
    sign_up(page, site)
    found = too_small(page, "home")
    page.goto(f"{site.url}/tables/?game={game}")
    page.wait_for_selector(f"[data-play-now={game}]")
    found += too_small(page, "lobby")
    header = page.locator(".site-header").bounding_box()
    print(f"header {header['height']} px high")
    open_bot_table(page, site, game)
    found += too_small(page, "seated")
    page.click("[data-action=ready]")
    while not mid_hand(page, game):
        next_hand_if_dealt_finished(page)
    if game == "holdem":
        page.wait_for_selector("[data-action=fold]")
    settle(page)
    page.evaluate(ANIMATIONS_DONE)  # (the deal's cards arrive scaled down)
    shot(page, f"fit-{game}-phone")
    found += too_small(page, "mid-hand")
    assert found == [], "\n".join(found)
    # The header is one or two rows on a phone, not four.
    assert header["height"] <= 2 * TAP + 24


# Seats that meet: a part of one seat (its avatar, plate, badges, cards, marks)
# on a part of another, or on a tap target of my bar or the status line.
SEATS_MEET = """() => {
  const box = (n) => n.getBoundingClientRect();
  const shown = (n) => n.offsetParent !== null && box(n).width > 0 && box(n).height > 0;
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
    && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const parts = (seat) => [...seat.children].filter(shown);
  const name = (n) => `${n.dataset.action || n.dataset.card || n.className || n.tagName} at `
    + [box(n).left, box(n).top, box(n).right, box(n).bottom].map(Math.round).join(",");
  const seats = [...document.querySelectorAll("[data-felt] .seat")].filter(shown);
  const out = [];
  seats.forEach((a, i) => {
    for (const b of seats.slice(i + 1)) {
      for (const p of parts(a)) {
        const q = parts(b).find((q) => meet(box(p), box(q)));
        if (q) out.push(`seat ${a.dataset.seat}'s ${name(p)} meets seat ${b.dataset.seat}'s `
          + name(q));
      }
    }
  });
  const controls = [...document.querySelectorAll(
    "[data-mine] :is(button, input, .card), [data-controls] :is(button, input), "
    + "[data-summary] :is(button, summary), [data-drawer-toggle], .table-rules a")].filter(shown);
  for (const seat of seats) {
    for (const p of parts(seat)) {
      const c = controls.find((c) => meet(box(p), box(c)));
      if (c) out.push(`seat ${seat.dataset.seat}'s ${name(p)} meets ${name(c)}`);
    }
  }
  return out;
}"""


def small_phone_problems(page: Any, game: str, phase: str) -> list[str]:
    """At each short or sideways phone size: the targets under 44 px, the seats
    that meet, the badges cut."""
    found = []
    for size, viewport in SMALL_PHONES.items():
        page.set_viewport_size(viewport)
        settle(page)
        page.evaluate(ANIMATIONS_DONE)
        shot(page, f"fit-{game}-{phase}-{size}")
        where = f"{phase} {size}"
        found += too_small(page, where)
        found += [f"{where}: {problem}" for problem in page.evaluate(SEATS_MEET)]
        found += [f"{where}: badge {text!r} cut" for text, cut in page.evaluate(BADGES_CUT) if cut]
    return found


@pytest.mark.parametrize("game", browser_games())
def test_short_and_sideways_phones_keep_44_px(pages, site, game):
    """At 360×740, 844×390 and 740×360, mid-hand and with the fullest result
    showing, every tap target is 44×44 px (my overlapping cards 24 px wide),
    no seat meets another or a control, and no badge is cut."""
    page = pages.new(viewport=SMALL_PHONES["360x740"])
    page.emulate_media(reduced_motion="reduce")
    sign_up(page, site)
    open_bot_table(page, site, game)
    page.click("[data-action=ready]")
    while not mid_hand(page, game):
        next_hand_if_dealt_finished(page)
    if game == "holdem":
        page.wait_for_selector("[data-action=fold]")
    page.evaluate(
        "() => { window.vipTable.held = window.vipTable.receive;"
        " window.vipTable.receive = () => {}; }"
    )  # (held as it is)
    found = small_phone_problems(page, game, "mid")
    page.evaluate("() => { window.vipTable.receive = window.vipTable.held; }")
    page.reload()
    page.wait_for_function(
        "() => window.vipTable && window.vipTable.state && window.vipTable.state.hand"
    )
    if game == "maubinh":
        page.click("[data-action=submit]")
    else:
        while page.wait_for_function(MY_TURN_OR_DONE, timeout=30_000).json_value() == "turn":
            play_one_move(page, game)
    page.wait_for_function(HOLD_THE_RESULT, timeout=30_000)
    page.evaluate(
        "() => document.querySelectorAll('[data-flash], [data-win-banner]')"
        ".forEach((n) => n.remove())"
    )
    if game == "maubinh":
        for name, marks in MAUBINH_MARKS.items():
            page.evaluate(MAUBINH_AT_MOST, marks)
            found += small_phone_problems(page, game, f"result-{name}")
    else:
        if game == "holdem":
            page.evaluate(HOLDEM_AT_MOST)
        else:
            page.evaluate(TIENLEN_AT_MOST, LONGEST_NAME)
        found += small_phone_problems(page, game, "result")
    assert found == [], "\n".join(found)


def test_all_in_asks_first(pages, site):
    """All-in beside Check is one slip away: the page asks, "no" sends nothing,
    "yes" goes all-in."""
    page = pages.new(viewport=PHONE)
    sign_up(page, site)
    open_bot_table(page, site, "holdem")
    page.click("[data-action=ready]")
    while True:
        page.wait_for_function(MY_TURN_OR_DONE, timeout=30_000)
        if page.locator("[data-action=all-in]").count():
            break
        next_hand_if_dealt_finished(page)
    version = table_state(page)["v"]
    page.click("[data-action=all-in]")
    page.wait_for_selector("[data-confirm]:not([hidden])")
    assert "All-in" in page.text_content("[data-confirm]")
    page.click("[data-confirm-no]")
    assert page.locator("[data-confirm]").is_hidden()
    page.wait_for_timeout(500)
    state = table_state(page)
    assert state["you"] in state["actors"]  # still my turn: nothing was sent
    assert state["hand"]["view"]["all_in"][state["you"]] is False
    page.click("[data-action=all-in]")
    page.click("[data-confirm-yes]")
    page.wait_for_function(
        "() => { const s = window.vipTable.state;"
        " return s.hand.finished || s.hand.view.all_in[s.you]; }"
    )
    assert table_state(page)["v"] > version


# Overlapping small cards with a ten among them, each row as the game draws it,
# put on a seat of the felt: [card, its rank's right edge, the next card's left].
TENS = """async () => {
  const { cardRow } = await import("/static/js/cards.js");
  const seat = document.querySelector("[data-felt] .seat:not(.you) .seat-game")
    || document.querySelector("[data-felt] .seat:not(.you)");
  const rows = [
    cardRow(["Ts", "Th", "Tc", "Td", "9s", "Ts"], { small: true, fan: true }),
    cardRow(["Ts", "Th", "Tc", "Td", "9s"], { small: true }),
  ];
  const box = document.createElement("div");
  box.className = "mini-chi";
  box.append(rows[1]);
  seat.append(rows[0], box);
  const out = [];
  for (const row of rows) {
    const cards = [...row.querySelectorAll(".card")];
    cards.slice(0, -1).forEach((card, i) => {
      const rank = card.querySelector(".r").getBoundingClientRect();
      const next = cards[i + 1].getBoundingClientRect();
      // (a card on a row of its own, below, covers nothing of it)
      if (next.top >= rank.bottom) return;
      const at = (x) => Math.round(x * 10) / 10;
      out.push([card.dataset.card, at(rank.right), at(next.left)]);
    });
  }
  rows[0].remove();
  box.remove();
  return out;
}"""


def test_a_ten_stays_whole_in_overlapping_small_cards(pages, site):
    page = pages.new(viewport=PHONE)
    sign_up(page, site)
    open_bot_table(page, site, "tienlen")
    cut = {}
    for size in (PHONE, LAPTOP, BIG, {"width": 740, "height": 360}):
        page.set_viewport_size(size)
        settle(page)
        rows = page.evaluate(TENS)
        assert rows
        cut[size["width"]] = [row for row in rows if row[1] > row[2] + 0.5]
    assert {width: rows for width, rows in cut.items() if rows} == {}


def open_table_with_free_seats(username: str) -> None:
    """A four-seat Tiến Lên table of mine, three seats free: its lobby card says
    "Ghế trống" (free seat) three times, beside my name."""
    from accounts.models import User
    from games import services

    user = User.objects.get(username=username)
    table = services.table_create(owner=user, game="tienlen", stake=50, seat_count=4)
    services.table_sit(table_id=table.pk, user=user)


# Each name of the lobby's cards and of the table's seats, and whether it is
# cut (its text wider than its box, or an ellipsis).
NAMES_CUT = """(selector) => [...document.querySelectorAll(selector)].filter((n) => n.offsetParent)
  .map((n) => [n.textContent,
    n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1])"""


# Each badge shown on a seat, and whether it is cut (its text wider or taller
# than its box, an ellipsis drawn, or its box outside what shows it).
BADGES_CUT = """() => [...document.querySelectorAll("[data-felt] .seat .badge")]
  .filter((n) => n.offsetParent && n.textContent.trim())
  .map((n) => {
    const r = n.getBoundingClientRect();
    let clipped = r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5
      || r.bottom > innerHeight + 0.5;
    for (let p = n.parentElement; p && !clipped; p = p.parentElement) {
      if (getComputedStyle(p).overflow === "visible") continue;
      const q = p.getBoundingClientRect();
      clipped = r.left < q.left - 0.5 || r.right > q.right + 0.5 || r.top < q.top - 0.5
        || r.bottom > q.bottom + 0.5;
    }
    return [n.textContent, clipped || n.textContent.trim().endsWith("…")
      || getComputedStyle(n).textOverflow === "ellipsis"
      || n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1];
  })"""


def test_names_are_never_cut(pages, site):
    """At 390×844 the lobby's cards show each name whole (wrapped); a seat
    shows it whole or abbreviated by rule (static/js/names.js), the full name
    in its title (and a tap on it opens the player's card)."""
    page = pages.new(viewport=PHONE)
    username = sign_up(page, site, display_name="Nguyễn Hoàng Thành Long")
    open_bot_table(page, site, "tienlen")
    seats = page.evaluate(NAMES_CUT, "[data-felt] .plate .name")
    mine = page.evaluate(
        """() => { const n = document.querySelector("[data-felt] .seat.you .plate .name");
          return [n.textContent, n.title, n.dataset.short || null]; }"""
    )
    in_a_thread(lambda: open_table_with_free_seats(username))
    page.goto(f"{site.url}/tables/?game=tienlen")
    page.wait_for_selector("[data-table-row] .sitter-name")
    lobby = page.evaluate(NAMES_CUT, ".sitter-name")
    shot(page, "fit-lobby-phone")
    assert "Ghế trống" in [name for name, _ in lobby]
    assert "Nguyễn Hoàng Thành Long" in [name for name, _ in lobby]
    assert [name for name, cut in lobby if cut] == []
    assert len(seats) == 4
    assert [name for name, cut in seats if cut] == []
    # mine, too long for a phone's plate, abbreviated by rule, whole in its title
    # (its text whole, drawn short)
    full = "Nguyễn Hoàng Thành Long"
    assert mine in ([full, full, "N. H. T. Long"], [full, full, "N.H.T. Long"])


def test_seat_badges_are_never_cut(pages, site):
    """While Mậu Binh's opponents arrange, their badges ("Đang xếp", "Đã xếp",
    a bot's mark) show whole on their seats at every size checked: no
    ellipsis, no text past its badge, no badge past what shows it."""
    page = pages.new(viewport=PHONE)
    page.emulate_media(reduced_motion="reduce")
    sign_up(page, site)
    open_bot_table(page, site, "maubinh")
    page.click("[data-action=ready]")
    mid_hand(page, "maubinh")
    page.evaluate("() => { window.vipTable.receive = () => {}; }")  # (held as it is)
    cut = {}
    sizes = [PHONE, LAPTOP, BIG, *SMALL_PHONES.values()]
    for size in sizes:
        page.set_viewport_size(size)
        settle(page)
        badges = page.evaluate(BADGES_CUT)
        assert len(badges) >= 3, badges  # (each opponent's, at least)
        cut[f"{size['width']}x{size['height']}"] = [text for text, is_cut in badges if is_cut]
    assert {size: texts for size, texts in cut.items() if texts} == {}


# Where my cards and my seat are, and how big the felt, my seat and a card are.
MEASURE = """() => {
  const box = (s) => document.querySelector(s).getBoundingClientRect();
  const felt = box("[data-felt]");
  const seat = box("[data-felt] .seat.you .avatar");
  const mine = box("[data-mine] .card");
  const cards = [...document.querySelectorAll("[data-mine] .card")]
    .map((n) => n.getBoundingClientRect());
  const left = Math.min(...cards.map((r) => r.left));
  const right = Math.max(...cards.map((r) => r.right));
  const node = document.querySelector("[data-felt]");
  const k = getComputedStyle(node).getPropertyValue("--felt-k").trim();
  const zoom = getComputedStyle(document.querySelector("[data-felt] .seat")).zoom;
  return { felt: felt.width, avatar: seat.width, card: mine.width, k, zoom,
    width: parseFloat(getComputedStyle(node).width),
    apart: Math.hypot((left + right) / 2 - (seat.left + seat.right) / 2, mine.top - seat.bottom) };
}"""


@pytest.mark.parametrize("game", browser_games())
def test_the_table_scales_as_a_whole(pages, site, game):
    """From 1366×768 to 1920×1080 and 2560×1440 the seats and my cards grow with
    the felt, and my cards stay near my seat, not 500 px off."""
    page = pages.new(viewport=LAPTOP)
    page.emulate_media(reduced_motion="reduce")  # (no card in flight while measured)
    sign_up(page, site)
    open_bot_table(page, site, game)
    page.click("[data-action=ready]")
    while not mid_hand(page, game):
        next_hand_if_dealt_finished(page)
    page.evaluate("() => { window.vipTable.receive = () => {}; }")  # (held as it is)
    found = {}
    for size in (LAPTOP, BIG, {"width": 2560, "height": 1440}):
        page.set_viewport_size(size)
        settle(page)
        found[size["width"]] = page.evaluate(MEASURE)
        shot(page, f"fit-{game}-{size['width']}")
    print(found)
    small, big, huge = found[1366], found[1920], found[2560]
    for larger in (big, huge):
        grow = larger["felt"] / small["felt"]
        assert larger["avatar"] / small["avatar"] > 0.8 * grow
        assert larger["card"] / small["card"] > 0.8 * grow
        # my cards' middle within a fifth of the felt's width of my seat
        assert larger["apart"] < larger["felt"] / 5
        # the factor is the felt's width over 1000 px, a plain number that
        # static/js/screen.js computes (no typed arithmetic), and the seats use it
        assert float(larger["k"]) == pytest.approx(larger["width"] / 1000, abs=0.002)
        assert float(larger["zoom"]) == pytest.approx(float(larger["k"]), abs=0.002)
    assert float(small["zoom"]) == 1  # (a laptop's table as it is)


# A length divided by a length (or by a number with a unit) inside calc(),
# min(), max() or clamp(): typed arithmetic, which only Chromium does.
TYPED_DIVISION = re.compile(r"/\s*-?[\d.]+(?:px|r?em|vw|vh|dvh|svh|cq[whib]|cqmin|cqmax)\b")
MATH = re.compile(r"\b(?:calc|min|max|clamp)\(")


def test_no_stylesheet_divides_by_a_length():
    """Every current browser reads the stylesheets alike: no value divides by
    a length (the big screens' factors are computed by static/js/screen.js)."""
    found = []
    for path in sorted((ROOT / "static" / "css").glob("*.css")):
        text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
        for declaration in re.split(r"[;{}]", text):
            if MATH.search(declaration) and TYPED_DIVISION.search(declaration):
                found.append(f"{path.name}: {' '.join(declaration.split())}")
    assert found == []


def test_the_clock_stops_claiming_a_turn_while_offline(pages, site):
    """Offline, the banner shows at once, the turn clock says it does not know
    (no seconds counting, no "Your turn!"), and a move is refused visibly; back
    online it counts again."""
    page = pages.new(viewport=PHONE)
    sign_up(page, site)
    open_bot_table(page, site, "holdem")
    page.click("[data-action=ready]")
    while page.wait_for_function(MY_TURN_OR_DONE, timeout=30_000).json_value() != "turn":
        next_hand_if_dealt_finished(page)
    clock = page.text_content("[data-clock-text]")
    assert clock
    assert clock.endswith(" s")
    page.context.set_offline(True)
    page.wait_for_selector("[data-banner]:not([hidden])", timeout=2000)
    page.wait_for_selector("[data-table-app].disconnected", timeout=2000)
    paused = page.text_content("[data-clock-text]")
    assert paused
    assert not paused.endswith(" s")
    assert page.locator("[data-your-turn]").is_hidden()
    page.wait_for_timeout(1200)
    assert page.text_content("[data-clock-text]") == paused  # not counting
    rings = page.evaluate(
        "() => [...document.querySelectorAll('[data-felt] [data-ring]')]"
        ".map((n) => getComputedStyle(n).visibility)"
    )
    assert "visible" not in rings
    page.click("[data-action=fold]", force=True)
    page.wait_for_selector("[data-flash=error]")
    assert page.text_content("[data-flash=error]") == "Chưa kết nối."
    page.context.set_offline(False)
    page.wait_for_selector("[data-banner]", state="hidden", timeout=20_000)
    page.wait_for_selector("[data-table-app]:not(.disconnected)")
    state = table_state(page)
    assert not state["hand"]["view"]["folded"][state["you"]] or state["hand"]["finished"]
    # (Chromium's own complaint of each socket opened while offline)
    pages.errors[:] = [e for e in pages.errors if "ERR_INTERNET_DISCONNECTED" not in e]
