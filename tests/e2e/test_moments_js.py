"""The moments the table screen reacts to (static/js/moments.js and each game
module's ``moments``), their sounds (static/js/feel.js ``cues``, sound.js) and
the win banner. The pure code (the moments, the clock's ticks, the cues) runs
under Node.js (conftest ``node``); what draws, stores or plays (the feel on a
shell's elements, localStorage, a real audio context) runs in Chromium on a
blank page (conftest ``blank``). The states are what one viewer is sent while
the real rules engines play a hand (``Hand`` below), so their shapes are the
server's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

import pytest

from games.models import HandEvent
from games.plugins import plugin_for
from games.publish import hand_result, visible_events
from games.refs import EventRecord
from games.rules.cards import Card, parse_card
from games.rules.game import GameEngine
from games.rules.holdem.engine import ENGINE as HOLDEM
from games.rules.maubinh.engine import ENGINE as MAUBINH
from games.rules.tienlen.engine import ENGINE as TIENLEN

from ..rules.tienlen.support import HANDS
from ..seeds import ORDINARY_DECK

STAKE = 10


class Hand:
    """One hand of a rules engine as a viewer's ``state`` envelopes: each change
    is a new version with its events; the clock restarts when its kind changes
    or a turn passes to someone else."""

    def __init__(
        self,
        engine: GameEngine,
        deck: Sequence[Card],
        setup: Mapping[str, Any],
        *,
        positions: list[int],
        me: int | None,
        seat: int | None = None,
        preset: str = "vipgame",
    ) -> None:
        self.engine, self.positions, self.me = engine, positions, me
        self.seat = positions[me] if me is not None else seat
        self.v, self.clock_started = 10, 10
        self.records: list[EventRecord] = []
        self.state, events = engine.start(engine.ruleset(preset, {}), deck, len(positions), setup)
        self.clock_key = self._clock_key()
        self._record(events)

    def _clock_key(self) -> tuple[Any, ...]:
        status = self.engine.status(self.state)
        return (status.clock, status.actors if status.clock == "turn" else ())

    def _record(self, events: list[Any]) -> None:
        for event in events:
            self.records.append(
                EventRecord(
                    seq=len(self.records) + 1,
                    table_version=self.v,
                    type=event.type,
                    payload=event.data,
                    visibility=HandEvent.Visibility.EVERYONE
                    if event.seat is None
                    else HandEvent.Visibility.SEAT,
                    player=event.seat,
                )
            )

    def _changed(self, events: list[Any]) -> dict[str, Any]:
        self.v += 1
        if self._clock_key() != self.clock_key:
            self.clock_key, self.clock_started = self._clock_key(), self.v
        self._record(events)
        return self.envelope()

    def move(self, player: int, action: dict[str, Any]) -> dict[str, Any]:
        self.state, events = self.engine.apply(self.state, player, action)
        return self._changed(events)

    def timeout(self) -> dict[str, Any]:
        self.state, events = self.engine.timeout(self.state)
        return self._changed(events)

    def envelope(self, since: int | None = None) -> dict[str, Any]:
        """The state of this version; its events are this version's (or all
        since version ``since``, as a catch-up sends them)."""
        status = self.engine.status(self.state)
        first = self.v - 1 if since is None else since
        events = [r for r in self.records if r.table_version > first]
        clock = None
        if status.clock:
            clock = {
                "kind": status.clock,
                "started": self.clock_started * 1000,
                "deadline": self.clock_started * 1000 + 20_000,
                "seats": [self.positions[i] for i in status.actors],
            }
        return {
            "type": "state",
            "v": self.v,
            "seat": self.seat,
            "you": self.me,
            "actors": list(status.actors),
            "clock": clock,
            "table": {"id": 5, "status": "summary" if status.finished else "playing"},
            "hand": {
                "id": 41,
                "number": 3,
                "players": [
                    {"index": i, "position": p, "user_id": 100 + i, "name": f"P{i}", "bot": False}
                    for i, p in enumerate(self.positions)
                ],
                "last_seq": len(self.records),
                "view": self.engine.view(self.state, self.me),
                "finished": status.finished,
                "settled": False,
                "result": self.result() if status.finished else None,
            },
            "events": visible_events(events, self.me),
            "resync": False,
        }

    def result(self) -> dict[str, Any]:
        unit = STAKE if plugin_for(self.engine.name).pays_in_units else 1
        return hand_result(self.engine.name, unit, self.engine.outcome(self.state))

    def waiting(self) -> dict[str, Any]:
        """The table just before this hand was dealt."""
        return {
            "type": "state",
            "v": 9,
            "seat": self.seat,
            "you": None,
            "actors": [],
            "clock": {"kind": "ready", "started": 1, "deadline": 2, "seats": []},
            "table": {"id": 5, "status": "waiting"},
            "hand": None,
            "events": [],
            "resync": False,
        }


MOMENTS = """async ([game, pairs]) => {
  const { moments } = await import("/static/js/moments.js");
  const module = (await import(`/static/js/games/${game}.js`)).default;
  return pairs.map(([before, after]) => moments(before, after, module));
}"""


def moments_of(page: Any, game: str, states: list[Any]) -> list[list[dict[str, Any]]]:
    """The moments of each change from one state to the next."""
    return list(page.evaluate(MOMENTS, [game, list(pairwise(states))]))


def tien_len(me: int | None, seat: int | None = None) -> Hand:
    deck = [parse_card(c) for hand in HANDS for c in hand]
    setup = {"previous_winner": None, "random_first": 0}
    return Hand(TIENLEN, deck, setup, positions=[1, 2, 3, 0], me=me, seat=seat)


def play(cards: list[str]) -> dict[str, Any]:
    return {"type": "play", "cards": cards}


PASS = {"type": "pass"}


def test_tien_len_deal_plays_a_chop_and_my_turns(node):
    page, errors = node
    hand = tien_len(me=0)
    states = [
        hand.waiting(),
        hand.envelope(),
        hand.move(0, play(["3s"])),
        hand.move(1, play(["2h"])),
        hand.move(2, PASS),
        hand.move(3, play(["As", "Ac", "Ad", "Ah"])),
    ]

    got = moments_of(page, "tienlen", states)

    assert got == [
        [
            {"type": "deal", "seats": [1, 2, 3, 0]},
            {"type": "turn", "seat": 1, "kind": "turn"},
        ],
        [{"type": "play", "player": 0, "seat": 1, "cards": ["3s"], "mine": True}],
        [{"type": "play", "player": 1, "seat": 2, "cards": ["2h"], "mine": False}],
        [],
        [
            {
                "type": "play",
                "player": 3,
                "seat": 0,
                "cards": ["As", "Ac", "Ad", "Ah"],
                "mine": False,
            },
            {"type": "chop", "player": 3, "seat": 0},
            {"type": "turn", "seat": 1, "kind": "turn"},
        ],
    ]
    assert errors == []


def cong_hand(me: int | None, seat: int | None = None) -> tuple[Hand, list[Any]]:
    """Player 0 goes out with two plays; the others pay cóng and thối."""
    hand = tien_len(me, seat)
    states = [hand.envelope(), hand.move(0, play(HANDS[0][:10]))]
    states += [hand.move(p, PASS) for p in (1, 2, 3)]
    states.append(hand.move(0, play(["Kc", "Kd", "Kh"])))
    return hand, states


def test_tien_len_end_thoi_and_my_net(node):
    page, errors = node
    won = moments_of(page, "tienlen", cong_hand(me=0)[1][-2:])[0]
    lost = moments_of(page, "tienlen", cong_hand(me=1)[1][-2:])[0]
    watched = moments_of(page, "tienlen", cong_hand(me=None, seat=None)[1][-2:])[0]

    thoi = [
        {"type": "thoi", "player": 1, "seat": 2, "amount": 12},
        {"type": "thoi", "player": 2, "seat": 3, "amount": 9},
        {"type": "thoi", "player": 3, "seat": 0, "amount": 11},
    ]
    winners = [{"player": 0, "seat": 1, "name": "P0"}]
    losers = [
        {"player": 1, "seat": 2, "name": "P1"},
        {"player": 2, "seat": 3, "name": "P2"},
        {"player": 3, "seat": 0, "name": "P3"},
    ]
    end = {"type": "end", "chips": None, "unit": 10, "winners": winners, "losers": losers}
    kkk = {"type": "play", "player": 0, "seat": 1, "cards": ["Kc", "Kd", "Kh"]}
    assert won == [{**kkk, "mine": True}, *thoi, {**end, "won": True, "units": 110}]
    assert lost == [{**kkk, "mine": False}, *thoi, {**end, "won": False, "units": -38}]
    assert watched == [{**kkk, "mine": False}, *thoi, {**end, "won": None, "units": None}]
    assert errors == []


def test_opening_a_table_is_no_news_and_a_catch_up_repeats_nothing_seen(node):
    page, errors = node
    hand, states = cong_hand(me=0)
    seen = states[1]  # after player 0's straight
    caught_up = hand.envelope(since=0)  # every event of the hand, the seen ones too

    got = page.evaluate(
        """async ([seen, caughtUp]) => {
          const { moments } = await import("/static/js/moments.js");
          const game = (await import("/static/js/games/tienlen.js")).default;
          return [moments(null, caughtUp, game), moments(seen, caughtUp, game).map((m) => m.type)];
        }""",
        [seen, caught_up],
    )

    assert caught_up["events"][0]["seq"] == 1
    assert got == [[], ["play", "thoi", "thoi", "thoi", "end"]]
    assert errors == []


def test_holdem_bets_all_in_pot_and_end(node):
    page, errors = node
    setup = {"stake": STAKE, "max_raise": None, "button": 0, "stacks": [1000, 1000, 300]}
    hand = Hand(HOLDEM, ORDINARY_DECK, setup, positions=[4, 0, 7], me=0)
    states = [hand.waiting(), hand.envelope()]
    states += [hand.move(0, {"type": "call"}), hand.move(1, {"type": "call"})]
    states += [hand.move(2, {"type": "check"}), hand.move(1, {"type": "check"})]
    states += [hand.move(2, {"type": "all_in"}), hand.move(0, {"type": "fold"})]
    states.append(hand.move(1, {"type": "fold"}))

    got = moments_of(page, "holdem", states)

    bet = lambda player, seat, amount: {  # noqa: E731
        "type": "bet",
        "player": player,
        "seat": seat,
        "amount": amount,
    }
    my_turn = {"type": "turn", "seat": 4, "kind": "turn"}
    assert got == [
        [{"type": "deal", "seats": [4, 0, 7]}, bet(1, 0, 10), bet(2, 7, 20), my_turn],
        [bet(0, 4, 20)],
        [bet(1, 0, 10)],
        [  # the flop: bets swept in, its three cards turned
            {"type": "pot", "seats": [4, 0, 7], "amount": 60},
            {"type": "board", "streets": [states[4]["hand"]["view"]["board"]]},
        ],
        [],
        [bet(2, 7, 280), {"type": "allin", "player": 2, "seat": 7}, my_turn],
        [],
        [
            {"type": "pot", "seats": [7], "amount": 0},
            {
                "type": "end",
                "won": False,
                "units": -20,
                "chips": None,
                "unit": 1,
                "winners": [{"player": 2, "seat": 7, "name": "P2"}],
                "losers": [
                    {"player": 0, "seat": 4, "name": "P0"},
                    {"player": 1, "seat": 0, "name": "P1"},
                ],
            },
        ],
    ]
    assert errors == []


def test_an_all_in_board_runs_out_street_by_street_before_the_end(node):
    """Both all in before the flop: the change that ends the hand deals the
    flop, the turn and the river; they come a street each, then the end."""
    page, errors = node
    setup = {"stake": STAKE, "max_raise": None, "button": 0, "stacks": [1000, 1000]}
    hand = Hand(HOLDEM, ORDINARY_DECK, setup, positions=[4, 0], me=0)
    states = [hand.envelope(), hand.move(0, {"type": "all_in"}), hand.move(1, {"type": "call"})]
    board = states[-1]["hand"]["view"]["board"]
    assert len(board) == 5

    got = moments_of(page, "holdem", states)[-1]
    timing = page.evaluate(
        """async (list) => {
          const { holdMs, STREET_MS } = await import("/static/js/moments.js");
          const { cues } = await import("/static/js/feel.js");
          return [list.map(holdMs), STREET_MS, cues(list)];
        }""",
        got,
    )

    types = [m["type"] for m in got]
    assert types.index("board") < types.index("end")
    assert got[types.index("board")]["streets"] == [board[:3], board[3:4], board[4:]]
    holds, street_ms, sounds = timing
    assert holds[types.index("board")] == 2 * street_ms  # the turn and the river wait
    end_sound = next(delay for name, delay in sounds if name in ("win", "lose"))
    assert end_sound >= 2 * street_ms / 1000  # the end is heard after the river
    assert errors == []


# A felt with the board in its middle (the site's motion styles on a blank
# page), a board run out and the end: where the banner went, and when the
# board's cards and the banner come.
RUN_OUT = """async ([streets]) => {
  const { react } = await import("/static/js/motion.js");
  const box = (parent, style) => Object.assign(
    parent.appendChild(document.createElement("div")).style, style) && parent.lastChild;
  const at = (left, top, width, height) => ({ position: "absolute", left, top, width, height });
  const felt = box(document.body, at("0", "0", "800px", "500px"));
  const center = box(felt, at("200px", "170px", "400px", "160px"));
  const board = box(center, {});
  board.dataset.board = streets.flat().join(" ");
  for (const card of streets.flat()) {
    const node = box(board, { display: "inline-block", width: "60px", height: "84px" });
    node.className = "card";
    node.dataset.card = card;
  }
  const mine = box(document.body, at("0", "520px", "800px", "90px"));
  const shell = { felt, center, mine, state: { seat: 0 } };
  const end = { type: "end", won: true, units: 5, chips: null, unit: 1,
    winners: [{ player: 0, seat: 0, name: "P0" }], losers: [] };
  react([{ type: "board", streets }, end], shell);
  const banner = document.querySelector("[data-win-banner]");
  const x = parseFloat(banner.style.left), y = parseFloat(banner.style.top);
  const w = banner.offsetWidth / 2, h = banner.offsetHeight / 2;
  const rect = (b) => [b.left, b.top, b.right, b.bottom];
  const delay = (node) => node.getAnimations()[0].effect.getTiming().delay;
  return {
    banner: [x - w, y - h, x + w, y + h],
    cards: [...board.children].map((c) => rect(c.getBoundingClientRect())),
    cardDelays: [...board.children].map(delay),
    bannerDelay: delay(banner),
  };
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.e2e
def test_the_run_out_comes_street_by_street_and_the_banner_covers_no_card(blank):
    page, errors = blank
    page.add_style_tag(path="static/css/motion.css")
    streets = [["As", "Kd", "7c"], ["2h"], ["9s"]]

    got = page.evaluate(RUN_OUT, [streets])

    street_ms = 900  # static/js/moments.js STREET_MS
    flop, turn, river = got["cardDelays"][:3], got["cardDelays"][3], got["cardDelays"][4]
    assert max(flop) < street_ms <= turn < 2 * street_ms <= river
    assert got["bannerDelay"] >= 2 * street_ms  # the result after the river
    covered = [card for card in got["cards"] if overlap(got["banner"], card)]
    assert covered == [], (got["banner"], covered)
    assert errors == []


def mau_binh(me: int | None) -> list[dict[str, Any]]:
    """Three players arrange as the server suggests (1, 0, 2 in turn); the
    three chi are revealed; the hand ends."""
    hand = Hand(MAUBINH, ORDINARY_DECK, {}, positions=[2, 0, 1], me=me, seat=None)
    states = [hand.waiting(), hand.envelope()]
    for player in (1, 0, 2):
        own = MAUBINH.view(hand.state, player)["own"]["suggestion"]
        chis = {key: own[key] for key in ("chi1", "chi2", "chi3")}
        states.append(hand.move(player, {"type": "submit", **chis}))
    states += [hand.timeout() for _ in range(3)]
    return states


def test_mau_binh_chi_revealed_with_my_units_against_each_opponent(node):
    page, errors = node

    got = moments_of(page, "maubinh", mau_binh(me=0))
    watched = moments_of(page, "maubinh", mau_binh(me=None))

    against = lambda one, two: {  # noqa: E731
        "type": "reveal",
        "units": [
            {"player": 1, "seat": 0, "units": one},
            {"player": 2, "seat": 1, "units": two},
        ],
    }
    assert got == [
        [{"type": "deal", "seats": [2, 0, 1]}, {"type": "turn", "seat": 2, "kind": "arrange"}],
        [],  # another player arranged: my clock runs on, no new turn
        [],  # I arranged
        [{**against(1, -1), "step": 1}],
        [{**against(1, 1), "step": 2}],
        [{**against(1, -1), "step": 3}],
        [
            {
                "type": "end",
                "won": True,
                "units": 8,
                "chips": None,
                "unit": 10,
                "winners": [
                    {"player": 0, "seat": 2, "name": "P0"},
                    {"player": 2, "seat": 1, "name": "P2"},
                ],
                "losers": [{"player": 1, "seat": 0, "name": "P1"}],
            }
        ],
    ]
    # Watching, each player's units on the chi.
    assert watched[3] == [
        {
            "type": "reveal",
            "step": 1,
            "units": [
                {"player": 0, "seat": 2, "units": 0},
                {"player": 1, "seat": 0, "units": -2},
                {"player": 2, "seat": 1, "units": 2},
            ],
        }
    ]
    assert errors == []


def test_my_clock_ticks_in_its_last_five_seconds(node):
    page, errors = node
    clock = {"kind": "turn", "started": 1000, "deadline": 21_000, "seats": [3]}
    mine = {"seat": 3, "clock": clock}
    cases = [
        (mine, 15_000),  # 6 s left: quiet
        (mine, 16_000),  # 5 s
        (mine, 16_001),
        (mine, 19_999),  # 1 ms: the last second
        (mine, 21_000),  # over
        ({"seat": 2, "clock": clock}, 18_000),  # another's clock
        ({"seat": None, "clock": clock}, 18_000),  # watching
        ({"seat": 3, "clock": None}, 18_000),
    ]

    got = page.evaluate(
        """async (cases) => {
          const { clockSecond } = await import("/static/js/moments.js");
          return cases.map(([state, now]) => clockSecond(state, now));
        }""",
        cases,
    )

    assert got == [
        None,
        {"seconds": 5, "key": "1000:5"},
        {"seconds": 5, "key": "1000:5"},
        {"seconds": 2, "key": "1000:2"},
        None,
        None,
        None,
        None,
    ]
    assert errors == []


def test_each_moment_sounds_once_in_turn(node):
    page, errors = node

    got = page.evaluate(
        """async () => {
          const { cues } = await import("/static/js/feel.js");
          return [
            cues([{ type: "deal" }, { type: "bet" }, { type: "bet" }, { type: "turn" }]),
            cues([{ type: "play" }, { type: "chop" }, { type: "play" }]),
            cues([{ type: "end", units: 3 }]),
            cues([{ type: "end", units: -3 }]),
            cues([{ type: "end", units: 0 }, { type: "end", units: null }]),
            cues([{ type: "tick", seconds: 4 }]),
          ];
        }"""
    )

    assert got == [
        [["deal", 0], ["chip", 0.4], ["turn", 0.55]],
        [["card", 0], ["chop", 0.15]],
        [["win", 0]],
        [["lose", 0]],
        [],
        [["tick", 0]],
    ]
    assert errors == []


# A table shell as far as the feel needs one (its felt, centre and hand areas,
# its game and state): a change from `before` to `after`, then what was played
# and shown.
FEEL = """async ([before, after, muted]) => {
  const { Feel } = await import("/static/js/feel.js");
  const { sound } = await import("/static/js/sound.js");
  const game = (await import("/static/js/games/tienlen.js")).default;
  const div = () => document.body.appendChild(document.createElement("div"));
  const shell = { felt: div(), center: div(), mine: div(), game, state: after };
  const feel = new Feel(shell);
  sound.unlock();
  sound.log.length = 0;
  sound.setMuted(muted);
  feel.changed(before, after);
  const banner = document.querySelector("[data-win-banner]");
  return {
    played: sound.log.map((x) => [x.name, x.delay]),
    banner: banner && [banner.dataset.winBanner, banner.textContent],
    stored: localStorage.getItem("vip.sound.muted"),
    toggle: shell.felt.querySelector("[data-sound-toggle]").dataset.muted,
    motion: window.vipMotion.log.map((x) => x.type),
  };
}"""


@pytest.mark.e2e
def test_a_won_hand_sounds_and_shows_the_win_unless_muted(blank):
    page, errors = blank
    before, after = cong_hand(me=0)[1][-2:]

    heard = page.evaluate(FEEL, [before, after, False])
    page.reload()
    muted = page.evaluate(FEEL, [before, after, True])
    page.reload()
    remembered = page.evaluate("async () => (await import('/static/js/sound.js')).sound.muted")

    assert heard == {
        "played": [["card", 0], ["thoi", 0.15], ["win", 0.75]],
        "banner": ["win", "You win!"],  # (the amounts are on the result card)
        "stored": "0",
        "toggle": "0",
        "motion": ["play", "thoi", "thoi", "thoi", "end"],
    }
    assert muted == {**heard, "played": [], "stored": "1", "toggle": "1"}
    assert remembered is True
    assert errors == []


@pytest.mark.e2e
def test_every_sound_plays_on_a_real_audio_context(blank):
    page, errors = blank
    page.evaluate("import('/static/js/sound.js')")
    silent = page.evaluate("window.vipSound.play('deal')")  # before any tap: no audio yet
    page.mouse.click(5, 5)  # a tap: the audio context starts

    got = page.evaluate(
        """async () => {
          const { sound, SOUNDS } = await import("/static/js/sound.js");
          const played = Object.keys(SOUNDS).map((name) => sound.play(name));
          return { played, log: sound.log.map((x) => [x.name, x.state]) };
        }"""
    )

    names = ["card", "deal", "turn", "chop", "thoi", "allin", "chip", "win", "lose", "tick"]
    assert silent is False
    assert got == {"played": [True] * len(names), "log": [[n, "running"] for n in names]}
    assert errors == []
