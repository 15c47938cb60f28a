"""The table fits the screen: on a laptop and on a phone, my cards and every
action button are inside the viewport without scrolling, in each game."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import (
    leave_now,
    next_hand_if_dealt_finished,
    open_play_now,
    shot,
    sign_up,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 360, "height": 740}

MY_TURN = """(game) => {
  const s = window.vipTable && window.vipTable.state;
  if (!s || !s.hand || s.hand.finished) return false;
  return s.you !== null && s.actors.includes(s.you);
}"""


def outside(page: Any, selector: str) -> list[str]:
    """The elements matching ``selector`` that are not wholly inside the viewport
    as the page stands (unscrolled)."""
    return list(
        page.evaluate(
            """(selector) => {
              const out = [];
              for (const node of document.querySelectorAll(selector)) {
                if (!node.offsetParent) continue; // not displayed
                const r = node.getBoundingClientRect();
                const inside = r.top >= 0 && r.left >= 0
                  && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
                if (!inside) {
                  out.push(`${node.dataset.action || node.dataset.card || node.tagName} at ` +
                    `${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
                }
              }
              return out;
            }""",
            selector,
        )
    )


def check_fits(page: Any, name: str) -> None:
    assert page.evaluate("window.scrollY") == 0
    shot(page, name)
    bad = outside(page, "[data-mine] .card, [data-mine] button, [data-controls] button")
    assert bad == [], f"{name}: outside the viewport: {bad}"


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1366x768", "360x740"])
def test_my_cards_and_buttons_fit_the_screen(pages, site, viewport):
    page = pages.new(viewport=viewport)
    sign_up(page, site)
    size = f"{viewport['width']}x{viewport['height']}"
    for game in ("maubinh", "tienlen", "holdem"):
        open_play_now(page, site, game)
        page.click("[data-action=ready]")
        page.wait_for_function("() => window.vipTable.state.hand !== null")
        if game == "maubinh":
            page.wait_for_selector("[data-action=submit]")
        else:
            next_hand_if_dealt_finished(page)
            page.wait_for_function(MY_TURN, arg=game, timeout=30_000)
            page.wait_for_selector("[data-your-turn]", state="attached")
        check_fits(page, f"fit-{game}-{size}")
        leave_now(page)
