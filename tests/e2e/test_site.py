"""Accounts, the wallet and history pages, languages, escaping and the phone layout."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from games.rules import fairness
from games.rules.maubinh.rules import DEFAULT_PRESET, PRESETS

from ..registry import browser_games
from .conftest import (
    PHONE,
    leave_now,
    next_hand_if_dealt_finished,
    open_bot_table,
    shot,
    sign_up,
    switch_language,
    table_state,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# docs/fairness.md, "Worked example".
WORKED_EXAMPLE_DECK = " ".join(
    (
        "Qd 9c 4c As Ks Jd 3s 2d 6d Th 5d Ah 2h Js Jc 3d 9h 3h 7d 4s Ad Qh Jh 7h 5s 7s",
        "Qc Ac 8h 6c 2s Qs 9d 7c Kc 4d 8d 8c Td 5h 3c 9s Tc Kh 6h 5c Ts 6s 4h 8s 2c Kd",
    )
).split(" ")


def no_horizontal_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width}px wide"


def test_sign_up_and_claim_the_daily_bonus(pages, site):
    page = pages.new()
    sign_up(page, site)
    assert page.text_content("[data-balance-value]").strip() == "10.000"
    page.click("[data-balance]")
    page.click("[data-claim-bonus]")
    page.wait_for_selector(".messages li.success")
    assert page.text_content("[data-wallet-balance]").strip() == "12.000"
    assert page.text_content("[data-balance-value]").strip() == "12.000"
    assert page.is_disabled("[data-claim-bonus]")
    assert "Đã nhận thưởng hằng ngày" in page.text_content(".messages")


def test_the_javascript_verifier_recomputes_decks_like_the_server(pages, site):
    page = pages.new()
    page.goto(f"{site.url}/tables/")
    verify = """async ([seed, handId, seeds]) => {
      const f = await import("/static/js/fairness.js");
      return { deck: await f.deck(seed, handId, seeds), commitment: await f.commitmentOf(seed) };
    }"""
    seed = bytes(range(32)).hex()
    example = page.evaluate(verify, [seed, "table-7/hand-42", ["alice", "bob", "Thảo"]])
    assert example["deck"] == WORKED_EXAMPLE_DECK
    assert example["commitment"] == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    )
    for n in range(5):
        raw = secrets.token_bytes(32)
        seeds = [secrets.token_hex(n), "Thảo 🎴", ""][: n % 4]
        got = page.evaluate(verify, [raw.hex(), f"{n}-{n + 1}", seeds])
        expected = fairness.deal_deck(raw, f"{n}-{n + 1}", seeds)
        assert got["deck"] == [fairness_card(c) for c in expected]
        assert got["commitment"] == fairness.commitment(raw)


CASES = Path(__file__).resolve().parent.parent / "rules" / "maubinh" / "cases.json"


def test_the_browser_ports_agree_with_the_rules(pages, site):
    """static/js/chi.js against every chi comparison and binh lủng case of the
    rules' case file, each with its preset's flags; static/js/poker.js names a
    poker hand with its ranks and kicker."""
    page = pages.new()
    page.goto(f"{site.url}/tables/")
    cases = json.loads(CASES.read_text())
    flags = {
        name: {"four_aces_top": r.four_aces_top, "straight_flush_order": r.straight_flush_order}
        for name, r in PRESETS.items()
    }
    compare = [
        [c["a"], c["b"], flags[c.get("preset") or DEFAULT_PRESET], c["result"]]
        for c in cases["compare"]
    ]
    lung = [
        [c["chi1"], c["chi2"], c["chi3"], flags[c.get("preset") or DEFAULT_PRESET], c["lung"]]
        for c in cases["lung"]
    ]
    wrong = page.evaluate(
        """async ([compare, lung]) => {
          const chi = await import("/static/js/chi.js");
          const wrong = [];
          for (const [a, b, rules, want] of compare) {
            const got = chi.compare(a, b, rules);
            if (got !== want) wrong.push(["compare", a, b, got, want]);
          }
          for (const [c1, c2, c3, rules, want] of lung) {
            const got = chi.lung(c1, c2, c3, rules) !== null;
            if (got !== want) wrong.push(["lung", c1, c2, c3, got, want]);
          }
          return wrong;
        }""",
        [compare, lung],
    )
    assert len(compare) > 40
    assert len(lung) > 10
    assert wrong == []
    names = page.evaluate(
        """async (hands) => {
          const poker = await import("/static/js/poker.js");
          return hands.map(([category, best]) => poker.handName(category, best));
        }""",
        [
            ["pair", ["Kh", "Kd", "Ac", "7s", "2d"]],
            ["two_pair", ["Kh", "Kd", "9c", "9s", "Ad"]],
            ["flush", ["Ah", "Jh", "9h", "5h", "3h"]],
            ["straight", ["5d", "4c", "3h", "2s", "Ad"]],
            ["full_house", ["7h", "7d", "7c", "9s", "9d"]],
            ["high_card", ["Ah", "Td", "9c", "5s", "3d"]],
        ],
    )
    assert names == [
        "Đôi K, kicker A",
        "Thú K và 9, kicker A",
        "Thùng, A cao",
        "Sảnh, 5 cao",
        "Cù lũ 7, đôi 9",
        "Mậu thầu A, kicker 10",
    ]


def fairness_card(code: int) -> str:
    return "23456789TJQKA"[code // 4] + "scdh"[code % 4]


def test_script_in_a_display_name_and_in_chat_shows_as_text(pages, site):
    page = pages.new()
    name = "<script>window.pwned=1</script>Lan"
    sign_up(page, site, display_name=name)
    open_bot_table(page, site, "tienlen")
    assert page.text_content(".seat.you [data-seat-name]") == name
    message = "<img src=x onerror=window.pwned=2><b>chào</b>"
    page.fill("[data-chat-input]", message)
    page.click("[data-chat-send]")
    line = page.wait_for_selector("[data-chat-log] li .text")
    assert line.text_content() == message
    assert page.locator("[data-chat-log] li").last.locator(".who").text_content() == name
    assert page.locator("[data-chat-log] img, [data-chat-log] b, .seat script").count() == 0
    assert page.evaluate("window.pwned") is None
    # The chat history rendered into the page on a reload is text too.
    page.reload()
    page.wait_for_selector("[data-chat-log] li .text")
    assert page.locator("[data-chat-log] li .text").last.text_content() == message
    assert page.evaluate("window.pwned") is None
    assert page.text_content(".site-header .who") == name


def test_english_switch_keeps_game_terms_vietnamese(pages, site):
    page = pages.new()
    sign_up(page, site)
    open_bot_table(page, site, "maubinh")
    assert page.text_content("[data-action=ready]") == "Sẵn sàng"
    page.click(".lang-switch button[value=en]")
    page.wait_for_selector("[data-action=ready]")
    assert page.text_content("[data-action=ready]") == "Ready"
    page.click("[data-action=ready]")
    page.wait_for_selector("[data-chi='1'] .card")
    assert page.text_content("[data-chi='1'] .chi-n") == "Chi 1"
    page.click("[data-action=auto]")
    names = {"Mậu thầu", "Đôi", "Thú", "Sám", "Sảnh", "Thùng", "Cù lũ", "Tứ quý", "Thùng phá sảnh"}
    assert page.text_content("[data-chi-name='1']") in names
    assert page.text_content("[data-action=auto]") == "Auto-arrange"


def test_phone_layout_has_no_horizontal_scroll(pages, site):
    page = pages.new(viewport=PHONE)
    sign_up(page, site)
    paths = ("/", "/tables/", "/wallet/", "/tables/history/", reverse("leaderboard"),
             reverse("profile"))  # fmt: skip
    for language in ("vi", "en"):  # (then the tables below in English)
        if language == "en":
            switch_language(page, "en")
        for path in paths:
            page.goto(site.url + path)
            no_horizontal_scroll(page)
    shot(page, "phone-history")
    page.goto(f"{site.url}/tables/")
    shot(page, "phone-lobby")
    for game in browser_games():
        open_bot_table(page, site, game)
        no_horizontal_scroll(page)
        page.click("[data-action=ready]")
        page.wait_for_function("() => window.vipTable.state.hand !== null")
        next_hand_if_dealt_finished(page)
        page.wait_for_selector("[data-mine] .card")
        no_horizontal_scroll(page)
        shot(page, f"phone-{game}-mid-hand")
        # Leaving in the middle of my hand says what it costs and asks first.
        leave_now(page)


def test_history_and_replay_of_a_finished_hand(pages, site):
    page = pages.new()
    sign_up(page, site)
    open_bot_table(page, site, "maubinh")
    page.click("[data-action=ready]")
    page.wait_for_selector("[data-action=submit]")
    page.click("[data-action=auto]")
    page.click("[data-action=submit]")
    page.wait_for_selector("[data-summary]:not([hidden]) [data-summary-game=maubinh]")
    hand = table_state(page)["hand"]
    page.click("[data-nav-history]")
    row = page.wait_for_selector(f"[data-history-hand='{hand['id']}']")
    assert "Mậu Binh" in row.text_content()
    page.click(f"[data-history-hand='{hand['id']}'] [data-replay-link]")
    page.wait_for_selector("[data-replay-app] [data-step-label]")
    data = json.loads(page.text_content("#replay-data"))
    types = [e["type"] for e in data["events"]]
    assert types.count("dealt") == 1  # my own cards, never the others'
    assert types.count("chi_revealed") == 3
    steps = len(json.loads(page.text_content("#replay-steps"))["steps"])
    assert page.text_content("[data-step-label]") == f"Bước 1 / {steps}"
    for _ in range(steps - 1):
        page.click("[data-next]")
    assert page.text_content("[data-step-label]") == f"Bước {steps} / {steps}"
    # every player's three chi lie on the table (tests/e2e/test_replay.py steps through it all)
    assert page.locator("[data-felt] .seat .mini-chi").count() == 3 * len(data["players"])
    page.click("[data-replay] .fairness summary")
    page.click("[data-verify]")
    page.wait_for_selector("[data-verify-result][data-ok]")
    assert page.get_attribute("[data-verify-result]", "data-ok") == "1"
    shot(page, "replay-maubinh")


def test_your_tables_on_the_home_page_and_the_lobby_and_closing_your_own(pages, site):
    """Where I sit and what I own, on the home page and, kept live, in the
    lobby (issue 30, item 3); the owner's close button asks first."""
    from games.models import Table

    page = pages.new()
    username = sign_up(page, site)
    game = browser_games()[0]
    open_bot_table(page, site, game, owner=username)  # mine, bots in the other seats
    table_page = page.url
    table_id = int(table_page.rstrip("/").rsplit("/", 1)[1])
    owner = Table.objects.get(pk=table_id).owner
    assert owner is not None
    assert owner.username == username

    page.goto(f"{site.url}/")
    row = page.wait_for_selector(f"[data-my-table='{table_id}']")
    assert row.query_selector("[data-why=seated]") is not None
    assert row.query_selector("[data-why=owned]").text_content() == "Bàn của bạn"
    row.query_selector("a.table-name").click()
    page.wait_for_url(table_page)

    lobby = page.context.new_page()
    lobby.goto(f"{site.url}/tables/?game={game}")
    mine = f"[data-my-tables] [data-table-row='{table_id}']"
    card = lobby.wait_for_selector(mine)
    assert card.query_selector("[data-why=seated]").text_content() == "Bạn ngồi ở đây"
    assert card.query_selector("[data-why=owned]").text_content() == "Bàn của bạn"
    assert lobby.is_visible("[data-my-tables-panel]")

    assert not page.is_visible("[data-close-confirm]")  # behind its confirmation
    page.click("[data-close-table] summary")
    assert "Đóng hẳn bàn này?" in page.text_content("[data-close-form]")
    page.click("[data-close-confirm]")
    page.wait_for_selector("[data-closed]")
    assert Table.objects.get(pk=table_id).status == Table.Status.CLOSED
    # The lobby, open meanwhile, heard it close.
    lobby.wait_for_selector(mine, state="detached")
    assert not lobby.is_visible("[data-my-tables-panel]")
