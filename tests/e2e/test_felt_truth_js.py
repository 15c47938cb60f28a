"""Issue 32 item 3: what the Mậu Binh felt shows against each opponent at the
end of a hand is the result (the result card's payments), on every special
case: sập, sập hầm (swept by everyone), lủng, instant wins, bonuses and
leavers. Hands played by the real engine (``Hand`` of test_moments_js) and
drawn in Chromium on a blank page (conftest ``blank``)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from games.rules.cards import parse_cards
from games.rules.maubinh.engine import ENGINE as MAUBINH
from games.rules.maubinh.rules import PRESETS

from .test_moments_js import Hand

pytestmark = pytest.mark.e2e

INSTANTS = [
    "4s 4c 5s 5c 6c 6d 7c 7d 8s 8h Jh Jc Ks",  # six pairs
    "2s 3d 4c 5h 6s 7d 8c 9h Ts Jd Qc Kh Ad",  # sảnh rồng
    "Jh 9h Ah Kh Qh Js 9s 7s 5s 3s As Ks Qs",  # three flushes
]
HANDS = 160

FELT = """async (states) => {
  const game = (await import("/static/js/games/maubinh.js")).default;
  return states.map((state) => {
    const hand = state.hand;
    const players = hand.players.map((p) => p.position);
    const ctx = {
      state, table: state.table, hand, view: hand.view, you: state.seat, me: state.you,
      actors: state.actors, players, config: { rules: {} },
      playerAt: (position) => players.indexOf(position),
      nameOf: (index) => hand.players[index].name,
      shell: { announce: () => {}, flash: () => {} },
    };
    const felt = document.createElement("div");
    for (const p of players) felt.append(...[game.seat(ctx, p)].flat(2).filter(Boolean));
    return Object.fromEntries([...felt.querySelectorAll("[data-versus]")]
      .map((n) => [n.dataset.versus, Number(n.dataset.units)]));
  });
}"""


def finished_hand(seed: int) -> dict[str, Any]:
    """A random finished hand seen by player 0, under a random preset: 2 to 4
    players, some dealt an
    instant win, each arranging as the server suggests, lủng on purpose, or
    leaving (before the reveal or during it)."""
    rng = random.Random(seed)
    n = rng.randint(2, 4)
    deck = list(range(52))
    rng.shuffle(deck)
    if rng.random() < 0.3:
        instant = parse_cards(rng.choice(INSTANTS).split())
        where = 13 * rng.randrange(n)
        rest = [c for c in deck if c not in instant]
        deck = rest[:where] + instant + rest[where:]
    preset = rng.choice(sorted(PRESETS))
    hand = Hand(MAUBINH, deck, {}, positions=list(range(n)), me=0, preset=preset)
    leavers = {}
    for player in range(n):
        roll = rng.random()
        own = MAUBINH.view(hand.state, player)["own"]
        if roll < 0.15 and player:
            leavers[player] = rng.choice([0, 1, 2])
            if leavers[player] == 0:
                state, events = MAUBINH.leave(hand.state, player)
                hand.state = state
                hand._changed(events)
            continue
        if roll < 0.4:  # lủng: the strongest cards last
            cards = sorted(parse_cards(own["cards"]))
            names = [c for c in own["cards"] if c]  # (the same cards, by name)
            order = sorted(names, key=lambda name: cards.index(parse_cards([name])[0]))
            chis = {"chi1": order[:5], "chi2": order[5:10], "chi3": order[10:]}
        else:
            chis = {key: own["suggestion"][key] for key in ("chi1", "chi2", "chi3")}
        hand.move(player, {"type": "submit", **chis})
    while not MAUBINH.status(hand.state).finished:
        step = hand.state.reveal_step
        for player, at in list(leavers.items()):
            if at and at == step and hand.state.phase == "reveal":
                state, events = MAUBINH.leave(hand.state, player)
                hand.state = state
                hand._changed(events)
                del leavers[player]
        hand.timeout()
    return hand.envelope()


def against(payments: list[dict[str, Any]], me: int) -> dict[str, int]:
    out: Counter[str] = Counter()
    for p in payments:
        if p["payee"] == me:
            out[str(p["payer"])] += p["amount"]
        if p["payer"] == me:
            out[str(p["payee"])] -= p["amount"]
    return dict(out)


def test_the_mau_binh_felt_shows_the_result_on_every_special_case(blank):
    page, errors = blank
    states = [finished_hand(seed) for seed in range(HANDS)]

    felts = page.evaluate(FELT, states)

    reasons: Counter[str] = Counter()
    sweeps: Counter[str] = Counter()
    for state, felt in zip(states, felts, strict=True):
        result = state["hand"]["result"]
        opponents = {str(i) for i in range(1, len(state["hand"]["players"]))}
        want = {o: against(result["payments"], 0).get(o, 0) for o in opponents}
        assert felt == want, (state["hand"]["view"], result)
        reasons.update(p["reason"] for p in result["payments"])
        sweeps.update(
            r for p in result["payments"] if p["reason"] == "sap" for r in p["detail"]["rules"]
        )
    # every special case of the contract came up
    assert {"sap", "lung", "instant", "bonus", "left"} <= set(reasons), reasons
    # a pair swept, a player swept by everyone, a player sweeping everyone (sập làng)
    assert {"pair", "all_loser", "village"} <= set(sweeps), sweeps
    assert errors == []
