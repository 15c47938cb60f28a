"""Test helpers: random hands, a pokerkit mirror and an independent pot calculation."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pokerkit import Automation, Mode, NoLimitTexasHoldem, StandardHighHand
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from games.rules.cards import card_str
from games.rules.holdem import betting
from games.rules.holdem.engine import ENGINE
from games.rules.holdem.state import HandState

RULES = ENGINE.ruleset("vipgame", {})
TREYS = TreysEvaluator()

PK_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HAND_KILLING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.CHIPS_PULLING,
)


@dataclass
class HandSpec:
    players: int
    stake: int
    button: int
    stacks: list[int]
    deck: list[int]
    max_raise: int | None = None

    def setup(self) -> dict[str, Any]:
        return {
            "stake": self.stake,
            "button": self.button,
            "stacks": list(self.stacks),
            "max_raise": self.max_raise,
        }


def random_spec(rng: random.Random, *, capped: bool = False) -> HandSpec:
    """2 to 9 players, a mix of short (under 20 big blinds) and deep stacks."""
    players = rng.randint(2, 9)
    stake = rng.choice([1, 1, 2, 5])
    big = 2 * stake
    stacks = []
    for _ in range(players):
        if rng.random() < 0.4:
            stacks.append(rng.randint(1, 20 * big))
        else:
            stacks.append(rng.randint(20 * big, 300 * big))
    deck = list(range(52))
    rng.shuffle(deck)
    max_raise = rng.choice([2, 4, 10, 50]) if capped else None
    return HandSpec(players, stake, rng.randrange(players), stacks, deck, max_raise)


def random_action(state: HandState, rng: random.Random) -> dict[str, Any]:
    """A random legal action, raises spread over their range and all-ins included."""
    player = state.to_act
    assert player is not None
    legal = betting.legal_actions(state, player)
    options: list[tuple[float, dict[str, Any]]] = [(0.12 if legal.call else 0.02, {"type": "fold"})]
    options.append((0.5, {"type": "check"} if legal.check else {"type": "call"}))
    if legal.raise_min is not None and legal.raise_max is not None:
        low, high = legal.raise_min, legal.raise_max
        to = rng.choice([low, high, rng.randint(low, high), min(high, low + rng.randint(0, low))])
        options.append((0.28, {"type": "raise", "to": to}))
    if legal.all_in is not None:
        options.append((0.08, {"type": "all_in"}))
    weights = [w for w, _ in options]
    return rng.choices([a for _, a in options], weights)[0]


def play_random(
    spec: HandSpec,
    rng: random.Random,
    *,
    leave_rate: float = 0.0,
    timeout_rate: float = 0.0,
    on_state: Callable[[HandState], None] | None = None,
) -> HandState:
    state, _ = ENGINE.start(RULES, spec.deck, spec.players, spec.setup())
    while not state.finished:
        if on_state:
            on_state(state)
        roll = rng.random()
        if roll < leave_rate:
            live = state.live_players()
            state, _ = ENGINE.leave(state, rng.choice(live))
        elif roll < leave_rate + timeout_rate:
            state, _ = ENGINE.timeout(state)
        else:
            player = state.to_act
            assert player is not None
            state, _ = ENGINE.apply(state, player, random_action(state, rng), rng.randint(0, 40000))
    if on_state:
        on_state(state)
    return state


# -- independent pot calculation ---------------------------------------------


def expected_stacks(
    stacks_before_pots: Sequence[int],
    contributions: Sequence[int],
    live: Sequence[bool],
    hands: Sequence[Sequence[int]],
    board: Sequence[int],
    button: int,
    *,
    pokerkit_rules: bool = False,
) -> list[int]:
    """Final stacks from the chips each player put in, ranked with treys.

    Our rule: every pot is split on its own and its odd chips go one at a
    time from the first seat after the button. Pokerkit's: losing hands are
    killed first, pots left with the same players merge (its issue #46), and
    a pot's whole remainder goes to its first winner after the button.
    """
    n = len(contributions)
    board_t = [TreysCard.new(card_str(c)) for c in board]
    score = {
        p: TREYS.evaluate(board_t, [TreysCard.new(card_str(c)) for c in hands[p]])
        for p in range(n)
        if live[p]
    }
    pots: list[tuple[int, list[int]]] = []
    remaining = list(contributions)
    while any(remaining[p] > 0 for p in range(n) if live[p]):
        in_pot = [p for p in range(n) if live[p] and remaining[p] > 0]
        level = min(remaining[p] for p in in_pot)
        last = len({remaining[p] for p in in_pot}) == 1
        amount = 0
        for p in range(n):
            take = remaining[p] if last else min(remaining[p], level)
            amount += take
            remaining[p] -= take
        pots.append((amount, in_pot))
    winners_of = [[p for p in e if score[p] == min(score[q] for q in e)] for _, e in pots]
    if pokerkit_rules:
        winning = {p for w in winners_of for p in w}
        merged: list[tuple[int, list[int]]] = []
        for amount, eligible in pots:
            kept = [p for p in eligible if p in winning]
            if merged and merged[-1][1] == kept:
                merged[-1] = (merged[-1][0] + amount, kept)
            else:
                merged.append((amount, kept))
        pots = merged
        winners_of = [[p for p in e if score[p] == min(score[q] for q in e)] for _, e in pots]
    final = list(stacks_before_pots)
    order = [(button + 1 + k) % n for k in range(n)]
    for (amount, _), pot_winners in zip(pots, winners_of, strict=True):
        winners = [p for p in order if p in pot_winners]
        share, odd = divmod(amount, len(winners))
        for i, p in enumerate(winners):
            if pokerkit_rules:
                final[p] += share + (odd if i == 0 else 0)
            else:
                final[p] += share + (1 if i < odd else 0)
    return final


# -- the pokerkit mirror -------------------------------------------------------


@contextmanager
def memoized_pokerkit_hands() -> Iterator[None]:
    """Let pokerkit remember its own hand rankings while the block runs.

    Pokerkit ranks the same hole cards and board again and again within a
    hand (each check for a hand to kill, each showdown step), in pure Python
    at a few thousand hands a second. Remembering each answer keeps every
    ranking pokerkit's own and halves the time of the differential test.
    """
    had_own = "from_game" in StandardHighHand.__dict__
    original = StandardHighHand.__dict__.get("from_game")
    defined: Any = next(
        vars(k)["from_game"] for k in StandardHighHand.__mro__ if "from_game" in vars(k)
    )
    compute = defined.__func__
    cache: dict[tuple[Any, ...], Any] = {}

    def from_game(cls: type, hole_cards: Iterable[Any], board_cards: Iterable[Any] = ()) -> Any:
        if isinstance(hole_cards, str) or isinstance(board_cards, str):
            return compute(cls, hole_cards, board_cards)
        hole, board = tuple(hole_cards), tuple(board_cards)
        key = (cls, hole, board)
        if key not in cache:
            cache[key] = compute(cls, hole, board)
        return cache[key]

    StandardHighHand.from_game = classmethod(from_game)  # type: ignore[assignment]
    try:
        yield
    finally:
        if had_own:
            StandardHighHand.from_game = original  # type: ignore[assignment]
        else:
            del StandardHighHand.from_game


@dataclass
class PokerkitMirror:
    """Pokerkit playing the same hand; its player k is our ``(button + 1 + k) % n``."""

    spec: HandSpec
    state: Any = None
    contributions: list[int] | None = None
    stacks_before_pots: list[int] | None = None
    dealt_board: int = 0
    seen: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        s = self.spec
        pk_stacks = [s.stacks[self.ours(k)] for k in range(s.players)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.state = NoLimitTexasHoldem.create_state(
                PK_AUTOMATIONS,
                False,
                0,
                (s.stake, 2 * s.stake),
                2 * s.stake,
                pk_stacks,
                s.players,
                mode=Mode.CASH_GAME,
            )
        for k in range(s.players):
            p = self.ours(k)
            self.state.deal_hole(card_str(s.deck[2 * p]) + card_str(s.deck[2 * p + 1]), k)
        self.sync()

    def ours(self, k: int) -> int:
        return (self.spec.button + 1 + k) % self.spec.players

    def theirs(self, p: int) -> int:
        return (p - self.spec.button - 1) % self.spec.players

    def board_card(self, i: int) -> str:
        return card_str(self.spec.deck[2 * self.spec.players + i])

    def sync(self) -> None:
        """Deal, show and push chips until pokerkit needs a player decision."""
        st = self.state
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            while st.status:
                if st.can_burn_card():
                    st.burn_card("??")
                elif st.can_deal_board():
                    count = st.board_dealing_count
                    cards = "".join(self.board_card(self.dealt_board + i) for i in range(count))
                    st.deal_board(cards)
                    self.dealt_board += count
                elif st.can_show_or_muck_hole_cards():
                    st.show_or_muck_hole_cards(True)
                elif st.can_push_chips():
                    if self.contributions is None:
                        self.stacks_before_pots = list(st.stacks)
                        self.contributions = [
                            start - now
                            for start, now in zip(st.starting_stacks, st.stacks, strict=True)
                        ]
                    st.push_chips()
                elif st.actor_index is not None:
                    return
                else:
                    raise AssertionError("pokerkit stuck")

    def actor(self) -> int | None:
        k = self.state.actor_index
        return None if k is None else self.ours(k)

    def pointless(self) -> bool:
        st = self.state
        return st.checking_or_calling_amount == 0 and not st.can_complete_bet_or_raise_to()

    def call_amount(self) -> int:
        return int(self.state.checking_or_calling_amount)

    def raise_bounds(self) -> tuple[int, int] | None:
        st = self.state
        low = st.min_completion_betting_or_raising_to_amount
        if low is None:
            return None
        return int(low), int(st.max_completion_betting_or_raising_to_amount)

    def apply(self, action: dict[str, Any], our_state_before: HandState) -> None:
        st = self.state
        kind = action["type"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "fold":
                st.fold()
            elif kind in ("check", "call"):
                st.check_or_call()
            else:
                player = our_state_before.to_act
                assert player is not None
                all_in = our_state_before.bets[player] + our_state_before.stacks[player]
                to = all_in if kind == "all_in" else action["to"]
                if to <= max(st.bets):
                    st.check_or_call()
                else:
                    st.complete_bet_or_raise_to(to)
        self.sync()

    def final_stacks_ours(self) -> list[int]:
        return [int(self.state.stacks[self.theirs(p)]) for p in range(self.spec.players)]
