"""The table is a game screen at every size: 1366×768, 1280×720, 1920×1080 and a
360×740 phone upright and on its side (740×360).

One table per game, against bots: mid-hand and at the result the page is
resized to each size and checked: the page does not scroll, my cards, my
buttons, the Tiến Lên pile, every seat and every revealed Mậu Binh chi are
inside the viewport, my bar stays under the table, and nothing covers what it
must not (a toast and the top seat or the centre's cards, a seat and the centre: its heading, the
pile, the board; a seat and another, but on a phone on its side; the dealer
chip and its avatar); no emoji in the table's own
marks (none shows in Debian's Chromium). At the result, the result
card is opaque, in my bar, and over no card (mine, a seat's, the board); it
names the hand's own players, whoever sits in their seats now; in poker the
winning five are marked; it closes, and opening the table once it has moved
on shows no old result. The result is then checked again as it looks at its
biggest, whatever this deal brought (in Mậu Binh every opponent binh lủng,
auto-arranged or with an instant win, the longest chi names; in Tiến Lên
every opponent left with thirteen cards; in poker every seat all-in at the
showdown with two side pots). With ``E2E_SHOTS=1`` each size is photographed:
``tests/e2e/artifacts/screen-<game>-<phase>-<size>.png``; with
``SCREENSHOTS=<dir>`` the 1366×768 and 360×740 ones are also written there
under fixed names (``docs/screenshots``, docs/browser.md "Screenshots")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ..registry import browser_games
from .conftest import (
    next_hand_if_dealt_finished,
    open_bot_table,
    reopen,
    shot,
    sign_up,
    switch_language,
    table_state,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = {
    "1366x768": {"width": 1366, "height": 768},
    "1280x720": {"width": 1280, "height": 720},
    "1920x1080": {"width": 1920, "height": 1080},
    "360x740": {"width": 360, "height": 740},
    "740x360": {"width": 740, "height": 360},
}
CURATED = ("1366x768", "360x740")
LAPTOP, PHONE = SIZES["1366x768"], SIZES["360x740"]
TOAST = "Bình chặt heo bằng ba đôi thông!"

MY_TURN_OR_DONE = """() => {
  const s = window.vipTable && window.vipTable.state;
  if (!s || !s.hand) return false;
  if (s.hand.finished) return "done";
  return s.you !== null && s.actors.includes(s.you) ? "turn" : false;
}"""

# The result, held on the screen: from here the page takes no more messages
# (the next hand would replace it while the sizes are checked).
HOLD_THE_RESULT = """() => {
  const shell = window.vipTable;
  const s = shell.state;
  if (!s.hand || !s.hand.finished || !s.hand.result) return false;
  if (document.querySelector("[data-summary]").hidden) return false;
  shell.receive = () => {};
  return true;
}"""

# What is wrong with the screen as it stands, unscrolled; [] when nothing.
PROBLEMS = """() => {
  const problems = [];
  const d = document.documentElement;
  if (scrollY || d.scrollHeight > innerHeight || d.scrollWidth > innerWidth) {
    problems.push(`the page scrolls: ${d.scrollWidth}×${d.scrollHeight} in a ` +
      `${innerWidth}×${innerHeight} window`);
  }
  const box = (n) => n.getBoundingClientRect();
  const shown = (n) => n.offsetParent !== null && box(n).width > 0 && box(n).height > 0;
  const all = (selector) => [...document.querySelectorAll(selector)].filter(shown);
  const at = (n) => {
    const r = box(n);
    return [r.left, r.top, r.right, r.bottom].map(Math.round).join(",");
  };
  const name = (n) => n.dataset.action || n.dataset.card || n.dataset.drawerToggle
    || n.className || n.tagName;
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
    && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  // What a seat shows is its parts, not the box around them.
  const covers = (node, seat) => [...seat.children].filter(shown)
    .some((part) => meet(box(node), box(part)));
  const inside = [
    "[data-mine] .card", "[data-mine] button", "[data-mine] input", "[data-controls] button",
    "[data-controls] input", "[data-pile]", "[data-board]", ".seat > *", ".seat .mini-chi",
    "[data-drawer-toggle]", "[data-summary]",
  ];
  for (const n of all(inside.join(", "))) {
    const r = box(n);
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + .5 || r.right > innerWidth + .5) {
      problems.push(`${name(n)} is outside the viewport at ${at(n)}`);
    }
  }
  const felt = document.querySelector("[data-felt]");
  for (const bar of all("[data-mine] > *, [data-controls] > *, [data-summary]")) {
    if (meet(box(bar), box(felt))) problems.push(`${name(bar)} is on the table at ${at(bar)}`);
    for (const seat of all(".seat")) {
      if (covers(bar, seat)) problems.push(`${name(bar)} covers seat ${seat.dataset.seat}`);
    }
  }
  for (const toast of all("[data-flash]")) {
    for (const seat of all(".seat.top")) {
      if (covers(toast, seat)) problems.push(`a toast covers the top seat ${seat.dataset.seat}`);
    }
    for (const card of all("[data-center] .card")) {
      if (covers(toast, card)) problems.push(`a toast covers a card of the centre at ${at(card)}`);
    }
  }
  // Seats apart (a phone on its side has no room for four revealed Mậu Binh
  // hands: there the seats may touch).
  const seats = all("[data-felt] .seat");
  if (innerHeight > 500 || innerWidth < innerHeight) {
    for (const [i, a] of seats.entries()) {
      for (const b of seats.slice(i + 1)) {
        const part = [...a.children].filter(shown).find((p) => covers(p, b));
        if (part) {
          problems.push(`seat ${a.dataset.seat} and seat ${b.dataset.seat} meet ` +
            `(its ${name(part)} at ${at(part)})`);
        }
      }
    }
  }
  for (const centre of all("[data-center] .big, [data-pile], [data-board]")) {
    for (const seat of all(".seat")) {
      if (covers(centre, seat)) problems.push(`seat ${seat.dataset.seat} covers ${name(centre)}`);
    }
  }
  for (const result of all("[data-summary]")) {
    // The result card: read on an opaque card, over no card.
    const style = getComputedStyle(result);
    const rgba = style.backgroundColor.match(/[0-9.]+/g).map(Number);
    if ((rgba.length > 3 ? rgba[3] : 1) !== 1 || style.opacity !== "1") {
      problems.push(`the result card is see-through: ${style.backgroundColor}, ` +
        `opacity ${style.opacity}`);
    }
    const cards = "[data-felt] .card, [data-mine] .card, [data-board], [data-pile], .mini-chi";
    for (const card of all(cards)) {
      if (meet(box(result), box(card))) problems.push(`the result card covers ${name(card)}`);
    }
  }
  // The table's own marks are drawn, not emoji (Debian's Chromium has no emoji
  // font: an emoji is an empty box there); the chat's lines and picker aside.
  const app = document.querySelector("[data-table-app]");
  const walker = document.createTreeWalker(app, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const chat = text.parentNode.closest("[data-drawer=chat]");
    if (/[\\u{1F000}-\\u{1FAFF}]/u.test(text.data) && !chat) {
      problems.push(`an emoji in the table's own words: ${text.data}`);
    }
  }
  for (const chip of all(".dealer")) {
    // The avatar is a circle: the chip must not reach into it.
    const a = box(chip.closest(".avatar"));
    const c = box(chip);
    const [x, y] = [a.left + a.width / 2, a.top + a.height / 2];
    const dx = Math.min(Math.max(x, c.left), c.right) - x;
    const dy = Math.min(Math.max(y, c.top), c.bottom) - y;
    if (Math.hypot(dx, dy) < a.width / 2) problems.push(`the dealer chip is on its avatar`);
  }
  return problems;
}"""

# The biggest a Mậu Binh result can look, drawn from the hand's own state:
# every opponent (or the top seat's alone) with the given marks and the
# longest chi names.
MAUBINH_AT_MOST = """(marks) => {
  const shell = window.vipTable;
  const view = shell.state.hand.view;
  const top = [...document.querySelectorAll("[data-felt] .seat.top")]
    .map((n) => Number(n.dataset.seat));
  view.seats.forEach((seat, i) => {
    if (i === shell.state.you) return;
    const marked = !marks.top || top.includes(shell.state.hand.players[i].position);
    seat.hands = ["straight_flush", "straight_flush", "straight_flush"];
    seat.lung = marked && !!marks.lung;
    seat.instant = marked && marks.instant ? "three_straight_flushes" : null;
    seat.auto = marked && !!marks.auto;
  });
  shell.render();
}"""
MAUBINH_MARKS = {
    "lung": {"lung": 1},
    "auto": {"auto": 1},
    "instant": {"instant": 1},
    "top": {"instant": 1, "auto": 1, "top": 1},
}
# Tiến Lên: every opponent left with thirteen cards (one of them marked as
# the winner, one as gone), and the words about them at their longest: the
# winner went out with the longest last play (a twelve-card straight), and
# every opponent has the longest name a player may have (40 characters, one
# word), in the centre and in my result card's lines (what a real deal and
# its bots' names bring varies from run to run).
LONGEST_NAME = "Nguyễn" * 6 + "Thảo"
TIENLEN_AT_MOST = """(longest) => {
  const shell = window.vipTable;
  const hand = shell.state.hand;
  const view = hand.view;
  const thirteen = ["3s", "4c", "5d", "6h", "7s", "8c", "9d", "Th", "Js", "Qc", "Kd", "Ah", "2s"];
  const others = view.hands.map((_, i) => i).filter((i) => i !== shell.state.you);
  for (const i of others) {
    view.hands[i] = thirteen;
    hand.players[i].name = longest;
  }
  view.winner = others[0];
  view.left = view.left.map((_, i) => i === others[others.length - 1]);
  const straight = thirteen.slice(0, 12);
  view.instant = null;
  view.history = [...view.history,
    { round: view.round, action: "play", player: others[0], cards: straight }];
  view.table = { cards: straight, player: others[0], combination: "straight" };
  shell.render();
}"""
# Tiến Lên mid-hand: the longest pile there is (a twelve-card straight) by
# another player, a chop chain at stake and the last two players' passes.
TIENLEN_MID_AT_MOST = """() => {
  const shell = window.vipTable;
  const view = shell.state.hand.view;
  const others = shell.state.hand.players.map((_, i) => i).filter((i) => i !== shell.state.you);
  const straight = ["3s", "4c", "5d", "6h", "7s", "8c", "9d", "Th", "Js", "Qc", "Kd", "Ah"];
  view.table = { cards: straight, player: others[0], combination: "straight" };
  view.chain = { units: 24 };
  view.history = [...view.history,
    ...others.slice(1).map((player) => ({ round: view.round, action: "pass", player }))];
  shell.render();
}"""
# Poker mid-hand: the river dealt, a main pot and two side pots, every other
# player all-in with a bet in front of them.
HOLDEM_MID_AT_MOST = """() => {
  const shell = window.vipTable;
  const view = shell.state.hand.view;
  view.board = ["Ah", "Kd", "Qs", "Jc", "9h"];
  view.phase = "river";
  view.pots = [{ amount: 12000, winners: [] }, { amount: 8000, winners: [] },
    { amount: 4000, winners: [] }];
  view.pot = 24000;
  view.bets = view.bets.map(() => 40000);
  view.all_in = view.all_in.map((_, i) => i !== shell.state.you);
  view.folded = view.folded.map(() => false);
  shell.render();
}"""
# Poker: every seat shows two cards and is all-in, two side pots.
HOLDEM_AT_MOST = """() => {
  const shell = window.vipTable;
  const view = shell.state.hand.view;
  const cards = [["Ah", "Kh"], ["Qs", "Qd"], ["Jc", "Tc"], ["9s", "9h"]];
  view.shown = view.shown.map((shown, i) => shown || cards[i]);
  view.all_in = view.all_in.map(() => true);
  view.folded = view.folded.map(() => false);
  const best = ["Ks", "Kd", "Qh", "Qc", "Ah"];
  const hands = view.shown.map((_, player) => ({ player, category: "two_pair", best }));
  const ranked = { kind: "hands_ranked", hands };
  view.log = [...view.log.filter((r) => r.kind !== "hands_ranked"), ranked];
  view.pots = [{ amount: 1200, winners: [0], shares: [1200] },
    { amount: 800, winners: [1, 2], shares: [400, 400] },
    { amount: 400, winners: [3], shares: [400] }];
  shell.render();
}"""
# The most my Mậu Binh arranging area says at once: cards moved since I
# submitted, and maybe an instant win dealt to me.
MAUBINH_ARRANGING_AT_MOST = """(instant) => {
  const shell = window.vipTable;
  const own = shell.state.hand.view.own;
  const row = (n) => [...document.querySelectorAll(`[data-mine] [data-chi="${n}"] .card`)]
    .map((node) => node.dataset.card);
  own.instant = instant;
  own.submission = { chi1: row(1).reverse(), chi2: row(2), chi3: row(3) };
  shell.render();
}"""

# My stack lost to the last chip: I sit out with nothing at this table.
BROKE = """() => {
  const shell = window.vipTable;
  const mine = shell.state.table.seats.find((seat) => seat.position === shell.state.seat);
  Object.assign(mine, { chips: 0, sitting_out: true, ready: false });
  shell.render();
}"""

REMOVE_TOAST = """(text) => {
  for (const node of document.querySelectorAll("[data-flash]")) {
    if (node.textContent === text) node.remove();
  }
}"""
# The result card's lines once someone else sits in every other seat: [the
# player it is about, its words, its chips].
LINES_AFTER_NEW_NEIGHBOURS = """() => {
  const shell = window.vipTable;
  for (const seat of shell.state.table.seats) {
    if (seat.position !== shell.state.seat) seat.name = "Someone new";
  }
  shell.render();
  return [...document.querySelectorAll("[data-result-lines] li")].map((li) =>
    [Number(li.dataset.against), li.querySelector(".vs").textContent, Number(li.dataset.chips)]);
}"""
WINNING_CARDS = """() => [...new Set([...document.querySelectorAll(
  "[data-felt] .card.win, [data-mine] .card.win")].map((n) => n.dataset.card))].sort()"""
NEXT_FRAMES = (
    "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
)


def settle(page: Any) -> None:
    """Two animation frames: the layout has followed the last change."""
    page.evaluate(NEXT_FRAMES)


def chips_text(n: int) -> str:
    """Chips as the Vietnamese page writes them: +1.200 / -20 / 0."""
    return ("+" if n > 0 else "") + f"{n:,}".replace(",", ".")


def the_card_names_the_hands_players(page: Any) -> None:
    """My chips first, then what I won or lost against each opponent, by the
    names they were dealt in with, not by whoever sits in their seats now."""
    state = table_state(page)
    hand, me = state["hand"], state["you"]
    result = hand["result"]
    versus: dict[int, int] = {}
    for p in result["payments"]:
        if p["payee"] == me:
            versus[p["payer"]] = versus.get(p["payer"], 0) + p["amount"]
        if p["payer"] == me:
            versus[p["payee"]] = versus.get(p["payee"], 0) - p["amount"]
    moved = result["chips"][me] if result["chips"] else result["net"][me] * result["unit"]

    lines = page.evaluate(LINES_AFTER_NEW_NEIGHBOURS)

    assert page.text_content("[data-result-big] strong") == f"{chips_text(moved)} chip"
    assert lines == [
        [i, f"với {hand['players'][i]['name']}", n * result["unit"]]
        for i, n in sorted(versus.items())
        if n
    ]
    assert lines or result["net"][me] == 0


def the_winning_five_are_marked(page: Any) -> None:
    """The five cards of the main pot's winner (of each, on a split) are
    marked on the board and in the winners' cards; none without a showdown."""
    view = table_state(page)["hand"]["view"]
    shown = [hand for r in view["log"] if r["kind"] == "hands_ranked" for hand in r["hands"]]
    winners = set(view["pots"][0]["winners"])
    five = sorted({card for hand in shown if hand["player"] in winners for card in hand["best"]})
    assert page.evaluate(WINNING_CARDS) == five
    assert len(five) >= 5 or not shown


def no_old_result_on_opening(page: Any, site: Any) -> None:
    """The card closes; once the table has moved on, opening it again shows no
    old result."""
    page.click("[data-result-close]")
    assert page.locator("[data-summary]").is_hidden()
    old = table_state(page)["hand"]["id"]
    table = page.url.rstrip("/").rsplit("/", 1)[-1]
    api = f"{site.url}/api/v1/tables/{table}"
    for _ in range(120):
        if page.request.get(api).json()["table"]["status"] != "summary":
            break
        page.wait_for_timeout(250)
    again = reopen(page)
    if table_state(again)["hand"]["id"] != old and again.locator("[data-summary]").is_visible():
        # The next hand ended at its deal (a tới trắng, about one Tiến Lên deal
        # in thirty): its result is news, not the old one.
        assert table_state(again)["hand"]["finished"]
    else:
        assert again.locator("[data-summary]").is_hidden()
        assert again.locator("[data-summary] *").count() == 0
    again.close()


def check_the_biggest_results(page: Any, game: str, tag: str = "") -> None:
    """The result screen again, as the biggest results a hand can show."""
    if game == "maubinh":
        for name, marks in MAUBINH_MARKS.items():
            page.evaluate(MAUBINH_AT_MOST, marks)
            check_every_size(page, game, f"result-{name}{tag}")
    elif game == "holdem":
        page.evaluate(HOLDEM_AT_MOST)
        check_every_size(page, game, f"result-all-in{tag}")
        page.evaluate(BROKE)  # and I lost my last chip: the way back to play shows too
        assert page.locator("[data-action=buy-in-play]").count() == 1
        assert page.locator("[data-action=buy-in]").count() == 0  # one way to buy in, not two
        check_every_size(page, game, f"result-broke{tag}")
    else:
        page.evaluate(TIENLEN_AT_MOST, LONGEST_NAME)
        check_every_size(page, game, f"result-thirteen{tag}")


def check_every_size(page: Any, game: str, phase: str) -> None:
    found = {}
    if phase.startswith("result"):  # as it stays once the toasts and the win banner have gone
        page.evaluate(
            "() => document.querySelectorAll('[data-flash], [data-win-banner]')"
            ".forEach((n) => n.remove())"
        )
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.evaluate("(text) => window.vipTable.flash(text, 'big')", TOAST)
        settle(page)
        found[size] = page.evaluate(PROBLEMS)
        page.evaluate(REMOVE_TOAST, TOAST)
        shot(page, f"screen-{game}-{phase}-{size}")
        curated = os.environ.get("SCREENSHOTS")
        if curated and size in CURATED and phase in ("mid", "result"):
            Path(curated).mkdir(parents=True, exist_ok=True)
            page.screenshot(
                path=str(Path(curated) / f"{game}-{phase}-{size}.jpg"), type="jpeg", quality=80
            )
    page.set_viewport_size(LAPTOP)
    assert {size: problems for size, problems in found.items() if problems} == {}


def play_one_move(page: Any, game: str) -> None:
    version = table_state(page)["v"]
    if game == "tienlen":
        if page.is_enabled("[data-action=pass]"):
            page.click("[data-action=pass]")
        else:
            page.click("[data-my-hand] .card.playable >> nth=0")
            page.click("[data-action=play]")
    else:
        can_check = page.locator("[data-action=check]").count()
        page.click("[data-action=check]" if can_check else "[data-action=call]")
    page.wait_for_function(f"() => window.vipTable.state.v > {version}")


def mid_hand(page: Any, game: str) -> bool:
    """The screen to check in the middle of a hand: arranging, or my turn (in
    Tiến Lên with cards on the table). False once the hand is over."""
    if game == "maubinh":
        page.wait_for_selector("[data-action=submit]")
        return True
    while page.wait_for_function(MY_TURN_OR_DONE, timeout=30_000).json_value() == "turn":
        if game == "holdem" or page.locator("[data-pile]").count():
            return True
        play_one_move(page, game)
    return False


def drawers_are_drawers(page: Any) -> None:
    """Chat, fairness and the event log: open beside the table on a laptop (chat
    at first), closed over the table on a phone; a button opens each; the
    choice is remembered on the device."""
    assert page.is_visible("[data-drawer=chat] [data-chat-input]")
    assert not page.is_visible("[data-fair-panel] [data-next-commitment]")
    page.click("[data-drawer-toggle=chat]")
    assert not page.is_visible("[data-chat-input]")
    page.reload()
    page.wait_for_selector("[data-table-app] .seat.you")
    assert not page.is_visible("[data-chat-input]")
    page.set_viewport_size(PHONE)
    assert not page.is_visible("[data-chat-input]")
    page.click("[data-drawer-toggle=fairness]")
    page.wait_for_selector("[data-fair-panel] [data-next-commitment]")
    assert page.get_attribute("[data-drawer-toggle=fairness]", "aria-expanded") == "true"
    page.click("[data-drawer-toggle=chat]")  # one drawer at a time over the table
    page.wait_for_selector("[data-chat-input]")
    assert not page.is_visible("[data-fair-panel] [data-next-commitment]")
    assert page.evaluate(PROBLEMS) == []
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-chat-input]", state="hidden")
    page.set_viewport_size(LAPTOP)
    page.click("[data-drawer-toggle=chat]")
    page.wait_for_selector("[data-chat-input]")


@pytest.mark.parametrize("language", ["vi", "en"])
@pytest.mark.parametrize("game", browser_games())
def test_the_game_screen_fits_every_size(pages, site, game, language):
    """In both languages (English words are often longer); the words on the
    result card are checked in Vietnamese."""
    tag = "" if language == "vi" else f"-{language}"  # (the screenshots' names)
    page = pages.new(viewport=LAPTOP)
    page.emulate_media(reduced_motion="reduce")  # no drawer sliding while photographed
    sign_up(page, site)
    if language != "vi":
        switch_language(page, language)
    open_bot_table(page, site, game)
    if game == "tienlen":
        drawers_are_drawers(page)
    page.click("[data-action=ready]")
    while not mid_hand(page, game):  # the hand ended first (tới trắng at the deal)
        next_hand_if_dealt_finished(page)  # auto-ready (on with bots) deals the next one
    check_every_size(page, game, f"mid{tag}")
    if game == "tienlen":  # the longest pile, a chop chain and two passes
        page.evaluate(TIENLEN_MID_AT_MOST)
        check_every_size(page, game, f"mid-longest{tag}")
        page.reload()  # (back to the hand as it is)
        page.wait_for_selector("[data-table-app] [data-pile]")
    if game == "holdem":  # the river, two side pots, every other seat all-in with a bet
        page.evaluate(HOLDEM_MID_AT_MOST)
        check_every_size(page, game, f"mid-side-pots{tag}")
        page.reload()  # (back to the hand as it is)
        page.wait_for_selector("[data-table-app] [data-board]")
    if game == "maubinh":
        for instant in (None, "six_pairs"):
            page.evaluate(MAUBINH_ARRANGING_AT_MOST, instant)
            check_every_size(page, game, f"mid-{instant or 'moved'}{tag}")
        page.click("[data-action=submit]")
    else:
        while page.wait_for_function(MY_TURN_OR_DONE, timeout=30_000).json_value() == "turn":
            play_one_move(page, game)
    page.wait_for_function(HOLD_THE_RESULT)
    check_every_size(page, game, f"result{tag}")
    if language == "vi":
        the_card_names_the_hands_players(page)
    if game == "holdem":
        the_winning_five_are_marked(page)
    check_the_biggest_results(page, game, tag)
    no_old_result_on_opening(page, site)
