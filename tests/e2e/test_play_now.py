"""Issue 32, item 1 in the browser: one tap on "play now" shows my cards,
no Ready tap; a second tap takes me back to the same seat; the home page
and the lobby say where I sit, with the chips held there."""

from __future__ import annotations

import time

import pytest

from ..registry import browser_games
from .conftest import leave_now, shot, sign_up, table_state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEALT = """() => { const s = window.vipTable && window.vipTable.state;
  return !!(s && s.hand) && !!document.querySelector("[data-mine] .card"); }"""


def test_one_tap_on_play_now_shows_my_cards(pages, site):
    page = pages.new()
    sign_up(page, site)
    for game in browser_games():
        page.goto(f"{site.url}/tables/?game={game}")
        started = time.monotonic()
        page.click(f"[data-play-now={game}]")
        page.wait_for_url(f"{site.url}/tables/*/")
        page.wait_for_function(DEALT, timeout=15_000)  # no other tap
        took = time.monotonic() - started
        shot(page, f"play-now-{game}-first-card")
        assert table_state(page)["seat"] is not None
        table_url = page.url
        table_id = int(table_url.rstrip("/").rsplit("/", 1)[1])
        print(f"{game}: tap -> first card {took:.2f} s")

        # A second tap (another tab, the home tile) takes me back to my seat.
        again = page.context.new_page()
        again.goto(f"{site.url}/")
        row = again.wait_for_selector(f"[data-my-table='{table_id}']")
        held = int(row.query_selector("[data-seat-chips]").get_attribute("data-seat-chips"))
        assert held > 0
        again.click(f"[data-home-play-now={game}]")
        again.wait_for_url(table_url)
        again.goto(f"{site.url}/tables/?game={game}")
        card = again.wait_for_selector(f"[data-my-tables] [data-table-row='{table_id}']")
        assert card.query_selector("[data-why=held]") is not None
        assert card.query_selector("[data-back-to-seat]") is not None
        again.close()

        leave_now(page)  # its bots stop counting against me at once: the next game plays
        if page.evaluate("!document.querySelector('[data-confirm]').hidden"):
            page.click("[data-confirm-yes]")
        page.wait_for_function("() => window.vipTable.state.seat === null", timeout=30_000)
