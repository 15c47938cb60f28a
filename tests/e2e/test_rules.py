"""The rules from the table (issue 32 item 5): the drawer bar's "Luật chơi"
button opens the table's own rules page in a new tab, on a laptop and on a
phone (on its side or short, where the rules line is hidden), and the game goes on undisturbed in
its own tab. The page draws its example cards as cards, each named for
screen readers, and is in the page's language."""

from __future__ import annotations

import pytest

from games.plugins import PLUGINS

from ..registry import browser_games
from .conftest import open_play_now, shot, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

# A phone on its side: the rules line is hidden there (static/css/table.css).
PHONE = {"width": 740, "height": 360}


@pytest.mark.parametrize("game", browser_games())
def test_the_rules_button_opens_the_tables_rules_in_a_new_tab(pages, site, game):
    page = pages.new()
    sign_up(page, site)
    open_play_now(page, site, game)
    table = page.url.rstrip("/").rsplit("/", 1)[-1]
    button = page.locator("[data-drawer-bar] [data-rules-button]")
    assert button.get_attribute("target") == "_blank"

    with page.context.expect_page() as opened:
        button.click()
    rules = opened.value
    rules.wait_for_load_state()

    assert rules.url == f"{site.url}/tables/{table}/rules/"
    assert rules.locator("html").get_attribute("lang") == "vi"
    assert rules.locator("h1").inner_text().startswith("Luật chơi")
    assert rules.locator(f"[data-rules-table='{table}']").is_visible()
    first = rules.locator("[data-rules-section] .card[role=img]").first
    assert first.is_visible()
    assert first.get_attribute("aria-label")
    # The game is where it was: the table's own tab still shows it, connected.
    assert page.url.endswith(f"/tables/{table}/")
    assert page.evaluate("window.vipTable.state.table.id") == int(table)


def rules_button_on_screen(page, size):
    box = page.locator("[data-rules-button]").bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= size["width"]
    assert box["y"] >= 0
    assert box["y"] + box["height"] <= size["height"]


def test_on_a_phone_the_rules_are_in_reach(pages, site):
    page = pages.new(viewport=PHONE)
    sign_up(page, site)
    open_play_now(page, site, browser_games()[0])
    assert not page.locator("[data-table-rules]").is_visible()
    rules_button_on_screen(page, PHONE)

    # A short phone upright (under 800 px high): the rules line gives way to
    # the felt (static/css/fit.css), the drawer bar's button is there instead.
    short = {"width": 360, "height": 740}
    page.set_viewport_size(short)
    assert not page.locator("[data-table-rules]").is_visible()
    rules_button_on_screen(page, short)

    # A taller phone upright: the rules line shows, and the table's rules are
    # its first link.
    page.set_viewport_size({"width": 390, "height": 844})
    link = page.locator("[data-table-rules] [data-table-rules-link]")
    assert link.is_visible()
    table = page.url.rstrip("/").rsplit("/", 1)[-1]
    assert link.get_attribute("href") == f"/tables/{table}/rules/"
    assert not page.locator("[data-rules-button]").is_visible()  # the bar keeps its room
    box = link.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 390


@pytest.mark.parametrize("game", browser_games())
def test_every_rules_page_fits_a_phone(pages, site, game):
    page = pages.new(viewport={"width": 360, "height": 740})
    for code, _label in PLUGINS[game].presets:
        page.goto(f"{site.url}/rules/{game}/{code}/")
        shot(page, f"rules-{game}-{code}-360x740")
        width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], (code, width)
