"""Issue 16, seat flow, in the browser: at a table with bots Mậu Binh and
Tiến Lên deal the next hand without pressing Ready; "leave after this hand"
plays the hand out and then frees the seat, saying so, with a one-tap way
back. (Leaving now asks first with the server's cost: test_play.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import open_bot_table, shot, sign_up, table_state
from .test_play import MY_TURN_OR_DONE, act_and_wait, no_auto_ready, ready

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NEXT_HAND = """(first) => {
  const s = window.vipTable.state;
  return !!s.hand && s.hand.id !== first;
}"""
# While the result shows (status summary), no seat says "Ready": the flags of
# the hand just played are not news.
NO_STALE_READY = """() => {
  const s = window.vipTable.state;
  if (s.table.status !== "summary") return null;
  return document.querySelectorAll("[data-felt] .badge.ready").length;
}"""


def play_out_tien_len(page: Any) -> None:
    """My turns until the hand ends: pass when I may, else my lowest playable card."""
    while (page.wait_for_function(MY_TURN_OR_DONE, arg="tienlen").json_value()) != "done":
        page.wait_for_selector("[data-your-turn]")
        if not page.is_disabled("[data-action=pass]"):
            act_and_wait(page, "[data-action=pass]")
        else:
            page.click("[data-my-hand] .card.playable >> nth=0")
            act_and_wait(page, "[data-action=play]")


def test_the_next_hand_comes_by_itself_and_leaving_waits_for_the_hand(pages, site):
    page = pages.new()
    sign_up(page, site)

    # Mậu Binh: auto-ready is on at a table with bots; one Ready, then the
    # next hand is dealt without pressing it again.
    open_bot_table(page, site, "maubinh")
    assert page.is_checked("[data-auto-ready]")
    ready(page)
    first = table_state(page)["hand"]["id"]
    page.wait_for_selector("[data-action=submit]")
    page.click("[data-action=submit]")
    page.wait_for_function("() => window.vipTable.state.table.status === 'summary'")
    assert page.evaluate(NO_STALE_READY) in (0, None)
    page.wait_for_function(NEXT_HAND, arg=first, timeout=30_000)
    state = table_state(page)
    assert state["hand"]["number"] == 2
    assert state["hand"]["seed_sources"][state["you"]] == "player"  # the page's fresh seed
    page.click("[data-action=leave-now]")  # mid-arrangement: asks first, with the cost
    page.wait_for_selector("[data-confirm]:not([hidden]) [data-leave-cost]")
    shot(page, "seatflow-leave-now-asks")
    page.click("[data-confirm-yes]")
    page.wait_for_function("() => window.vipTable.state.seat === null", timeout=30_000)

    # Tiến Lên: the same, then "leave after this hand" (the default leave).
    open_bot_table(page, site, "tienlen")
    assert page.is_checked("[data-auto-ready]")
    ready(page)
    first = table_state(page)["hand"]["id"]
    play_out_tien_len(page)
    page.wait_for_function("() => window.vipTable.state.table.status === 'summary'")
    assert page.evaluate(NO_STALE_READY) in (0, None)
    page.wait_for_function(NEXT_HAND, arg=first, timeout=30_000)
    assert page.locator("[data-action=ready]").count() == 0

    page.click("[data-action=leave]")
    page.wait_for_function(
        """() => { const s = window.vipTable.state;
          const me = s.table.seats.find((x) => x.position === s.seat);
          return !me || me.leave_after_hand; }"""
    )
    if not table_state(page)["hand"]["finished"]:
        # still seated, playing the hand out; it can be taken back ("stay")
        page.wait_for_selector("[data-leaving-after]")
        assert page.locator("[data-action=stay]").count() == 1
        shot(page, "seatflow-leaving-after-hand")
        play_out_tien_len(page)
    # After the hand: the seat is freed, the page says so, one tap sits again.
    page.wait_for_selector("[data-removed=left]", timeout=30_000)
    assert table_state(page)["seat"] is None
    shot(page, "seatflow-left-after-hand")
    page.click("[data-way-back=sit]")
    page.wait_for_selector("[data-table-app] .seat.you")
    assert page.locator("[data-removed]").count() == 0


def test_a_tap_on_ready_survives_an_update_during_the_press(pages, site):
    """A click is a press and a release on the same button. The table is
    redrawn on every update from the server, and an update that lands while the
    finger is down would replace the Ready button under it: the tap was lost and
    nothing happened (a CI run of test_tien_len_with_bots caught it when the
    bots became ready as the test pressed Ready). While a press is on, updates
    are drawn after its click."""
    page = pages.new()
    sign_up(page, site)
    open_bot_table(page, site, "tienlen")
    no_auto_ready(page)
    # (the box of the button drawn now: an update that redraws the controls
    # between finding the button and measuring it leaves no box to measure)
    box = page.wait_for_function(
        """() => { const b = document.querySelector("[data-action=ready]");
          if (!b) return null;
          const r = b.getBoundingClientRect();
          return r.width && r.height
            ? {x: r.x, y: r.y, width: r.width, height: r.height} : null; }"""
    ).json_value()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    # A real update from the server mid-press: the full state, asked for again.
    page.evaluate(
        "window.heldState = window.vipTable.state; window.vipTable.conn.send({type: 'sync', v: 0})"
    )
    page.wait_for_function("() => window.vipTable.state !== window.heldState")
    page.mouse.up()
    page.wait_for_function("() => !!window.vipTable.state.hand", timeout=10_000)
    # The update was drawn after the tap: the table shows the hand (even one
    # that a tới trắng ended at the deal).
    hand = table_state(page)["hand"]["id"]
    page.wait_for_selector(f"[data-table-app][data-hand='{hand}']")
