"""A visitor alone plays one whole hand of each game against bots, in the browser."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import open_bot_table, reopen, shot, sign_up, table_state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MY_TURN_OR_DONE = """(game) => {
  const s = window.vipTable && window.vipTable.state;
  if (!s || !s.hand) return false;
  if (s.hand.finished) return "done";
  return s.you !== null && s.actors.includes(s.you) ? "turn" : false;
}"""


def ready(page: Any) -> None:
    page.click("[data-action=ready]")
    page.wait_for_function("() => window.vipTable.state.hand !== null")


def no_auto_ready(page: Any) -> None:
    """Auto-ready is on at a table with bots: switched off where a test reads
    the finished hand at leisure (the next one would replace it)."""
    page.uncheck("[data-auto-ready]")
    page.wait_for_function(
        """() => { const s = window.vipTable.state;
          return !s.table.seats.find((x) => x.position === s.seat).auto_ready; }"""
    )


def act_and_wait(page: Any, selector: str) -> None:
    version = table_state(page)["v"]
    page.click(selector)
    page.wait_for_function(f"() => window.vipTable.state.v > {version}")


def wait_summary(page: Any, game: str) -> None:
    page.wait_for_selector(f"[data-summary]:not([hidden]) [data-summary-game={game}]")


def verify_fairness(page: Any) -> None:
    """The hand was dealt with the seed this page sent for its commitment (the
    panel says whose it was), and the deal verifies."""
    state = table_state(page)
    me = state["you"]
    assert state["hand"]["seed_sources"][me] == "player"
    assert all(state["hand"]["client_seeds"])
    page.evaluate("document.querySelector('[data-fair-panel]').open = true")
    assert page.get_attribute("[data-my-seed-source]", "data-my-seed-source") == "player"
    assert page.text_content("[data-my-seed]") == state["hand"]["client_seeds"][me]
    page.wait_for_selector("[data-verify]")
    page.click("[data-verify]")
    page.wait_for_selector("[data-verify-result][data-ok]")
    assert page.get_attribute("[data-verify-result]", "data-ok") == "1"


def balance_is_live(page: Any) -> None:
    """The header's balance follows the settlement (a `balance` event on the socket)."""
    page.wait_for_function(
        """() => {
          const s = window.vipTable.state;
          if (!s.hand || !s.hand.settled) return false;
          const seat = s.table.seats.find((x) => x.position === s.seat);
          const shown = document.querySelector("[data-balance-value]").textContent.trim();
          return shown === seat.chips.toLocaleString("de-DE");
        }"""
    )


def test_mau_binh_with_bots(pages, site):
    page = pages.new()
    sign_up(page, site)
    open_bot_table(page, site, "maubinh")
    assert page.locator(".seat").count() == 4
    no_auto_ready(page)
    ready(page)
    page.wait_for_selector("[data-chi='1'] .card")
    assert page.locator(".arrange .card").count() == 13
    assert page.locator("[data-action=ready]").count() == 0
    # The first layout is the server's arrangement: never binh lủng.
    assert page.locator("[data-lung]").count() == 0
    shot(page, "maubinh-mid-hand")
    page.click("[data-action=auto]")
    assert page.locator("[data-lung]").count() == 0
    names = [page.text_content(f"[data-chi-name='{n}']") for n in (1, 2, 3)]
    assert all(names), names
    page.click("[data-action=submit]")
    # The server has my arrangement (if the bots were done, the reveal has begun
    # and the submitted note is already gone).
    page.wait_for_function("() => !!window.vipTable.state.hand.view.own.submission")
    wait_summary(page, "maubinh")
    state = table_state(page)
    view = state["hand"]["view"]
    me = state["you"]
    result = state["hand"]["result"]
    assert view["phase"] == "finished"
    assert view["own"]["submission"] is not None
    expected = sum(
        p["amount"] if p["payee"] == me else -p["amount"] if p["payer"] == me else 0
        for p in result["payments"]
    )
    assert result["net"][me] == expected
    # The centre's result is each player's net for the hand, not chi 3's units.
    page.wait_for_selector("[data-center-result='1']")
    centre = page.locator(".chi-units li").all_text_contents()
    assert [text.rsplit(": ", 1)[1] for text in centre] == [
        ("+" if n > 0 else "") + str(n) for n in result["net"]
    ]
    verify_fairness(page)
    balance_is_live(page)
    shot(page, "maubinh-summary")


def test_tien_len_with_bots(pages, site):
    page = pages.new()
    sign_up(page, site)
    open_bot_table(page, site, "tienlen")
    no_auto_ready(page)
    ready(page)
    # A tới trắng at the deal (about one deal in thirty with four players) ends
    # the hand at once: the next one, as often as it takes.
    while (hand := table_state(page)["hand"])["view"].get("instant"):
        wait_summary(page, "tienlen")
        page.click("[data-action=ready]")
        page.wait_for_function("(id) => window.vipTable.state.hand.id !== id", arg=hand["id"])
    # Leaving now asks first and says what it costs as the server computes it
    # (cóng: nothing played yet); staying changes nothing.
    page.click("[data-action=leave-now]")
    page.wait_for_selector("[data-confirm]:not([hidden])")
    table_id = table_state(page)["table"]["id"]
    cost = page.request.get(f"{site.url}/api/v1/tables/{table_id}/leave-cost").json()
    cost = cost["leave_cost"]
    assert cost["reason"] == "cong"
    assert page.get_attribute("[data-leave-cost]", "data-leave-cost") == str(cost["chips"])
    text = page.text_content("[data-confirm-text]")
    assert "cóng" in text
    assert "−" + f"{cost['chips']:,}".replace(",", ".") in text
    page.click("[data-confirm-no]")
    assert page.locator("[data-confirm]").is_hidden()
    state = table_state(page)
    assert not next(s for s in state["table"]["seats"] if s["position"] == state["seat"])["leaving"]
    moves = 0
    shot_taken = False
    while (status := page.wait_for_function(MY_TURN_OR_DONE, arg="tienlen").json_value()) != "done":
        assert status == "turn"
        page.wait_for_selector("[data-your-turn]")
        if not page.is_disabled("[data-action=pass]"):
            act_and_wait(page, "[data-action=pass]")
        else:
            page.click("[data-my-hand] .card.playable >> nth=0")
            act_and_wait(page, "[data-action=play]")
        moves += 1
        if not shot_taken and page.locator("[data-pile]").count():
            shot(page, "tienlen-mid-hand")
            shot_taken = True
    wait_summary(page, "tienlen")
    hand = table_state(page)["hand"]
    assert hand["view"]["finished"] is True
    assert sum(hand["result"]["net"]) == 0
    if not shot_taken:
        shot(page, "tienlen-mid-hand")
    verify_fairness(page)
    balance_is_live(page)
    shot(page, "tienlen-summary")
    # Once the table has moved on, the result card has gone by itself, and
    # opening the table again shows no old result or toast.
    page.wait_for_function("() => window.vipTable.state.table.status !== 'summary'")
    assert page.locator("[data-summary]").is_hidden()
    again = reopen(page)
    assert again.locator("[data-summary]").is_hidden()
    assert again.locator("[data-flash]").count() == 0
    again.close()


def test_poker_with_bots(pages, site):
    page = pages.new()
    sign_up(page, site)
    open_bot_table(page, site, "holdem")
    ready(page)
    page.wait_for_selector("[data-hole] .card")
    assert page.locator("[data-hole] .card").count() == 2
    shot_taken = False
    while (status := page.wait_for_function(MY_TURN_OR_DONE, arg="holdem").json_value()) != "done":
        assert status == "turn"
        slider = page.locator("[data-raise-slider]")
        if slider.count():
            legal = table_state(page)["hand"]["view"]["legal"]["raise"]
            assert slider.get_attribute("min") == str(legal["min"])
            assert slider.get_attribute("max") == str(legal["max"])
        if not shot_taken:
            shot(page, "holdem-mid-hand")
            shot_taken = True
        can_check = page.locator("[data-action=check]").count()
        act_and_wait(page, "[data-action=check]" if can_check else "[data-action=call]")
    wait_summary(page, "holdem")
    if not shot_taken:
        shot(page, "holdem-mid-hand")
    view = table_state(page)["hand"]["view"]
    assert view["finished"] is True
    verify_fairness(page)
    shot(page, "holdem-summary")
    # Seats stay ready between Poker hands: the next one is dealt by itself,
    # with the new seed the page sent when it saw the new commitment.
    first = table_state(page)["hand"]
    # Calling every bet down can lose the whole stack: a player with no chips
    # sits out until they buy in again (docs/rules.md 4), here with the page's button.
    page.wait_for_function("() => window.vipTable.state.table.status !== 'summary'", timeout=60_000)
    assert page.locator("[data-summary]").is_hidden()  # (gone by itself before the next hand)
    state = table_state(page)
    me = next(s for s in state["table"]["seats"] if s["position"] == state["seat"])
    if me["sitting_out"] and not me["chips"]:
        # told why, with the one-tap way back
        page.wait_for_selector("[data-seat-notice=sitting-out]")
        page.click("[data-action=buy-in-play]")
    # (The summary pause, the seed wait and the bots' think times: allow for a
    # loaded machine.)
    page.wait_for_function(
        f"() => window.vipTable.state.hand && window.vipTable.state.hand.id !== {first['id']}",
        timeout=60_000,
    )
    while (status := page.wait_for_function(MY_TURN_OR_DONE, arg="holdem").json_value()) != "done":
        can_check = page.locator("[data-action=check]").count()
        act_and_wait(page, "[data-action=check]" if can_check else "[data-action=call]")
    wait_summary(page, "holdem")
    verify_fairness(page)
    second = table_state(page)["hand"]
    mine = table_state(page)["you"]
    assert second["client_seeds"][mine] not in first["client_seeds"]
    # Cash out: leaving returns the stack to the wallet, and the header follows.
    # (The next hand may already be dealt: leaving then folds and the seat
    # frees once that hand is settled.) The wallet then holds exactly the
    # sign-up grant plus what every hand played here won or lost.
    if page.locator("[data-action=leave-now]").count():
        page.click("[data-action=leave-now]")  # asks first if folding costs the chips bet
        page.wait_for_selector("[data-confirm]:not([hidden]), [data-action=sit]")
        if page.locator("[data-confirm]:not([hidden])").count():
            page.click("[data-confirm-yes]")
    else:
        page.click("[data-action=leave]")
    page.wait_for_selector("[data-action=sit]", timeout=60_000)
    balance = page.request.get(f"{site.url}/api/v1/wallet").json()["balance"]
    hands = page.request.get(f"{site.url}/api/v1/hands").json()["results"]
    assert len(hands) >= 2
    assert all(h["settled"] for h in hands)
    assert balance == 10_000 + sum(h["net"] for h in hands)
    wallet = f"{balance:,}".replace(",", ".")
    page.wait_for_function(
        f"() => document.querySelector('[data-balance-value]').textContent.trim() === '{wallet}'"
    )
