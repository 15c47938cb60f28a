"""The visual replay: the table itself stepping through a finished hand of each
game, showing at each step the cards of that step and nothing later (no card
before its time, no result before the last step), in Vietnamese on a laptop
and in English on a phone."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from games import services

from ..api.test_replay_steps import played_past_the_deal
from ..registry import browser_games
from ..tables import payload_cards
from .conftest import PASSWORD, outside, shot, switch_language
from .test_screen import LAPTOP, PHONE

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GAMES = tuple(browser_games())
# Its hands are played through the services before its processes start
# (``played``): none left running by the module before may move them.
STACK_OF_ITS_OWN = True

PICTURE = """() => {
  const root = document.querySelector("[data-replay-app]");
  const cards = (selector) => [...document.querySelectorAll(selector)].map((n) => n.dataset.card);
  const attr = (selector, name) => document.querySelector(selector)?.getAttribute(name) ?? null;
  return {
    step: Number(root.dataset.step),
    shown: cards("[data-felt] [data-card], [data-mine] [data-card]"),
    mine: cards("[data-mine] [data-card]"),
    board: attr("[data-board]", "data-board"),
    pile: attr("[data-pile]", "data-pile"),
    chi: cards("[data-felt] .seat .mini-chi [data-card]"),
    result: !document.querySelector("[data-summary]").hidden,
    label: document.querySelector("[data-step-label]").textContent,
  };
}"""


@pytest.fixture
def played(tables: Any, make_user: Any) -> tuple[Any, dict[str, Any]]:
    """One finished hand of each game, one player with two bots, played through
    the services before the site's processes start (nothing else moves them),
    in a thread of its own: this one runs Playwright's event loop."""

    def play() -> tuple[Any, dict[str, Any]]:
        try:
            user = make_user()  # its password is PASSWORD, hashed as the site's processes hash
            hands = {}
            # Two bots at each of the three tables: more than one player's share
            # of the pool (docs/security.md, "Bots"), which this test is not about.
            share = override_settings(BOT_SHARE_PER_USER_PERCENT=100)
            share.enable()
            for game in GAMES:
                table = services.table_create(owner=user, game=game, stake=2, seat_count=3)
                buy_in = 400 if game == "holdem" else None
                services.table_sit(table_id=table.pk, user=user, buy_in=buy_in)
                for _ in range(2):
                    services.table_add_bot(table_id=table.pk, user=user)
                # (a real deal may end the hand at once, a Tiến Lên tới trắng:
                # its replay has no step with my cards in hand; the next one)
                hands[game] = played_past_the_deal(tables, table)
            share.disable()
            return user, hands
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(play).result()


def expected(game: str, view: dict[str, Any]) -> dict[str, Any]:
    """What the felt shows of a step's view, game by game."""
    if game == "holdem":
        return {"board": " ".join(view["board"]), "mine": view["hole"]}
    if game == "tienlen":
        if view["finished"]:  # the play that ended it and the winner in the middle
            plays = [m for m in view["history"] if m["action"] == "play"]
            last = None if view["instant"] or not plays else " ".join(plays[-1]["cards"])
            return {"pile": last, "mine": []}
        pile = view["table"]["cards"] if view["table"] else None
        return {"pile": None if pile is None else " ".join(pile), "mine": view["hand"]}
    chi = [c for seat in view["seats"] for k in ("chi1", "chi2", "chi3") for c in seat.get(k) or []]
    return {"chi": sorted(chi)}


def check_step(page: Any, game: str, steps: list[dict[str, Any]], k: int, words: str) -> None:
    picture = page.evaluate(PICTURE)
    last = len(steps) - 1
    assert picture["step"] == k
    assert picture["label"] == words.format(n=k + 1, total=len(steps))
    # the felt shows the cards of this step, and none not yet known then
    want = expected(game, steps[k]["view"])
    got = {key: sorted(picture[key]) if key == "chi" else picture[key] for key in want}
    assert got == want, (game, k)
    known = payload_cards([s["events"] for s in steps[: k + 1]])
    assert set(picture["shown"]) <= known, (game, k, sorted(set(picture["shown"]) - known))
    # the result only at the last step
    assert picture["result"] == (k == last), (game, k)


def test_a_replay_steps_through_the_hand_on_the_table(played, pages, site):
    user, hands = played
    for viewport, language, words in (
        (LAPTOP, "vi", "Bước {n} / {total}"),
        (PHONE, "en", "Step {n} of {total}"),
    ):
        page = pages.new(viewport=viewport)
        page.goto(f"{site.url}/accounts/login/")
        page.fill("#id_username", user.username)
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{site.url}/")
        if language == "en":
            switch_language(page, "en")
        for game, hand in hands.items():
            page.goto(site.url + reverse("replay", args=[hand.pk]))
            page.wait_for_selector("[data-replay-app][data-step='0'] [data-felt] .seat")
            steps = json.loads(page.text_content("#replay-steps"))["steps"]
            assert len(steps) >= 3
            check_step(page, game, steps, 0, words)
            # forward with the keyboard and the button, back with the button
            for k in range(1, len(steps)):
                if k % 2:
                    page.keyboard.press("ArrowRight")
                else:
                    page.click("[data-next]")
                check_step(page, game, steps, k, words)
                if k == len(steps) // 2:
                    shot(page, f"replay-{game}-{viewport['width']}-mid")
            shot(page, f"replay-{game}-{viewport['width']}-result")
            page.click("[data-prev]")
            check_step(page, game, steps, len(steps) - 2, words)
            page.keyboard.press("Home")
            check_step(page, game, steps, 0, words)
            # the controls are in reach without scrolling
            assert outside(page, "[data-replay-controls] button, [data-step-slider]") == []
            # the slider jumps; playing goes on by itself and stops at the last step
            page.eval_on_selector(
                "[data-step-slider]",
                "(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }",
                str(len(steps) - 2),
            )
            check_step(page, game, steps, len(steps) - 3, words)
            page.select_option("[data-speed]", "4")
            page.click("[data-play]")
            page.wait_for_selector("[data-replay-app][data-last='1'] [data-play][data-playing='0']")
            check_step(page, game, steps, len(steps) - 1, words)
            assert page.text_content("[data-play]") == ("▶ Play" if language == "en" else "▶ Phát")


def test_the_replays_thirteen_cards_fit_a_phone(played, pages, site):
    """Issue 32 item 4: at 390 px wide, my thirteen cards of the replay's first
    step stay on the screen in one row (overlapping as the width asks), and
    the page does not scroll sideways."""
    user, hands = played
    page = pages.new(viewport={"width": 390, "height": 844})
    page.goto(f"{site.url}/accounts/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site.url}/")
    for game in ("tienlen", "maubinh"):
        page.goto(site.url + reverse("replay", args=[hands[game].pk]))
        page.wait_for_selector("[data-replay-app][data-step='0'] [data-mine] .card")
        shot(page, f"replay-{game}-390-first")
        # [top, left, right] of each (the page may scroll down, not sideways)
        cards = page.evaluate(
            """() => [...document.querySelectorAll("[data-mine] .card")].map((n) => {
              const r = n.getBoundingClientRect();
              return [r.top, r.left, r.right].map(Math.round);
            })"""
        )
        assert len(cards) == 13
        if game == "tienlen":  # one row
            assert len({top for top, _, _ in cards}) == 1
        assert [c for c in cards if c[1] < 0 or c[2] > 390] == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
