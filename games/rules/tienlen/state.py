"""The state of one Tiến Lên hand and its JSON form (cards as strings)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import RulesError
from ..game import JSON, Payment, payment_from_json, payment_json
from .combos import Combo, Play, classify
from .order import TlCard, parse_saved_tl, tl_str, tl_strs
from .rules import TienLenRules, rules_from_dict, rules_to_dict
from .scoring import Instant


@dataclass(frozen=True)
class Move:
    """One turn of the hand; ``cards`` empty for a pass."""

    player: int
    cards: Play
    round: int
    chop: bool = False


@dataclass(frozen=True)
class Link:
    """One combination chopped in a chop chain and what its owner would pay for it."""

    owner: int
    cards: Play
    units: int


@dataclass(frozen=True)
class Chain:
    """The chops of the current round: the last one chopped pays the last chopper the sum."""

    links: tuple[Link, ...]
    chopper: int
    chopper_cards: Play

    @property
    def victim(self) -> int:
        return self.links[-1].owner

    @property
    def units(self) -> int:
        return sum(link.units for link in self.links)


@dataclass(frozen=True)
class HandState:
    rules: TienLenRules
    hands: tuple[Play, ...]
    turn: int | None
    table: Play
    table_owner: int | None
    passed: tuple[bool, ...]
    round: int
    history: tuple[Move, ...]
    chain: Chain | None
    settled: tuple[Payment, ...]
    left: tuple[bool, ...]
    must_include: TlCard | None
    first: int | None
    winner: int | None = None
    instant: Instant | None = None

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def table_combo(self) -> Combo | None:
        return classify(self.table) if self.table else None

    def played_any(self, player: int) -> bool:
        return any(m.player == player and m.cards for m in self.history)


def _chain_to_dict(chain: Chain | None) -> JSON | None:
    if chain is None:
        return None
    return {
        "links": [
            {"owner": k.owner, "cards": tl_strs(k.cards), "units": k.units} for k in chain.links
        ],
        "chopper": chain.chopper,
        "chopper_cards": tl_strs(chain.chopper_cards),
    }


def _chain_from_dict(d: JSON | None) -> Chain | None:
    if d is None:
        return None
    links = tuple(Link(k["owner"], parse_saved_tl(k["cards"]), k["units"]) for k in d["links"])
    return Chain(links, d["chopper"], parse_saved_tl(d["chopper_cards"]))


def _instant_from_dict(d: JSON | None) -> Instant | None:
    return None if d is None else Instant(d["type"], parse_saved_tl([d["top"]])[0])


def to_dict(state: HandState) -> JSON:
    return {
        "game": "tienlen",
        "rules": rules_to_dict(state.rules),
        "hands": [tl_strs(h) for h in state.hands],
        "turn": state.turn,
        "table": tl_strs(state.table),
        "table_owner": state.table_owner,
        "passed": list(state.passed),
        "round": state.round,
        "history": [
            {"player": m.player, "cards": tl_strs(m.cards), "round": m.round, "chop": m.chop}
            for m in state.history
        ],
        "chain": _chain_to_dict(state.chain),
        "settled": [payment_json(p) for p in state.settled],
        "left": list(state.left),
        "must_include": None if state.must_include is None else tl_str(state.must_include),
        "first": state.first,
        "winner": state.winner,
        "instant": None
        if state.instant is None
        else {"type": state.instant.type, "top": tl_str(state.instant.top)},
    }


def from_dict(data: JSON) -> HandState:
    try:
        return _from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise RulesError("bad_state", f"Not a Tiến Lên state: {exc}") from None


def _from_dict(data: JSON) -> HandState:
    if data.get("game") != "tienlen":
        raise ValueError("game is not tienlen")
    must = data["must_include"]
    return HandState(
        rules=rules_from_dict(data["rules"]),
        hands=tuple(parse_saved_tl(h) for h in data["hands"]),
        turn=data["turn"],
        table=parse_saved_tl(data["table"]),
        table_owner=data["table_owner"],
        passed=tuple(bool(x) for x in data["passed"]),
        round=data["round"],
        history=tuple(
            Move(m["player"], parse_saved_tl(m["cards"]), m["round"], m["chop"])
            for m in data["history"]
        ),
        chain=_chain_from_dict(data["chain"]),
        settled=tuple(payment_from_json(p) for p in data["settled"]),
        left=tuple(bool(x) for x in data["left"]),
        must_include=None if must is None else parse_saved_tl([must])[0],
        first=data["first"],
        winner=data["winner"],
        instant=_instant_from_dict(data["instant"]),
    )
