"""The Hold'em betting state machine (docs/rules.md 4).

Every public function takes a state and returns a new one; the input is
never changed. Chips are integers; "to" amounts are a player's total bet in
the current betting round.

Decisions with nothing to decide are not asked for: a player who owes
nothing and whose raise nobody could answer (everyone else all-in or out)
is left out of a betting round when it opens, and checked automatically
(``"auto": true`` in the log) when such a turn comes up later in the round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..cards import Card, cards_str
from ..errors import RulesError
from .evaluator import evaluate
from .pots import build_pots, seat_order, split
from .rules import HoldemRules
from .setup import parse_setup
from .state import BOARD_SIZES, STREETS, HandState, Record, record
from .types import (
    ActedEvent,
    AntePostedEvent,
    BlindPostedEvent,
    BoardDealtEvent,
    CardsShownEvent,
    HandDealtEvent,
    HandFinishedEvent,
    HandsRankedEvent,
    LegalJSON,
    PotAwardedEvent,
    RaiseBounds,
    ShownHandJSON,
    UncalledReturnedEvent,
)

ACTION_TYPES = ("fold", "check", "call", "raise", "all_in")


@dataclass(frozen=True)
class Legal:
    """What the player to act may do. ``call`` and ``all_in`` are the chips they
    add; ``raise_min``/``raise_max`` are totals for the round ("raise to")."""

    fold: bool
    check: bool
    call: int | None
    raise_min: int | None
    raise_max: int | None
    all_in: int | None

    def as_dict(self) -> LegalJSON:
        bounds = None
        if self.raise_min is not None and self.raise_max is not None:
            bounds = RaiseBounds(min=self.raise_min, max=self.raise_max)
        return {
            "fold": self.fold,
            "check": self.check,
            "call": self.call,
            "raise": bounds,
            "all_in": self.all_in,
        }


# -- the deal ----------------------------------------------------------------


def blind_players(players: int, button: int) -> tuple[int, int]:
    """Small and big blind; heads-up the button posts the small blind."""
    if players == 2:
        return button, (button + 1) % 2
    return (button + 1) % players, (button + 2) % players


def start_hand(
    rules: HoldemRules, deck: Sequence[Card], players: int, setup: Mapping[str, Any]
) -> HandState:
    """Deal (player i gets the i-th pair of the deck, the board comes next), post
    the antes (if any, from the first player after the button), then the blinds."""
    parsed = parse_setup(rules, players, setup)
    if sorted(deck) != list(range(52)):
        raise RulesError("bad_deck", "The deck must hold each of the 52 cards once")
    small, big = blind_players(players, parsed.button)
    banks = parsed.time_banks_ms or (rules.time_bank_max_ms,) * players
    state = HandState(
        rules=rules,
        players=players,
        stake=parsed.stake,
        max_raise=parsed.max_raise,
        button=parsed.button,
        small_blind=small,
        big_blind=big,
        hole=[list(deck[2 * p : 2 * p + 2]) for p in range(players)],
        board=list(deck[2 * players : 2 * players + 5]),
        start_stacks=list(parsed.stacks),
        stacks=list(parsed.stacks),
        bets=[0] * players,
        committed=[0] * players,
        folded=[False] * players,
        shown=[False] * players,
        seen_bet=[None] * players,
        time_banks=[min(rules.time_bank_max_ms, b + rules.time_bank_topup_ms) for b in banks],
        timeouts=list(parsed.timeouts),
        blinds=None if parsed.blinds is None else list(parsed.blinds),
        ante=parsed.ante,
    )
    dealt = HandDealtEvent(
        type="hand_dealt",
        players=players,
        button=state.button,
        small_blind=small,
        big_blind=big,
        stake=state.stake,
        max_raise=state.max_raise,
        stacks=list(state.start_stacks),
        time_banks_ms=list(state.time_banks),
    )
    # (only when set: the deal of a hand without them is written as it always was)
    if state.blinds is not None:
        dealt["blinds"] = list(state.blinds)
    if state.ante:
        dealt["ante"] = state.ante
    state.log.append(record(dealt))
    if state.ante:
        for player in seat_order(players, state.button):
            _post_ante(state, player, state.ante)
    _post_blind(state, small, state.small_blind_chips, "small")
    _post_blind(state, big, state.big_blind_chips, "big")
    _open_round(state)
    _advance(state)
    return state


def _post_ante(state: HandState, player: int, amount: int) -> None:
    """Dead money: into the pot (``committed``), not the player's bet this round;
    a stack below the ante posts what it has and is all-in."""
    paid = min(amount, state.stacks[player])
    state.stacks[player] -= paid
    state.committed[player] += paid
    state.log.append(
        record(
            AntePostedEvent(
                type="ante_posted", player=player, amount=paid, all_in=_all_in(state, player)
            )
        )
    )


def _post_blind(state: HandState, player: int, amount: int, kind: Literal["small", "big"]) -> None:
    paid = _put(state, player, amount)
    state.log.append(
        record(
            BlindPostedEvent(
                type="blind_posted",
                player=player,
                blind=kind,
                amount=paid,
                all_in=_all_in(state, player),
            )
        )
    )


# -- queries -----------------------------------------------------------------


def top_bet(state: HandState) -> int:
    """The bet to match this round. Preflop with ``short_blind_full_call`` it is
    at least the full big blind, even when the big blind was posted short."""
    top = max(state.bets)
    if state.street == 0 and state.rules.short_blind_full_call:
        return max(top, state.big_blind_chips)
    return top


def call_amount(state: HandState, player: int) -> int:
    """Chips the player adds to call (at most their stack). Above the highest bet
    in front of anyone, the full big blind binds only while another live player
    still has chips to match it: against all-in players alone nobody could."""
    top = top_bet(state)
    others = [q for q in range(state.players) if q != player and not state.folded[q]]
    if top > max(state.bets) and not any(state.stacks[q] for q in others):
        top = max(state.bets)
    return max(0, min(state.stacks[player], top - state.bets[player]))


def full_raise_size(state: HandState) -> int:
    """The smallest increment that is a full raise now: the big blind or the last full raise."""
    return max(state.big_blind_chips, state.full_raise)


def _can_be_answered(state: HandState, player: int) -> bool:
    top = top_bet(state)
    return any(
        q != player and not state.folded[q] and state.stacks[q] + state.bets[q] > top
        for q in range(state.players)
    )


def may_raise(state: HandState, player: int) -> bool:
    """Raising is open to a player who has chips beyond the call, faces someone who
    could answer, and either has not acted in this round or has since faced at
    least a full raise (a short all-in does not reopen the betting)."""
    top = top_bet(state)
    if state.stacks[player] <= top - state.bets[player] or not _can_be_answered(state, player):
        return False
    seen = state.seen_bet[player]
    return seen is None or top - seen >= full_raise_size(state)


def raise_bounds(state: HandState, player: int) -> tuple[int, int] | None:
    """The smallest and largest legal "raise to", or None when the player may not raise."""
    if not may_raise(state, player):
        return None
    top = top_bet(state)
    all_in = state.bets[player] + state.stacks[player]
    cap = state.raise_cap
    high = all_in if cap is None else min(all_in, top + cap)
    return min(top + full_raise_size(state), all_in), high


def legal_actions(state: HandState, player: int) -> Legal:
    owed = call_amount(state, player)
    bounds = raise_bounds(state, player)
    all_in_to = state.bets[player] + state.stacks[player]
    all_in_ok = all_in_to <= top_bet(state) or (bounds is not None and all_in_to <= bounds[1])
    return Legal(
        fold=True,
        check=owed == 0,
        call=owed if owed > 0 else None,
        raise_min=None if bounds is None else bounds[0],
        raise_max=None if bounds is None else bounds[1],
        all_in=state.stacks[player] if all_in_ok else None,
    )


def _pointless(state: HandState, player: int) -> bool:
    return call_amount(state, player) == 0 and not may_raise(state, player)


# -- actions -----------------------------------------------------------------


def parse_action(action: Mapping[str, Any]) -> tuple[str, int | None]:
    """The action type and, for a raise, its "to" amount."""
    if not isinstance(action, Mapping) or action.get("type") not in ACTION_TYPES:
        raise RulesError("bad_action", f"An action type is one of {', '.join(ACTION_TYPES)}")
    kind = str(action["type"])
    if kind != "raise":
        return kind, None
    to = action.get("to")
    if not isinstance(to, int) or isinstance(to, bool):
        raise RulesError("bad_action", 'A raise needs an integer "to" (the total bet this round)')
    return kind, to


def act(state: HandState, player: int, action: Mapping[str, Any], elapsed_ms: int = 0) -> HandState:
    """A player's own action; ``elapsed_ms`` past the action clock comes out of their bank."""
    _check_turn(state, player)
    kind, to = parse_action(action)
    new = state.clone()
    overtime = max(0, elapsed_ms - state.rules.action_clock_ms)
    new.time_banks[player] = max(0, new.time_banks[player] - overtime)
    new.timeouts[player] = 0
    _perform(new, player, kind, to, {})
    _advance(new)
    return new


def time_out(state: HandState) -> HandState:
    """The clock ran out: the bank is spent and the player checks if they can, else folds."""
    player = state.to_act
    if player is None:
        raise RulesError("hand_finished", "The hand is over")
    new = state.clone()
    new.time_banks[player] = 0
    new.timeouts[player] += 1
    kind = "check" if call_amount(new, player) == 0 else "fold"
    _perform(new, player, kind, None, {"timeout": True})
    _advance(new)
    return new


def leave(state: HandState, player: int) -> HandState:
    """The player left the table: their hand is folded at once, in turn or not.
    An all-in hand has nothing left to decide: it stays in and can still win."""
    if state.finished:
        raise RulesError("hand_finished", "The hand is over")
    if not 0 <= player < state.players:
        raise RulesError("bad_player", f"No player {player} in this hand")
    if state.folded[player] or state.stacks[player] == 0:
        return state
    new = state.clone()
    flags = {"left": True} if new.to_act == player else {"left": True, "out_of_turn": True}
    _fold(new, player, flags)
    _advance(new)
    return new


def _check_turn(state: HandState, player: int) -> None:
    if state.finished:
        raise RulesError("hand_finished", "The hand is over")
    if player != state.to_act:
        raise RulesError("not_your_turn", f"It is not player {player}'s turn", player=player)


def _perform(state: HandState, player: int, kind: str, to: int | None, flags: Record) -> None:
    owed = call_amount(state, player)
    if kind == "fold":
        _fold(state, player, flags)
    elif kind == "check":
        if owed:
            raise RulesError("illegal_move", f"Cannot check: {owed} to call", to_call=owed)
        _close(state, player, "check", 0, flags)
    elif kind == "call":
        if not owed:
            raise RulesError("illegal_move", "Nothing to call: check instead")
        _close(state, player, "call", _put(state, player, owed), flags)
    elif kind == "all_in" and state.bets[player] + state.stacks[player] <= top_bet(state):
        _close(state, player, "call", _put(state, player, owed), flags)
    else:
        target = state.bets[player] + state.stacks[player] if to is None else to
        _raise_to(state, player, target, flags)


def _raise_to(state: HandState, player: int, to: int, flags: Record) -> None:
    bounds = raise_bounds(state, player)
    if bounds is None:
        raise RulesError("illegal_move", "Raising is not open to this player now")
    low, high = bounds
    if not low <= to <= high:
        raise RulesError(
            "illegal_move", f"A raise must be to {low}..{high}, got {to}", min=low, max=high
        )
    top = top_bet(state)
    added = _put(state, player, to - state.bets[player])
    if to - top >= full_raise_size(state):
        state.full_raise = to - top
    state.aggressor = player
    state.seen_bet[player] = to
    state.queue = [
        q
        for q in seat_order(state.players, player)
        if q != player and not state.folded[q] and state.stacks[q] > 0
    ]
    _record_action(state, player, "raise", added, flags)


def _close(
    state: HandState, player: int, kind: Literal["check", "call"], added: int, flags: Record
) -> None:
    """A check or a call: the player is done until someone raises."""
    state.seen_bet[player] = top_bet(state)
    state.queue.remove(player)
    _record_action(state, player, kind, added, flags)


def _fold(state: HandState, player: int, flags: Record) -> None:
    state.folded[player] = True
    if player in state.queue:
        state.queue.remove(player)
    _record_action(state, player, "fold", 0, flags)


def _record_action(
    state: HandState,
    player: int,
    kind: Literal["fold", "check", "call", "raise"],
    added: int,
    flags: Record,
) -> None:
    acted = ActedEvent(
        type="acted",
        street=STREETS[state.street],
        player=player,
        action=kind,
        amount=added,
        to=state.bets[player],
        all_in=_all_in(state, player),
    )
    # (the flags in this order: as they were always written)
    if "auto" in flags:
        acted["auto"] = bool(flags["auto"])
    if "timeout" in flags:
        acted["timeout"] = bool(flags["timeout"])
    if "left" in flags:
        acted["left"] = bool(flags["left"])
    if "out_of_turn" in flags:
        acted["out_of_turn"] = bool(flags["out_of_turn"])
    state.log.append(record(acted))


def _put(state: HandState, player: int, amount: int) -> int:
    paid = min(amount, state.stacks[player])
    state.stacks[player] -= paid
    state.bets[player] += paid
    state.committed[player] += paid
    return paid


def _all_in(state: HandState, player: int) -> bool:
    return state.stacks[player] == 0 and not state.folded[player]


# -- flow --------------------------------------------------------------------


def _open_round(state: HandState) -> None:
    state.seen_bet = [None] * state.players
    state.full_raise = 0
    state.aggressor = None
    first = (
        (state.big_blind + 1) % state.players
        if state.street == 0
        else (state.button + 1) % state.players
    )
    order = [(first + k) % state.players for k in range(state.players)]
    state.queue = [
        p for p in order if not state.folded[p] and state.stacks[p] > 0 and not _pointless(state, p)
    ]


def _advance(state: HandState) -> None:
    """Run the hand forward to the next decision or to its end."""
    while True:
        live = state.live_players()
        if len(live) == 1:
            _return_uncalled(state)
            _award(state)
            return
        if state.queue:
            head = state.queue[0]
            if not _pointless(state, head):
                return
            _close(state, head, "check", 0, {"auto": True})
            continue
        _return_uncalled(state)
        state.bets = [0] * state.players
        if state.street == 3 or sum(1 for p in live if state.stacks[p] > 0) <= 1:
            _showdown(state)
            return
        state.street += 1
        _deal_street(state)
        _open_round(state)


def _deal_street(state: HandState) -> None:
    cards = state.board[BOARD_SIZES[state.street - 1] : BOARD_SIZES[state.street]]
    state.log.append(
        record(
            BoardDealtEvent(
                type="board_dealt", street=STREETS[state.street], cards=cards_str(cards)
            )
        )
    )


def _return_uncalled(state: HandState) -> None:
    top = max(state.bets)
    leaders = [p for p in range(state.players) if state.bets[p] == top]
    if top == 0 or len(leaders) != 1 or state.folded[leaders[0]]:
        return
    leader = leaders[0]
    excess = top - max(b for p, b in enumerate(state.bets) if p != leader)
    state.stacks[leader] += excess
    state.bets[leader] -= excess
    state.committed[leader] -= excess
    state.log.append(
        record(UncalledReturnedEvent(type="uncalled_returned", player=leader, amount=excess))
    )


def showdown_order(state: HandState) -> list[int]:
    """The last aggressor of the final betting round first, else the first live player
    after the button; then round the table."""
    start = state.aggressor if state.aggressor is not None and state.live(state.aggressor) else None
    if start is None:
        start = next(p for p in seat_order(state.players, state.button) if state.live(p))
    return [p for p in seat_order(state.players, (start - 1) % state.players) if state.live(p)]


def _showdown(state: HandState) -> None:
    """Turn the live hands face up (before the run-out when all-in), deal what is
    left, then rank the hands and pay the pots."""
    order = showdown_order(state)
    for player in order:
        state.shown[player] = True
        shown = CardsShownEvent(
            type="cards_shown", player=player, cards=cards_str(state.hole[player])
        )
        state.log.append(record(shown))
    while state.street < 3:
        state.street += 1
        _deal_street(state)
    hands: list[ShownHandJSON] = []
    for player in order:
        value = evaluate([*state.hole[player], *state.board])
        hands.append(
            {
                "player": player,
                "cards": cards_str(state.hole[player]),
                "category": value.category_name,
                "best": cards_str(value.best),
                "rank": value.rank,
            }
        )
    state.log.append(record(HandsRankedEvent(type="hands_ranked", hands=hands)))
    _award(state)


def _award(state: HandState) -> None:
    live = [not f for f in state.folded]
    ranks = {
        hand["player"]: hand["rank"]
        for entry in state.log
        if entry["kind"] == "hands_ranked"
        for hand in entry["hands"]
    }
    for index, pot in enumerate(build_pots(state.committed, live)):
        if len(pot.eligible) == 1:
            winners = list(pot.eligible)
        else:
            best = max(ranks[p] for p in pot.eligible)
            winners = [p for p in pot.eligible if ranks[p] == best]
        shares = split(pot.amount, winners, state.players, state.button)
        for player, share in shares.items():
            state.stacks[player] += share
        state.log.append(
            record(
                PotAwardedEvent(
                    type="pot_awarded",
                    index=index,
                    amount=pot.amount,
                    eligible=list(pot.eligible),
                    winners=sorted(shares),
                    shares=[shares[p] for p in sorted(shares)],
                )
            )
        )
    state.bets = [0] * state.players
    state.queue = []
    state.finished = True
    state.log.append(record(HandFinishedEvent(type="hand_finished", stacks=list(state.stacks))))
