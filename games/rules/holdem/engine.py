"""The Hold'em engine the table service drives (docs/rules.md 4).

Setup keys: ``stake`` (chips; the small blind is 1 unit, the big blind 2),
``max_raise`` (units, None for no limit), ``button`` (player index),
``stacks`` (chips, one per player dealt in), optional ``time_banks_ms`` (each
player's bank carried in; default full) and ``timeouts`` (consecutive time-outs
carried in from earlier hands); a tournament level adds ``blinds`` (``[small,
big]`` chips, instead of the stake's units) and ``ante`` (chips each player
posts before the blinds, dead money).

Actions: ``{"type": "fold"}``, ``{"type": "check"}``, ``{"type": "call"}``,
``{"type": "raise", "to": n}`` (n = the player's total bet this round) and
``{"type": "all_in"}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..cards import Card, cards_str
from ..errors import RulesError
from ..game import (
    JSON,
    Change,
    ClockKind,
    Event,
    GameEngine,
    LeaveCost,
    Outcome,
    Payment,
    Status,
    event,
)
from . import betting
from .bot import choose_action
from .pots import build_pots, seat_order, transfers
from .rules import HoldemRules
from .rules import ruleset as make_ruleset
from .state import HandState, Record, from_dict, json_copy, to_dict
from .types import DealtEvent, HoldemSummary, HoldemView, PersonalJSON
from .view import personal_view as make_personal_view
from .view import view as make_view


def _events(records: Sequence[Record]) -> list[Event]:
    return [
        Event(r["kind"], json_copy({k: v for k, v in r.items() if k != "kind"})) for r in records
    ]


def _start_events(state: HandState) -> list[Event]:
    """The public start of the hand, each player's own cards, then the antes and blinds."""
    dealt = [
        event(DealtEvent(type="dealt", cards=cards_str(state.hole[p])), seat=p)
        for p in range(state.players)
    ]
    return [*_events(state.log[:1]), *dealt, *_events(state.log[1:])]


def _require(state: object) -> HandState:
    if not isinstance(state, HandState):
        raise RulesError("bad_state", "Not a Hold'em state")
    return state


class HoldemEngine:
    name = "holdem"
    min_players = 2
    max_players = 9
    clocks: Mapping[str, ClockKind] = {"turn": ClockKind(per_actor=True)}

    def ruleset(self, preset: str, options: Mapping[str, Any]) -> HoldemRules:
        return make_ruleset(preset, options)

    def start(
        self, ruleset: Any, deck: Sequence[Card], players: int, setup: Mapping[str, Any]
    ) -> tuple[HandState, list[Event]]:
        if not isinstance(ruleset, HoldemRules):
            raise RulesError("bad_ruleset", "Not a Hold'em ruleset")
        state = betting.start_hand(ruleset, deck, players, setup)
        return state, _start_events(state)

    def apply(
        self, state: Any, player: int, action: Mapping[str, Any], elapsed_ms: int = 0
    ) -> tuple[HandState, list[Event]]:
        before = _require(state)
        after = betting.act(before, player, action, elapsed_ms)
        return after, _events(after.log[len(before.log) :])

    def timeout(self, state: Any) -> tuple[HandState, list[Event]]:
        before = _require(state)
        after = betting.time_out(before)
        return after, _events(after.log[len(before.log) :])

    def leave(self, state: Any, player: int) -> tuple[HandState, list[Event]]:
        before = _require(state)
        after = betting.leave(before, player)
        return after, _events(after.log[len(before.log) :])

    def leave_cost(self, state: Any, player: int) -> LeaveCost | None:
        """Leaving folds: the chips already bet are lost. An all-in or folded
        hand loses nothing more by leaving."""
        current = _require(state)
        if not 0 <= player < current.players:
            raise RulesError("bad_player", f"No player {player} in this hand")
        if current.finished or current.folded[player] or current.stacks[player] == 0:
            return None
        bet = current.committed[player]
        return LeaveCost(bet, "fold", True) if bet else None

    def change_of(self, events: Sequence[Event]) -> Change:
        # Every change starts with an action record: a time-out and a leave are flagged.
        first = events[0]
        if first.type != "acted":
            raise RulesError("replay_mismatch", "No Hold'em change starts with this event")
        data = first.data
        if data.get("left"):
            return Change("leave", data["player"])
        if data.get("timeout"):
            return Change("timeout")
        action: JSON = {"type": data["action"]}
        if data["action"] == "raise":
            action["to"] = data["to"]
        return Change("act", data["player"], action)

    def status(self, state: Any) -> Status:
        current = _require(state)
        actor = current.to_act
        return Status(
            phase=current.phase,
            actors=() if actor is None else (actor,),
            clock=None if actor is None else "turn",
            finished=current.finished,
        )

    def view(self, state: Any, player: int | None) -> HoldemView:
        return make_view(_require(state), player)

    def personal_view(self, state: Any, player: int) -> PersonalJSON:
        return make_personal_view(_require(state), player)

    def outcome(self, state: Any) -> Outcome:
        return outcome(_require(state))

    def bot_action(self, view: Mapping[str, Any], seed: int) -> JSON:
        return choose_action(view, seed)

    def dumps(self, state: Any) -> JSON:
        return to_dict(_require(state))

    def loads(self, data: JSON) -> HandState:
        return from_dict(data)


def outcome(state: HandState) -> Outcome:
    """Net chips per player and, pot by pot, who paid whom."""
    if not state.finished:
        raise RulesError("hand_not_finished", "The hand is still being played")
    live = [not f for f in state.folded]
    order = seat_order(state.players, state.button)
    pot_records = [r for r in state.log if r["kind"] == "pot_awarded"]
    payments: list[Payment] = []
    for pot, record in zip(build_pots(state.committed, live), pot_records, strict=True):
        shares = dict(zip(record["winners"], record["shares"], strict=True))
        kind = "main_pot" if record["index"] == 0 else "side_pot"
        for payer, payee, amount in transfers(pot.paid_in, shares, order):
            payments.append(Payment(payer, payee, amount, kind, {"pot": record["index"]}))
    net = tuple(end - start for end, start in zip(state.stacks, state.start_stacks, strict=True))
    limit = state.rules.timeouts_to_sit_out
    summary: HoldemSummary = json_copy(
        {
            "pots": [{k: v for k, v in r.items() if k != "kind"} for r in pot_records],
            "winners": sorted({p for r in pot_records for p in r["winners"]}),
            "shown": [
                hand for r in state.log if r["kind"] == "hands_ranked" for hand in r["hands"]
            ],
            "uncalled": [
                {k: v for k, v in r.items() if k != "kind"}
                for r in state.log
                if r["kind"] == "uncalled_returned"
            ],
            "board": cards_str(state.board_dealt),
            "start_stacks": list(state.start_stacks),
            "stacks": list(state.stacks),
            "time_banks_ms": list(state.time_banks),
            "timeouts": list(state.timeouts),
            "sit_out": [p for p in range(state.players) if state.timeouts[p] >= limit],
        }
    )
    return Outcome(net, tuple(payments), summary)


ENGINE = HoldemEngine()
_protocol_check: GameEngine = ENGINE
