"""A Mậu Binh hand as a state machine for the table service (docs/rules.md 2.6, 2.7).

Phases: ``arrange`` (clock ``arrange``; actors are the present players who
have not submitted), then ``reveal`` steps 1, 2, 3 (clock ``reveal``, no
actors; each time-out reveals the next chi), then ``finished``. Actions:
``{"type": "submit", "chi1": [5], "chi2": [5], "chi3": [3]}`` with exactly the
player's 13 cards; a lủng arrangement is accepted and flagged; a player may
re-submit until everyone has submitted or the time is up. Setup: ``{}``.

Events (``types.MauBinhEvent``): ``hand_dealt`` (public), ``dealt`` (private:
cards, instant win), ``submitted`` (public), ``arranged`` (private: the chi and
the lủng flag), ``auto_arranged`` (public: who was arranged on time-out),
``left`` (public), ``chi_revealed`` (public, per step: each player's chi and
hand name, lủng flags, instant wins, units won on that chi) and
``hand_finished`` (net, sweeps).

``view`` gives every seat's submitted/left/auto flags, and from reveal step 1
the lủng flag, the instant win and the chi revealed so far; ``own`` holds the
viewer's cards, current submission and its lủng flag, instant win, the
arranger's suggestion, three hints and (for three straights/flushes) a split
showing the instant win; ``outcome`` appears when the hand is finished.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..cards import Card, cards_str, parse_card
from ..errors import RulesError
from ..game import (
    JSON,
    Change,
    ClockKind,
    Event,
    GameEngine,
    LeaveCost,
    Outcome,
    PaymentJSON,
    Status,
    event,
    payment_json,
)
from .arranger import ArrangeResult, Suggestion, arrange
from .chi import Arrangement, hand_name
from .instant import split_tiebreak, top_pair
from .rules import Ruleset, make_ruleset
from .settle import Contender, Settlement, chi_units, settle
from .types import (
    ArrangedEvent,
    ArrangementJSON,
    AutoArrangedEvent,
    ChiRevealedEvent,
    DealtEvent,
    HandDealtEvent,
    HandFinishedEvent,
    LeftEvent,
    MauBinhSummary,
    MauBinhView,
    OwnViewJSON,
    PersonalJSON,
    PlayerSummaryJSON,
    RevealedHandJSON,
    SeatViewJSON,
    SubmittedEvent,
    SuggestionJSON,
)

REVEAL_STEPS = 3


# A bot arranges in about this many ordinary decisions (the table's bot think
# time each): with the default 0.5–1.5 s, 10–30 s.
ARRANGE_THINK = 20.0


def think(view: Mapping[str, Any], player: int) -> float:
    """How long arranging takes, in ordinary decisions (1.0): thirteen cards
    into three chi is tens of decisions, and players take tens of seconds over
    it (the table's clock bounds it). Read from the spectators' view only: the
    same for every hand, so the pause tells nothing (a tới trắng is not
    declared faster)."""
    return ARRANGE_THINK if view.get("phase") == "arrange" else 1.0


@dataclass(frozen=True)
class PlayerState:
    cards: tuple[Card, ...]
    analysis: ArrangeResult
    submission: Arrangement | None = None
    auto: bool = False
    left_at: int | None = None

    @property
    def present(self) -> bool:
        return self.left_at is None

    @property
    def at_reveal(self) -> bool:
        """Still in the hand when the reveal began (a leaver before it forfeits)."""
        return self.left_at != 0


@dataclass(frozen=True)
class HandState:
    rules: Ruleset
    players: tuple[PlayerState, ...]
    phase: str = "arrange"
    reveal_step: int = 0

    def replace_player(self, index: int, **changes: Any) -> tuple[PlayerState, ...]:
        players = list(self.players)
        players[index] = dataclasses.replace(players[index], **changes)
        return tuple(players)


def _arranged(arrangement: Arrangement, lung: bool) -> ArrangedEvent:
    chis = _arrangement_json(arrangement)
    return ArrangedEvent(
        type="arranged", chi1=chis["chi1"], chi2=chis["chi2"], chi3=chis["chi3"], lung=lung
    )


def _arrangement_json(arrangement: Arrangement) -> ArrangementJSON:
    return {
        "chi1": cards_str(arrangement.chi1),
        "chi2": cards_str(arrangement.chi2),
        "chi3": cards_str(arrangement.chi3),
    }


def _suggestion_json(suggestion: Suggestion) -> SuggestionJSON:
    chis = _arrangement_json(suggestion.arrangement)
    return SuggestionJSON(
        chi1=chis["chi1"],
        chi2=chis["chi2"],
        chi3=chis["chi3"],
        expected_units=round(suggestion.expected_units, 4),
    )


def _contenders(state: HandState) -> list[Contender]:
    return [
        Contender(
            p.submission,
            p.analysis.instant,
            top_pair(p.cards),
            p.left_at,
            split_tiebreak(state.rules, p.cards, p.analysis.instant),
        )
        for p in state.players
    ]


def _settlement(state: HandState) -> Settlement:
    return settle(state.rules, _contenders(state))


class MauBinhEngine:
    name = "maubinh"
    min_players = 2
    max_players = 4
    clocks: Mapping[str, ClockKind] = {
        "arrange": ClockKind(),
        "reveal": ClockKind(for_actors=False),
    }

    def ruleset(self, preset: str, options: Mapping[str, Any]) -> Ruleset:
        return make_ruleset(preset, options)

    def start(
        self, ruleset: Any, deck: Sequence[Card], players: int, setup: Mapping[str, Any]
    ) -> tuple[HandState, list[Event]]:
        if not isinstance(ruleset, Ruleset):
            raise RulesError("bad_ruleset", "Expected a Mậu Binh ruleset")
        if isinstance(players, bool) or players not in range(2, 5):
            raise RulesError("bad_player_count", "Mậu Binh needs 2 to 4 players")
        if sorted(deck) != list(range(52)):
            raise RulesError("bad_deck", "The deck must hold each of the 52 cards once")
        hands = [tuple(deck[13 * i : 13 * i + 13]) for i in range(players)]
        state = HandState(
            rules=ruleset,
            players=tuple(PlayerState(cards, arrange(ruleset, cards)) for cards in hands),
        )
        events = [event(HandDealtEvent(type="hand_dealt", players=players, preset=ruleset.preset))]
        events += [
            event(
                DealtEvent(type="dealt", cards=cards_str(p.cards), instant=p.analysis.instant),
                seat=i,
            )
            for i, p in enumerate(state.players)
        ]
        return state, events

    def apply(
        self, state: HandState, player: int, action: Mapping[str, Any], elapsed_ms: int = 0
    ) -> tuple[HandState, list[Event]]:
        self._check_player(state, player)
        if state.phase == "finished":
            raise RulesError("hand_finished", "The hand is over")
        if not isinstance(action, Mapping) or action.get("type") != "submit":
            raise RulesError("bad_action", "The only action is {'type': 'submit', ...}")
        if state.phase != "arrange" or not state.players[player].present:
            raise RulesError("not_your_turn", "Arranging is closed for this player")
        arrangement = Arrangement.parse(dict(action))
        if sorted(arrangement.cards()) != sorted(state.players[player].cards):
            raise RulesError("illegal_move", "Submit exactly your own 13 cards")
        lung = arrangement.is_lung(state.rules) and state.players[player].analysis.instant is None
        state = dataclasses.replace(
            state, players=state.replace_player(player, submission=arrangement, auto=False)
        )
        events = [
            event(SubmittedEvent(type="submitted", player=player)),
            event(_arranged(arrangement, lung), seat=player),
        ]
        return self._close_if_all_submitted(state, events)

    def timeout(self, state: HandState) -> tuple[HandState, list[Event]]:
        if state.phase == "finished":
            raise RulesError("hand_finished", "The hand is over")
        if state.phase == "arrange":
            events: list[Event] = []
            late = list(self.status(state).actors)
            for i in late:
                analysis = state.players[i].analysis
                chosen = analysis.instant_arrangement or analysis.best.arrangement
                state = dataclasses.replace(
                    state, players=state.replace_player(i, submission=chosen, auto=True)
                )
                events.append(event(_arranged(chosen, False), seat=i))
            events.append(event(AutoArrangedEvent(type="auto_arranged", players=late)))
            return self._reveal(state, 1, events)
        if state.reveal_step < REVEAL_STEPS:
            return self._reveal(state, state.reveal_step + 1, [])
        return self._finish(state)

    def leave(self, state: HandState, player: int) -> tuple[HandState, list[Event]]:
        self._check_player(state, player)
        if state.phase == "finished" or not state.players[player].present:
            return state, []
        left_at = state.reveal_step if state.phase == "reveal" else 0
        state = dataclasses.replace(state, players=state.replace_player(player, left_at=left_at))
        events = [event(LeftEvent(type="left", player=player, reveal_step=left_at))]
        if state.phase == "arrange":
            return self._close_if_all_submitted(state, events)
        return state, events

    def leave_cost(self, state: HandState, player: int) -> LeaveCost | None:
        """docs/rules.md 2.6 rule 5: the leaver loses every chi not yet revealed to
        each opponent who does not forfeit it too, at least one unit a chi
        (the opponents' bonuses and instant wins, still secret, may add)."""
        self._check_player(state, player)
        if state.phase == "finished" or not state.players[player].present:
            return None
        revealed = state.reveal_step if state.phase == "reveal" else 0
        chis = range(revealed + 1, REVEAL_STEPS + 1)
        units = sum(
            1
            for chi in chis
            for i, other in enumerate(state.players)
            if i != player and (other.left_at is None or chi <= other.left_at)
        )
        if not units:
            return None
        opponents = sum(1 for i, p in enumerate(state.players) if i != player and p.present)
        return LeaveCost(units, "chi", False, {"chi": len(chis), "opponents": opponents})

    def change_of(self, events: Sequence[Event]) -> Change:
        first = events[0]
        if first.type == "submitted":
            player = first.data["player"]
            arranged = events[1] if len(events) > 1 else None
            if arranged is None or arranged.type != "arranged" or arranged.seat != player:
                raise RulesError("replay_mismatch", "A submission without its arrangement")
            chis = {key: arranged.data[key] for key in ("chi1", "chi2", "chi3")}
            return Change("act", player, {"type": "submit", **chis})
        if first.type == "left":
            return Change("leave", first.data["player"])
        # The arrange clock (late players arranged), a reveal clock, the last one (the end).
        if first.type in ("arranged", "auto_arranged", "chi_revealed", "hand_finished"):
            return Change("timeout")
        raise RulesError("replay_mismatch", "No Mậu Binh change starts with this event")

    def status(self, state: HandState) -> Status:
        if state.phase == "arrange":
            actors = tuple(
                i for i, p in enumerate(state.players) if p.present and p.submission is None
            )
            return Status("arrange", actors, "arrange", False)
        if state.phase == "reveal":
            return Status("reveal", (), "reveal", False)
        return Status("finished", (), None, True)

    def view(self, state: HandState, player: int | None) -> MauBinhView:
        if player is not None:
            self._check_player(state, player)
        step = state.reveal_step
        settlement = _settlement(state) if step else None
        view: MauBinhView = {
            "game": "maubinh",
            "preset": state.rules.preset,
            "phase": _phase(state.phase),
            "reveal_step": step,
            "you": player,
            "seats": [self._seat_view(state, i, settlement) for i in range(len(state.players))],
            "chi_units": [
                chi_units(settlement, len(state.players), chi) for chi in range(1, step + 1)
            ]
            if settlement
            else [],
            "chi_payments": [_chi_payments(settlement, chi) for chi in range(1, step + 1)]
            if settlement
            else [],
        }
        if player is not None:
            view["own"] = self._own_view(state, player)
        return view

    def personal_view(self, state: HandState, player: int) -> PersonalJSON:
        """What ``player`` sees that spectators do not: who they are and their
        own cards, arrangement and suggestions."""
        self._check_player(state, player)
        return {"you": player, "own": self._own_view(state, player)}

    def outcome(self, state: HandState) -> Outcome:
        if state.phase != "finished":
            raise RulesError("hand_not_finished", "The hand is still in play")
        settlement = _settlement(state)
        summary: MauBinhSummary = {
            "preset": state.rules.preset,
            "players": [_player_summary(state, i, settlement) for i in range(len(state.players))],
            "sweeps": [list(pair) for pair in settlement.sweeps],
        }
        return Outcome(settlement.net, settlement.payments, summary)

    def bot_action(self, view: Mapping[str, Any], seed: int) -> JSON:
        own = view.get("own")
        seat = view["seats"][view["you"]] if isinstance(view.get("you"), int) else None
        if view.get("phase") != "arrange" or not own or not seat or seat["left"]:
            raise RulesError("not_your_turn", "There is nothing to play")
        chosen = own.get("instant_arrangement") or own["suggestion"]
        return {
            "type": "submit",
            "chi1": chosen["chi1"],
            "chi2": chosen["chi2"],
            "chi3": chosen["chi3"],
        }

    def dumps(self, state: HandState) -> JSON:
        return {
            "game": self.name,
            "rules": state.rules.to_dict(),
            "phase": state.phase,
            "reveal_step": state.reveal_step,
            "players": [_player_json(p) for p in state.players],
        }

    def loads(self, data: JSON) -> HandState:
        try:
            return HandState(
                rules=Ruleset.from_dict(data["rules"]),
                players=tuple(_player_from_json(p) for p in data["players"]),
                phase=str(data["phase"]),
                reveal_step=int(data["reveal_step"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RulesError("bad_state", f"Not a Mậu Binh state: {exc}") from None

    @staticmethod
    def _check_player(state: HandState, player: int) -> None:
        if isinstance(player, bool) or not isinstance(player, int):
            raise RulesError("bad_player", "player must be an index")
        if not 0 <= player < len(state.players):
            raise RulesError("bad_player", f"No player {player} in this hand")

    def _close_if_all_submitted(
        self, state: HandState, events: list[Event]
    ) -> tuple[HandState, list[Event]]:
        if self.status(state).actors:
            return state, events
        return self._reveal(state, 1, events)

    def _reveal(
        self, state: HandState, step: int, events: list[Event]
    ) -> tuple[HandState, list[Event]]:
        state = dataclasses.replace(state, phase="reveal", reveal_step=step)
        settlement = _settlement(state)
        shown = [
            RevealedHandJSON(
                player=i,
                cards=cards_str(p.submission.chis[step - 1]),
                hand=hand_name(p.submission.strengths(state.rules)[step - 1]),
            )
            for i, p in enumerate(state.players)
            if p.at_reveal and p.submission is not None
        ]
        revealed = ChiRevealedEvent(
            type="chi_revealed",
            step=step,
            hands=shown,
            lung=list(settlement.lung),
            instant=[_public_instant(state, p) for p in state.players],
            units=chi_units(settlement, len(state.players), step),
        )
        return state, [*events, event(revealed)]

    def _finish(self, state: HandState) -> tuple[HandState, list[Event]]:
        state = dataclasses.replace(state, phase="finished")
        outcome = self.outcome(state)
        finished = HandFinishedEvent(
            type="hand_finished", net=list(outcome.net), sweeps=outcome.summary["sweeps"]
        )
        return state, [event(finished)]

    def _seat_view(self, state: HandState, i: int, settlement: Settlement | None) -> SeatViewJSON:
        p = state.players[i]
        seat: SeatViewJSON = {
            "player": i,
            "submitted": p.submission is not None,
            "left": not p.present,
            "left_at": p.left_at,
            "auto": p.auto,
        }
        if settlement is None:
            return seat
        shown = p.submission if p.at_reveal else None
        revealed = state.reveal_step if shown else 0
        chis = [
            cards_str(shown.chis[chi - 1]) if shown and chi <= revealed else None
            for chi in range(1, REVEAL_STEPS + 1)
        ]
        seat["chi1"], seat["chi2"], seat["chi3"] = chis
        strengths = shown.strengths(state.rules) if shown else ()
        seat["hands"] = [hand_name(s) for s in strengths[:revealed]]
        seat["lung"] = settlement.lung[i]
        seat["instant"] = _public_instant(state, p)
        return seat

    def _own_view(self, state: HandState, i: int) -> OwnViewJSON:
        p = state.players[i]
        analysis = p.analysis
        lung = None
        if p.submission is not None:
            lung = p.submission.is_lung(state.rules) and analysis.instant is None
        return {
            "cards": cards_str(p.cards),
            "submission": _arrangement_json(p.submission) if p.submission else None,
            "lung": lung,
            "instant": analysis.instant,
            "suggestion": _suggestion_json(analysis.best),
            "hints": [_suggestion_json(h) for h in analysis.hints],
            "instant_arrangement": _arrangement_json(analysis.instant_arrangement)
            if analysis.instant_arrangement
            else None,
        }


def _public_instant(state: HandState, p: PlayerState) -> str | None:
    """The instant win shown from the reveal on (a leaver's only if it still counts)."""
    counts = p.at_reveal or state.rules.leaver_keeps_instant
    return p.analysis.instant if counts else None


def _chi_payments(settlement: Settlement, chi: int) -> list[PaymentJSON]:
    """Who paid whom on one revealed chi (its chi, lủng, left and bonus items)."""
    return [payment_json(p) for p in settlement.payments if p.detail.get("chi") == chi]


PHASES: tuple[Literal["arrange", "reveal", "finished"], ...] = ("arrange", "reveal", "finished")


def _phase(phase: str) -> Literal["arrange", "reveal", "finished"]:
    for known in PHASES:
        if known == phase:
            return known
    raise RulesError("bad_state", f"No phase {phase!r}")


def _player_summary(state: HandState, i: int, settlement: Settlement) -> PlayerSummaryJSON:
    p = state.players[i]
    shown = p.submission if p.at_reveal else None
    return {
        "arrangement": _arrangement_json(shown) if shown else None,
        "hands": [hand_name(s) for s in shown.strengths(state.rules)] if shown else None,
        "lung": settlement.lung[i],
        "instant": _public_instant(state, p),
        "left_at": p.left_at,
        "auto": p.auto,
    }


def _arrangement_from_json(data: Any) -> Arrangement | None:
    return None if data is None else Arrangement.parse(data)


def _suggestion_from_json(data: JSON) -> Suggestion:
    arrangement = Arrangement.parse(data)
    return Suggestion(arrangement, float(data["expected_units"]))


def _player_json(p: PlayerState) -> JSON:
    a = p.analysis
    return {
        "cards": cards_str(p.cards),
        "analysis": {
            "best": _suggestion_json(a.best) | {"expected_units": a.best.expected_units},
            "hints": [_suggestion_json(h) | {"expected_units": h.expected_units} for h in a.hints],
            "instant": a.instant,
            "instant_arrangement": _arrangement_json(a.instant_arrangement)
            if a.instant_arrangement
            else None,
        },
        "submission": _arrangement_json(p.submission) if p.submission else None,
        "auto": p.auto,
        "left_at": p.left_at,
    }


def _player_from_json(data: JSON) -> PlayerState:
    a = data["analysis"]
    analysis = ArrangeResult(
        best=_suggestion_from_json(a["best"]),
        hints=tuple(_suggestion_from_json(h) for h in a["hints"]),
        instant=a["instant"],
        instant_arrangement=_arrangement_from_json(a["instant_arrangement"]),
    )
    left_at = data["left_at"]
    return PlayerState(
        cards=tuple(parse_card(c) for c in data["cards"]),
        analysis=analysis,
        submission=_arrangement_from_json(data["submission"]),
        auto=bool(data["auto"]),
        left_at=None if left_at is None else int(left_at),
    )


ENGINE: GameEngine = MauBinhEngine()
