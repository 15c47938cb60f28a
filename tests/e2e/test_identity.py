"""Identity and place (issue 16 §2) and the words of the tables (§1), in the
browser: the welcome with the daily bonus, an avatar picked and shown at the
table and in the lobby, bots named like people, a player's card on a tap,
the leaderboard, reporting a chat line; and no raw English engine word on the
Vietnamese tables of each game, mid-hand and at the result."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from games.models import ChatFlag

from ..registry import browser_games
from .conftest import (
    leave_now,
    next_hand_if_dealt_finished,
    open_bot_table,
    shot,
    sign_up,
    table_state,
)
from .test_play import MY_TURN_OR_DONE, act_and_wait, ready

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RULES = Path(__file__).resolve().parents[2] / "games" / "rules"
# Words of the engine that are Vietnamese words too, written the same way.
VIETNAMESE_TOO = {"chi"}


def engine_words() -> set[str]:
    """The rules engines' identifiers (phases, events, hand names, actions,
    reasons, keys...): every snake_case string constant in games/rules."""
    words = set()
    for path in RULES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and re.fullmatch(r"[a-z][a-z0-9_]{2,}", value):
                words.add(value)
    return words - VIETNAMESE_TOO


ENGINE_WORDS = engine_words()

# Every panel open (the event log, fairness, chat), then the page's text; with
# a game, only once its result shows (Poker deals on two seconds later).
PAGE_TEXT = """(game) => {
  const result = `[data-summary]:not([hidden]) [data-summary-game=${game}]`;
  if (game && !document.querySelector(result)) return false;
  for (const panel of document.querySelectorAll("details")) panel.open = true;
  return document.body.innerText;
}"""


def raw_words(text: str) -> list[str]:
    return sorted({word for word in re.findall(r"\w+", text) if word in ENGINE_WORDS})


def test_the_engine_words_come_from_the_code():
    for word in ("finished", "fold", "preflop", "high_card", "chop", "arrange", "instant_won"):
        assert word in ENGINE_WORDS
    assert raw_words("Ván: finished · Đôi K, kicker A · Chi 1 · fold") == ["finished", "fold"]


def play_to_result(page: Any, game: str) -> tuple[str, str]:
    """Ready, play my part of a hand (the first playable card, check or call,
    the server's arrangement) and return the page's text mid-hand and at the
    result."""
    ready(page)
    if game == "tienlen":
        next_hand_if_dealt_finished(page)  # tới trắng at the deal: auto-ready deals the next
    if game == "maubinh":
        page.wait_for_selector("[data-action=submit]")
        middle = page.evaluate(PAGE_TEXT, None)
        page.click("[data-action=submit]")
    else:
        middle = ""
        while page.wait_for_function(MY_TURN_OR_DONE, arg=game).json_value() != "done":
            if not middle:
                middle = page.evaluate(PAGE_TEXT, None)
            if game == "holdem":
                can_check = page.locator("[data-action=check]").count()
                act_and_wait(page, "[data-action=check]" if can_check else "[data-action=call]")
            elif not page.is_disabled("[data-action=pass]"):
                act_and_wait(page, "[data-action=pass]")
            else:
                page.click("[data-my-hand] .card.playable >> nth=0")
                act_and_wait(page, "[data-action=play]")
    result = page.wait_for_function(PAGE_TEXT, arg=game).json_value()
    return middle, result


def test_no_raw_engine_word_on_the_vietnamese_tables(pages, site):
    page = pages.new()
    sign_up(page, site)
    seen = {}
    for game in browser_games():
        open_bot_table(page, site, game)
        middle, result = play_to_result(page, game)
        seen[game] = (raw_words(middle), raw_words(result))
        shot(page, f"words-{game}-result")
        if game != "holdem":  # one table at a time (the next hand may be dealt already)
            leave_now(page)
        assert middle
        assert result
    assert seen == {game: ([], []) for game in browser_games()}
    # English mode names poker hands in English.
    page.click(".lang-switch button[value=en]")
    page.wait_for_selector("[data-table-app] .seat.you")
    names = page.evaluate(
        """async () => {
          const poker = await import("/static/js/poker.js");
          return [poker.handName("pair", ["Kh", "Kd", "Ac", "7s", "2d"]),
                  poker.handName("flush", ["Ah", "Jh", "9h", "5h", "3h"])];
        }"""
    )
    assert names == ["Pair K, kicker A", "Flush, A high"]


def test_welcome_avatar_table_card_lobby_and_leaderboard(pages, site):
    page = pages.new()
    sign_up(page, site)
    # After signing up (or logging in): a welcome with the daily bonus, claimed here.
    page.wait_for_selector("[data-welcome] [data-bonus-prompt]")
    shot(page, "home-welcome")
    page.click("[data-claim-bonus]")
    page.wait_for_selector("[data-welcome] [data-bonus-claimed]")
    assert page.url == f"{site.url}/"
    assert "Đã nhận thưởng hằng ngày: +2.000 chip." in page.text_content(".messages")
    assert page.text_content("[data-balance-value]").strip() == "12.000"
    # My avatar, picked on my profile page, shows in the header.
    page.click("[data-nav-profile]")
    page.click(".avatar-choice:has([data-avatar-choice=farmer])")
    page.click("[data-avatar-save]")
    page.wait_for_selector("[data-my-avatar=farmer]")
    assert page.get_attribute("[data-nav-profile] img", "src").endswith("/farmer.svg")
    shot(page, "profile-avatar")
    # Home: a game's tile plays now.
    page.goto(f"{site.url}/")
    page.click("[data-home-play-now=tienlen]")
    page.wait_for_selector("[data-table-app] .seat.you")
    page.wait_for_function("() => document.querySelectorAll('.seat [data-avatar]').length === 4")
    assert page.get_attribute(".seat.you [data-avatar]", "data-avatar") == "farmer"
    seats = table_state(page)["table"]["seats"]
    bots = [s for s in seats if s["bot"]]
    assert len(bots) == 3
    assert not [s["name"] for s in bots if re.search(r"\d", s["name"])]
    # Every avatar loads (each SVG is fetched once the seat is drawn).
    page.wait_for_function(
        """() => [...document.querySelectorAll(".seat .avatar-img")]
          .every((img) => img.complete && img.naturalWidth > 0)""",
        timeout=10_000,
    )
    # A tap on a seat: the player's card.
    bot = bots[0]
    page.click(f".seat[data-seat='{bot['position']}'] [data-profile-open]")
    page.wait_for_selector("[data-profile-card] [data-profile-hands]")
    assert page.text_content("[data-profile-name]").startswith(bot["name"])
    assert page.text_content("[data-profile-stats]").startswith("Số ván đã chơi")
    shot(page, "profile-card")
    page.keyboard.press("Escape")
    assert page.locator("[data-profile-card]").count() == 0
    # The lobby's card of this table shows who sits there.
    table = table_state(page)["table"]["id"]
    page.click("[data-nav-lobby]")
    page.click("[data-tab=tienlen]")
    # (Locators: the lobby redraws its cards as the table changes.)
    card = f"[data-lobby-tables] [data-table-row='{table}']"  # (not "your tables")
    page.wait_for_selector(f"{card} [data-sitter] [data-avatar]")
    avatars = page.locator(f"{card} [data-sitter] [data-avatar]")
    assert avatars.count() == 4
    assert "farmer" in [avatars.nth(i).get_attribute("data-avatar") for i in range(4)]
    names = page.locator(f"{card} .sitter-name").all_text_contents()
    assert {b["name"] for b in bots} <= set(names)
    shot(page, "lobby-cards")
    page.click("[data-nav-leaderboard]")
    page.wait_for_selector("[data-leaderboard]")
    page.click("[data-board-tab=holdem]")
    page.wait_for_selector("[data-leaderboard=holdem]")
    shot(page, "leaderboard")


def test_reporting_a_chat_line(pages, site):
    lan, minh = pages.new(), pages.new()
    sign_up(lan, site, display_name="Lan")
    sign_up(minh, site, display_name="Minh")
    open_bot_table(lan, site, "tienlen")
    lan.fill("[data-chat-input]", "mua chip giá rẻ ở trang khác")
    lan.click("[data-chat-send]")
    lan.wait_for_selector("[data-chat-log] li .text")
    # My own line has no flag; a spectator's page flags it.
    assert lan.locator("[data-chat-log] [data-report]").count() == 0
    minh.goto(lan.url)
    minh.wait_for_selector("[data-chat-log] li [data-report]")
    minh.click("[data-chat-log] li [data-report]")
    minh.wait_for_selector("[data-confirm]:not([hidden]) [data-report-category]")
    minh.select_option("[data-report-category]", "spam")
    minh.click("[data-confirm-yes]")
    minh.wait_for_selector("[data-chat-log] li.reported [data-report][disabled]")
    assert "quản trị viên sẽ xem dòng chat này" in minh.text_content("[data-toast]")
    # (the flags of this test's table: the module's other tests share the database)
    flag = ChatFlag.objects.get(report__message__table=table_state(lan)["table"]["id"])
    assert (flag.report.message.text, flag.category, flag.reporter.display_name) == (
        "mua chip giá rẻ ở trang khác",
        "spam",
        "Minh",
    )
