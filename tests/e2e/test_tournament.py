"""A Sit & Go in the browser (issue 31): a player registers from the lobby's
tournaments tab, bots fill it, the player opens its table from the tab, sees
the live bar (level, blinds, the countdown, places paid, players left; on a
phone too, never over the felt), plays (all-in each turn: heads-up with 100
chips it ends in a few hands) until it ends, and reads the results page's
places and prizes. Then creates one from the tab's form and unregisters.

Measured (2026-11-29): 25 to 50 s on a loaded machine, the servers' start included."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import DESKTOP, PHONE, in_a_thread, shot, sign_up
from .test_fit import PHONE as TALL_PHONE
from .test_fit import too_small
from .test_screen import check_every_size

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BUY_IN = 10

# One move of mine: all-in when the game offers it (the page asks first: yes),
# else call, else check.
SHOVE = """() => {
  const s = window.vipTable.state;
  if (!s.hand || s.hand.finished || !s.actors.includes(s.you)) return false;
  for (const action of ["all-in", "call", "check"]) {
    const b = document.querySelector(`[data-table-app] [data-action="${action}"]`);
    if (b && !b.disabled) {
      b.click();
      const yes = document.querySelector("[data-confirm]:not([hidden]) [data-confirm-yes]");
      if (yes) yes.click();
      return action;
    }
  }
  return false;
}"""

# The live bar: inside the window, on no seat and no card.
BAR_PROBLEMS = """() => {
  const bar = document.querySelector("[data-tourney-bar]");
  const r = bar.getBoundingClientRect();
  const problems = [];
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth + .5) {
    problems.push(`the bar is outside the window at ${r.left},${r.top}-${r.right},${r.bottom}`);
  }
  const meet = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
    && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  for (const node of document.querySelectorAll("[data-felt], .seat > *, .card")) {
    const n = node.getBoundingClientRect();
    if (n.width && n.height && meet(r, n)) problems.push(`the bar covers ${node.className}`);
  }
  return problems;
}"""


def house_sit_and_go() -> int:
    """A heads-up Hold'em Sit & Go that ends fast: the fewest chips and the
    shortest levels the services allow; bots may fill it after a second."""
    from tournaments import services

    def create() -> int:
        return services.tournament_create(
            game="holdem",
            seats=2,
            buy_in=BUY_IN,
            fee=1,
            allow_bots=True,
            bots_after_seconds=1,
            starting_chips=services.STARTING_CHIPS[0],
            level_seconds=services.LEVEL_SECONDS[0],
        ).pk

    return int(in_a_thread(create))


def fill_with_bots(tournament_id: int) -> None:
    from tournaments import services

    in_a_thread(lambda: services.tournament_fill_with_bots(tournament_id=tournament_id))


def results(tournament_id: int) -> dict[str, Any]:
    from tournaments.models import Tournament

    def read() -> dict[str, Any]:
        t = Tournament.objects.get(pk=tournament_id)
        return {
            "status": t.status,
            "places": sorted(t.entries.values_list("place", "prize")),
        }

    return dict(in_a_thread(read))


def call_off(tournament_id: int) -> None:
    """A Sit & Go the test left running is cancelled (its table closes with it:
    the module's teardown may not close a running tournament's table)."""
    from tournaments import services
    from tournaments.models import Tournament

    def cancel() -> None:
        found = Tournament.objects.get(pk=tournament_id)
        if found.status in (Tournament.Status.REGISTERING, Tournament.Status.RUNNING):
            services.tournament_cancel(tournament_id=tournament_id, reason="test over")

    in_a_thread(cancel)


def test_a_sit_and_go_from_the_lobby_tab_to_its_results(pages, site):
    page = pages.new()
    sign_up(page, site)
    tournament = house_sit_and_go()
    try:
        played_to_the_end(page, site, tournament)
    finally:
        call_off(tournament)
    create_and_leave(page, site)
    # (the refusal the test asked for is the browser's one console error: expected)
    refused = [e for e in pages.errors if "status of 409 (Conflict)" in e]
    assert len(refused) == 1
    pages.errors.remove(refused[0])


def played_to_the_end(page: Any, site: Any, tournament: int) -> None:
    card = f"[data-sng='{tournament}']"

    # The tab: the Sit & Go with its places, buy-in and fee, bots; register.
    page.goto(f"{site.url}/tables/")
    page.click("[data-tournaments-tab]")
    page.wait_for_selector(f"{card} [data-sng-register]")
    assert page.is_hidden("[data-lobby-tables]")
    assert page.get_attribute(f"{card} [data-sng-taken]", "data-sng-taken") == "0"
    assert page.inner_text(f"{card} [data-sng-buy-in]") == "Phí vào giải 10 + phí đăng ký 1"
    assert page.is_visible(f"{card} [data-sng-bots]")
    page.click(f"{card} [data-sng-register]")
    page.wait_for_selector(f"{card} [data-sng-unregister]")
    assert page.get_attribute(f"{card} [data-sng-taken]", "data-sng-taken") == "1"
    # every tap target of the tab (its form open) is 44 px on a phone (tests/e2e/test_fit.py)
    page.set_viewport_size(TALL_PHONE)
    page.click("[data-sng-create] summary")
    assert too_small(page, "the tournaments tab") == []
    page.click("[data-sng-create] summary")
    page.set_viewport_size(DESKTOP)

    # Bots take the other place once it waited its second: it starts, and the
    # tab's next look (every 5 s) has the way to my table.
    page.wait_for_timeout(1100)
    fill_with_bots(tournament)
    page.wait_for_selector(f"{card} [data-sng-open-table]", timeout=12_000)
    page.click(f"{card} [data-sng-open-table]")
    page.wait_for_url(f"{site.url}/tables/*/")

    # The live bar.
    page.wait_for_selector("[data-tourney-bar] [data-tourney-level]")
    assert page.inner_text("[data-tourney-level]") == "Cấp độ 1"
    assert page.inner_text("[data-tourney-stake]") == "Mù 1/2"
    assert page.inner_text("[data-tourney-next]").startswith("Cấp độ tiếp theo sau 0:")
    assert page.inner_text("[data-tourney-left]") == "còn 2/2 người"
    assert page.get_attribute("[data-tourney-paid]", "data-tourney-paid") == "1"  # heads-up
    assert page.inner_text("[data-tourney-paid]") == "Trả thưởng: 20"

    # My turn: the screen with its bar at every size (a 360 px phone too).
    page.wait_for_function(
        "() => { const s = window.vipTable.state; return s.hand && s.actors.includes(s.you) }",
        timeout=30_000,
    )
    check_every_size(page, "holdem", "tournament")
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(400)  # (the drawers' slide away)
    assert page.evaluate(BAR_PROBLEMS) == []
    shot(page, "tournament-phone")
    page.set_viewport_size(TALL_PHONE)
    assert too_small(page, "a tournament's table") == []
    page.set_viewport_size(DESKTOP)

    # Played to the end: all-in at each turn of mine.
    for _ in range(300):
        if page.evaluate("() => window.vipTable.state.table.status === 'closed'"):
            break
        page.evaluate(SHOVE)
        page.wait_for_timeout(250)
    else:
        raise AssertionError(f"the Sit & Go did not end: {results(tournament)}")
    page.wait_for_selector("[data-tourney-over]")

    # The results page, from the bar.
    page.click("[data-tourney-link]")
    page.wait_for_url(f"{site.url}/tournaments/{tournament}/")
    assert [p.get_attribute("data-place") for p in page.query_selector_all("[data-entry]")] == [
        "1",
        "2",
    ]
    prizes = [p.get_attribute("data-prize") for p in page.query_selector_all("[data-entry]")]
    assert prizes == [str(2 * BUY_IN), "0"]
    assert results(tournament) == {"status": "finished", "places": [(1, 20), (2, 0)]}
    shot(page, "tournament-results")


def create_and_leave(page: Any, site: Any) -> None:
    # A Sit & Go of mine, from the tab's form: created with me in it; then I leave it.
    page.goto(f"{site.url}/tables/?tab=tournaments")
    page.click("[data-sng-create] summary")
    page.select_option("[data-sng-game]", "holdem")
    page.select_option("[data-sng-seats]", "6")
    page.fill("#sng-buy-in", "7")
    page.click("[data-sng-submit]")
    mine = "[data-sng].mine[data-sng-status=registering]"
    page.wait_for_selector(f"{mine} [data-sng-unregister]")
    assert page.inner_text(f"{mine} [data-sng-buy-in]") == "Phí vào giải 7 + phí đăng ký 0"
    # a second one is refused, in my language
    page.click("[data-sng-create] summary")
    page.click("[data-sng-submit]")
    page.wait_for_selector("[data-sng-error]:not([hidden])")
    assert page.inner_text("[data-sng-error]").startswith("Bạn đã có một giải Sit & Go")
    page.click(f"{mine} [data-sng-unregister]")
    page.wait_for_selector(f"{mine}", state="detached")
