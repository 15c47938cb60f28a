"""The table moves and sounds: in each game, on a laptop and on a phone, the
deal and a play start animations and the deal, my turn and the hand's end
sound (my phone vibrates on my turn); muted, nothing sounds, and the switch
holds after a reload; with reduced motion nothing moves. Animations are counted
by wrapping ``Element.prototype.animate``, sounds read from ``window.vipSound``."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import (
    leave_now,
    next_hand_if_dealt_finished,
    open_bot_table,
    shot,
    sign_up,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 360, "height": 740}

# Before any page script: count the animations started, record vibrations.
WATCH = """(() => {
  const animate = Element.prototype.animate;
  window.animated = 0;
  Element.prototype.animate = function (...args) {
    window.animated += 1;
    return animate.apply(this, args);
  };
  window.vibrated = [];
  Object.defineProperty(Navigator.prototype, "vibrate", {
    configurable: true,
    value(pattern) { window.vibrated.push(pattern); return true; },
  });
})();"""

MY_TURN = """() => {
  const s = window.vipTable && window.vipTable.state;
  return !!s && !!s.hand && !s.hand.finished && s.you !== null && s.actors.includes(s.you);
}"""


def moved(page: Any, kind: str, *, after: int = 0) -> None:
    """Wait for a ``kind`` moment (past the first ``after`` of the motion log)
    that started animations."""
    page.wait_for_function(
        """([kind, after]) => (window.vipMotion?.log || []).slice(after)
             .some((m) => m.type === kind && m.animations > 0)""",
        arg=[kind, after],
    )


def heard(page: Any, name: str) -> None:
    page.wait_for_function(
        "(name) => (window.vipSound?.log || []).some((x) => x.name === name)", arg=name
    )


def sounds(page: Any) -> list[str]:
    return list(page.evaluate("window.vipSound.log.map((x) => x.name)"))


def ready(page: Any) -> None:
    page.click("[data-action=ready]")  # a tap: the audio starts


def dealt(page: Any) -> None:
    """A hand in play is dealt (a Tiến Lên tới trắng ends at the deal: then the
    next), with its motion and sound."""
    page.wait_for_function("() => window.vipTable.state.hand !== null")
    next_hand_if_dealt_finished(page)  # auto-ready (on with bots) deals the next one
    moved(page, "deal")
    heard(page, "deal")


def my_turn(page: Any) -> None:
    page.wait_for_function(MY_TURN, timeout=30_000)
    heard(page, "turn")
    assert page.evaluate("window.vibrated.length") >= 1


def leave(page: Any) -> None:
    leave_now(page)


def submit(page: Any) -> None:
    page.click("[data-action=submit]")
    moved(page, "reveal")  # the chi flip, with my units against each opponent


def mau_binh_end(page: Any) -> None:
    """The hand's end: the win or lose sound by my net, and the banner (as the
    motion log noted it: it goes by itself)."""
    end = page.wait_for_function(
        """() => window.vipMotion.log.find((m) => m.type === "end")"""
    ).json_value()
    banner = end["banner"] or ["none", ""]  # (as it showed: it may be gone by now)
    # (from the end as it was seen: the next hand may be dealt by now)
    mine = end["units"]
    outcome = "win" if mine > 0 else "lose" if mine < 0 else None
    assert [n for n in sounds(page) if n in ("win", "lose")] == ([outcome] if outcome else [])
    words = {"win": "Bạn thắng!", "lose": "Bạn thua"}  # in the page's language
    if outcome:
        assert banner == [outcome, words[outcome]]
    else:
        assert banner[0] == ("other" if end["winners"] else "none")
    size = page.viewport_size
    shot(page, f"feel-maubinh-{size['width']}x{size['height']}")


def tien_len_move(page: Any) -> None:
    if page.is_disabled("[data-action=pass]"):  # I lead: my lowest card
        page.click("[data-my-hand] .card.playable >> nth=0")
        page.click("[data-action=play]")
    else:
        page.click("[data-action=pass]")
    moved(page, "play")  # mine, or the next player's
    heard(page, "card")


def playing_until(page: Any, done: str, action: str) -> None:
    """Poker: make the move ``action`` (a selector; else check, else call,
    else all-in: a stack short of the call has no call) on each of my turns
    until the page function ``done`` is true."""
    moves = (action, "[data-action=check]", "[data-action=call]", "[data-action=all-in]")
    for _ in range(60):
        if page.evaluate(done):
            return
        page.wait_for_function(f"() => ({MY_TURN})() || ({done})()", timeout=30_000)
        if page.evaluate(done):
            return
        seen = page.evaluate("window.vipTable.state.v")
        page.click(next(selector for selector in moves if page.locator(selector).count()))
        if page.locator("[data-confirm]:not([hidden])").count():  # all-in asks first
            page.click("[data-confirm-yes]")
        try:
            page.wait_for_function(f"() => !({MY_TURN})()", timeout=10_000)
        except PlaywrightTimeout:
            # (CI once saw the turn stay mine for 20 s after the tap: the tap
            # is made again, as a player would, if the state did not move)
            print(f"still my turn 10 s after a tap (v {seen} -> "
                  f"{page.evaluate('window.vipTable.state.v')}): again")  # fmt: skip
    raise AssertionError(f"not done after 60 turns: {done}")


def holdem_move(page: Any) -> None:
    """Chips slide to a bet (mine, a bot's, a blind) after my first move."""
    after = len(page.evaluate("window.vipMotion.log"))
    bet = f"""() => window.vipMotion.log.slice({after})
      .some((m) => m.type === "bet" && m.animations > 0)"""
    playing_until(page, bet, "[data-action=call]")


def next_deal(page: Any) -> list[dict[str, Any]]:
    """Fold on my turns until the next poker hand is dealt (they go on by
    themselves); the motion log since the page opened."""
    deal = "() => window.vipMotion.log.some((m) => m.type === 'deal')"
    playing_until(page, deal, "[data-action=fold]")
    return list(page.evaluate("window.vipMotion.log"))


def muted_after_reload(page: Any) -> None:
    """Mute; after a reload the switch is still off, and the moments up to the
    next deal play nothing though the audio runs."""
    page.click("[data-sound-toggle]")
    assert page.evaluate("localStorage.getItem('vip.sound.muted')") == "1"
    page.reload()
    page.wait_for_selector("[data-sound-toggle][data-muted='1'][aria-pressed=true]")
    page.click("[data-status]")  # a tap: the audio may start
    log = next_deal(page)
    assert page.evaluate("window.vipSound.muted") is True
    assert page.evaluate("window.vipSound.ctx !== null")
    assert sounds(page) == [], log
    page.click("[data-sound-toggle]")  # sound on again (for the next table too)
    assert page.evaluate("localStorage.getItem('vip.sound.muted')") == "0"


def still_with_reduced_motion(page: Any) -> None:
    """With reduced motion the moments still come, and nothing moves."""
    page.emulate_media(reduced_motion="reduce")
    page.reload()
    log = next_deal(page)
    assert [m["animations"] for m in log] == [0] * len(log), log
    assert page.evaluate("window.animated") == 0
    assert page.evaluate("document.getAnimations().length") == 0
    page.emulate_media(reduced_motion="no-preference")


def test_the_table_moves_and_sounds(pages, site):
    """A player on a laptop and one on a phone, each at their own bot table,
    play the same steps in turn (each table goes on while the other is
    checked)."""
    laptop, phone = pages.new(viewport=LAPTOP), pages.new(viewport=PHONE)
    for page in (laptop, phone):
        page.add_init_script(WATCH)
        sign_up(page, site)

    def last(page: Any) -> None:
        if page is laptop:
            muted_after_reload(page)
        else:
            still_with_reduced_motion(page)

    games = {
        "maubinh": [ready, dealt, my_turn, submit, mau_binh_end, leave],
        "holdem": [ready, dealt, my_turn, holdem_move, last, leave],
        "tienlen": [ready, dealt, my_turn, tien_len_move],
    }
    for game, steps in games.items():
        for page in (laptop, phone):
            open_bot_table(page, site, game)
        for step in steps:
            for page in (laptop, phone):
                step(page)
