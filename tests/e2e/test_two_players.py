"""Two people at one Tiến Lên table, each in their own browser, see each other's plays."""

from __future__ import annotations

from typing import Any

import pytest

from tests.processes import wait_for

from .conftest import shot, sign_up, table_state

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def finished(page: Any) -> bool:
    hand = table_state(page)["hand"]
    return bool(hand and hand["finished"])


def next_mover(players: tuple[Any, Any]) -> Any:
    """The page showing "your turn", or None once both see the hand finished."""

    def look() -> Any:
        if all(finished(p) for p in players):
            return "done"
        return next((p for p in players if p.locator("[data-your-turn]").count()), None)

    found = wait_for(look, timeout=20, step=0.1)
    return None if found == "done" else found


def test_two_people_play_tien_len_and_see_each_other(pages, site):
    lan, minh = pages.new(), pages.new()
    sign_up(lan, site, display_name="Lan")
    sign_up(minh, site, display_name="Minh")
    lan.goto(f"{site.url}/tables/?game=tienlen")
    lan.click("[data-create] summary")
    lan.select_option("select[name=game]", "tienlen")
    lan.fill("input[name=name]", "Bàn của Lan")
    lan.fill("input[name=seat_count]", "2")
    lan.click("[data-create-submit]")
    lan.wait_for_url(f"{site.url}/tables/*/")
    lan.click("[data-action=sit]")
    lan.wait_for_selector(".seat.you")
    table_url = lan.url

    minh.goto(f"{site.url}/tables/?game=tienlen")
    row = minh.wait_for_selector("[data-table-row] >> text=Bàn của Lan")
    assert row is not None
    minh.wait_for_selector("[data-table-row] [data-taken='1']")
    minh.click("[data-table-row] a.button")
    minh.wait_for_url(table_url)
    minh.click("[data-action=sit]")
    minh.wait_for_selector(".seat.you")
    lan.wait_for_selector("[data-seat-name] >> text=Minh")
    for page in (lan, minh):
        page.click("[data-action=ready]")
    for page in (lan, minh):
        page.wait_for_function("() => window.vipTable.state.hand !== null")
    # A tới trắng at the deal ends the hand at once: the next one, as often as it takes.
    while (hand := table_state(lan)["hand"])["view"].get("instant"):
        for page in (lan, minh):
            page.click("[data-action=ready]")
        for page in (lan, minh):
            page.wait_for_function("(id) => window.vipTable.state.hand.id !== id", arg=hand["id"])

    plays = 0
    while (mover := next_mover((lan, minh))) is not None:
        other = minh if mover is lan else lan
        if not mover.is_disabled("[data-action=pass]"):
            version = table_state(mover)["v"]
            mover.click("[data-action=pass]")
            mover.wait_for_function(f"() => window.vipTable.state.v > {version}")
            continue
        version = table_state(mover)["v"]
        card = mover.get_attribute("[data-my-hand] .card.playable >> nth=0", "data-card")
        mover.click(f"[data-my-hand] .card[data-card='{card}']")
        mover.click("[data-action=play]")
        # The mover's own page has the new state before it is asked to move again.
        mover.wait_for_function(f"() => window.vipTable.state.v > {version}")
        # The other player sees the card land on the table, and loses nothing of theirs.
        other.wait_for_function(
            "(card) => { const h = window.vipTable.state.hand;"
            " return h.finished || (h.view.table && h.view.table.cards.includes(card))"
            " || h.view.history.some((m) => m.cards.includes(card)); }",
            arg=card,
        )
        if plays == 0:
            other.wait_for_selector(f"[data-pile='{card}']")
            shot(other, "tienlen-two-players")
            assert table_state(other)["hand"]["view"]["hand"] is not None
            assert card not in table_state(other)["hand"]["view"]["hand"]
        plays += 1
    for page in (lan, minh):
        page.wait_for_selector("[data-summary]:not([hidden]) [data-summary-game=tienlen]")
    assert plays >= 1
    final = [table_state(p)["hand"] for p in (lan, minh)]
    assert final[0]["id"] == final[1]["id"]
    assert final[0]["view"]["winner"] == final[1]["view"]["winner"]
