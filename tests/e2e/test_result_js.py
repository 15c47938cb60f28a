"""The result card (static/js/result.js) and the poker hand's marks and names
(static/js/games/holdem.js), run in Chromium on a blank page (conftest
``blank``) on the states a viewer is sent while the real rules engines play a
hand (``Hand`` of test_moments_js)."""

from __future__ import annotations

from typing import Any

import pytest

from games.rules.holdem.engine import ENGINE as HOLDEM

from ..seeds import stacked_deck
from .test_moments_js import STAKE, Hand, cong_hand

pytestmark = pytest.mark.e2e

# The modules draw the felt, my bar and the result card from a table's ctx
# (TableShell.ctx) whose seats are `seats`; what they show.
DRAW = """async ([state, seats]) => {
  const game = (await import(`/static/js/games/${state.hand.view.game}.js`)).default;
  const { resultCard } = await import("/static/js/result.js");
  const hand = state.hand;
  const players = hand.players.map((p) => p.position);
  const ctx = {
    state, table: { ...state.table, seats }, hand, view: hand.view, you: state.seat, me: state.you,
    actors: state.actors, players, config: { rules: {} },
    playerAt: (position) => players.indexOf(position),
    posOf: (index) => players[index],
    nameOf: (index) => hand.players[index].name,
    seatAt: (position) => seats.find((s) => s.position === position) || null,
    shell: { announce: () => {}, flash: () => {}, eventLog: document.createElement("ol") },
  };
  const felt = document.body.appendChild(document.createElement("div"));
  felt.append(game.center(ctx), ...players.map((p) => game.seat(ctx, p)));
  const mine = document.body.appendChild(document.createElement("div"));
  if (game.mine(ctx)) mine.append(game.mine(ctx));
  const card = document.body.appendChild(resultCard(ctx, game, { onClose: () => {} }));
  const text = (node) => (node ? node.textContent : null);
  const marked = [...felt.querySelectorAll(".card.win"), ...mine.querySelectorAll(".card.win")];
  return {
    marked: [...new Set(marked.map((n) => n.dataset.card))].sort(),
    seatNames: Object.fromEntries([...felt.querySelectorAll("[data-seat-hand]")]
      .map((n) => [n.dataset.seatHand, n.textContent])),
    myName: text(mine.querySelector("[data-my-hand-name]")),
    big: Number(card.querySelector("[data-result-big]").dataset.resultBig),
    bigText: text(card.querySelector("[data-result-big] strong")),
    who: text(card.querySelector("[data-result-who]")),
    headline: text(card.querySelector("[data-result-headline]")),
    lines: [...card.querySelectorAll("[data-result-lines] li")].map((li) =>
      [Number(li.dataset.against), text(li.querySelector(".vs")), Number(li.dataset.chips)]),
    paying: !!card.querySelector("[data-paying]"),
    capped: !!card.querySelector(".capped"),
    details: !!card.querySelector("details[data-result-details]:not([open]) .payments"),
  };
}"""

# Someone else sits in each seat now: the card names the hand's own players.
NEW_NEIGHBOURS = "Someone new"


def seats_now(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"position": p["position"], "user_id": 900 + i, "name": NEW_NEIGHBOURS, "bot": False}
        for i, p in enumerate(state["hand"]["players"])
    ]


def draw(page: Any, state: dict[str, Any]) -> dict[str, Any]:
    return dict(page.evaluate(DRAW, [state, seats_now(state)]))


def showdown(me: int | None) -> dict[str, Any]:
    """Three players check and call to the river: P0's ace and king of hearts
    make a royal flush with the board's queen, jack and ten; P2 has three
    queens, P1 a queen high."""
    deck = stacked_deck("Ah Kh", "2c 7d", "Qs Qd", "Qh Jh Th 3s 4c")
    setup = {"stake": STAKE, "max_raise": None, "button": 0, "stacks": [1000, 1000, 1000]}
    hand = Hand(HOLDEM, deck, setup, positions=[4, 0, 7], me=me, seat=None)
    state = hand.envelope()
    while not HOLDEM.status(hand.state).finished:
        player = HOLDEM.status(hand.state).actors[0]
        legal = HOLDEM.view(hand.state, player)["legal"]
        assert legal is not None  # (the player to act's own)
        state = hand.move(player, {"type": "check" if legal["check"] else "call"})
    return state


ROYAL = ["Ah", "Jh", "Kh", "Qh", "Th"]
NAMES = {"0": "Thùng phá sảnh, A high", "1": "Mậu thầu Q, kicker J", "2": "Sám Q, kicker J"}


def test_the_poker_result_marks_the_winning_five_and_names_each_hand(blank):
    page, errors = blank
    lost, won, watched = (draw(page, showdown(me)) for me in (1, 0, None))

    # (the blank page has no catalogue: the words around the ranks stay English)
    assert lost["marked"] == won["marked"] == watched["marked"] == ROYAL
    assert lost["seatNames"] == won["seatNames"] == watched["seatNames"] == NAMES
    assert [lost["myName"], won["myName"], watched["myName"]] == [NAMES["1"], NAMES["0"], None]
    assert lost["headline"] == won["headline"] == f"P0: {NAMES['0']}"
    # each paid the big blind's 20 into P0's pot
    assert {k: lost[k] for k in ("big", "bigText", "who", "lines", "paying", "details")} == {
        "big": -20,
        "bigText": "-20 chip",
        "who": None,
        "lines": [[0, "against P0", -20]],
        "paying": True,
        "details": True,
    }
    assert (won["big"], won["lines"]) == (40, [[1, "against P1", 20], [2, "against P2", 20]])
    # a spectator's card is the biggest winner's
    assert (watched["who"], watched["big"], watched["lines"]) == ("P0", 40, won["lines"])
    assert errors == []


def test_the_result_card_says_my_chips_then_each_opponent_by_the_hands_names(blank):
    page, errors = blank
    unsettled = cong_hand(me=1)[1][-1]
    result = unsettled["hand"]["result"]
    versus: dict[int, int] = {}
    for p in result["payments"]:
        if p["payee"] == 1:
            versus[p["payer"]] = versus.get(p["payer"], 0) + p["amount"]
        if p["payer"] == 1:
            versus[p["payee"]] = versus.get(p["payee"], 0) - p["amount"]
    # Settled: P1's wallet held only 300 chips of the 380 it owed.
    chips = [n * STAKE for n in result["net"]]
    chips[0], chips[1] = chips[0] - 80, -300
    settled = {**unsettled, "hand": {**unsettled["hand"], "settled": True}}
    settled["hand"]["result"] = {**result, "chips": chips}

    before, after = draw(page, unsettled), draw(page, settled)

    lines = [[i, f"against P{i}", n * STAKE] for i, n in sorted(versus.items()) if n]
    assert lines == [[0, "against P0", -380]]
    assert {k: before[k] for k in ("big", "bigText", "lines", "paying", "capped")} == {
        "big": -380,
        "bigText": "-380 chip",
        "lines": lines,
        "paying": True,
        "capped": False,
    }
    assert {k: after[k] for k in ("big", "bigText", "lines", "paying", "capped")} == {
        "big": -300,
        "bigText": "-300 chip",
        "lines": lines,
        "paying": False,
        "capped": True,
    }
    assert errors == []


# The felt's centre at the end of a Tiến Lên hand, as each player sees it.
CENTRE = """async (state) => {
  const game = (await import("/static/js/games/tienlen.js")).default;
  const hand = state.hand;
  const players = hand.players.map((p) => p.position);
  const ctx = {
    state, table: state.table, hand, view: hand.view, you: state.seat, me: state.you,
    actors: state.actors, players, config: { rules: {} },
    playerAt: (position) => players.indexOf(position),
    nameOf: (index) => hand.players[index].name,
  };
  const centre = game.center(ctx);
  const pile = centre.querySelector("[data-last-play]");
  return { pile: pile ? pile.dataset.pile : null, text: centre.textContent };
}"""


def test_the_play_that_ends_a_tien_len_hand_stays_on_everyones_felt(blank):
    page, errors = blank
    for me in (0, 1, None):
        _, states = cong_hand(me=me)
        got = page.evaluate(CENTRE, states[-1])
        assert got["pile"] == "Kc Kd Kh", me
        assert "P0" in got["text"]
    assert errors == []


# What the Tiến Lên module announces as the hand ends (thối and cóng).
TOLD = """async (state) => {
  const game = (await import("/static/js/games/tienlen.js")).default;
  const hand = state.hand;
  const told = [];
  const ctx = {
    state, table: state.table, hand, view: hand.view, me: state.you,
    nameOf: (index) => hand.players[index].name,
    shell: { announce: (line) => told.push(line) },
  };
  game.summary(ctx);
  return told;
}"""


def test_thoi_is_told_once_per_player_and_kind(blank):
    page, errors = blank
    _, states = cong_hand(me=1)
    final = states[-1]
    payments = [p for p in final["hand"]["result"]["payments"] if p["reason"] in ("thoi", "cong")]
    kinds = {(p["payer"], p["reason"], p["detail"].get("combination")) for p in payments}
    assert len(kinds) < len(payments), "the hand has no kind paid twice by one player"

    told = page.evaluate(TOLD, final)

    assert len(told) == len(kinds)
    assert len(set(told)) == len(told)
    assert any("×2" in line for line in told), told
    assert errors == []
