"""Hand histories in the PHH format (uoftcprg phh-std, variant ``NT``).

PHH lists players from the first seat after the button, so its ``pK`` is
our player ``(button + K) % n`` and the button is always the last player
(heads-up: p1 is the big blind, p2 the button and small blind). ``seats``
keeps our player numbers (1-based) so an import maps players back.

Hole cards are written only where the reader may know them: shown hands,
the viewer's own cards, or all of them for the house archive
(``reveal_all``); the rest are ``????``. A player who left the table folds
out of turn in our engine, which PHH cannot express; such a fold is written
where it happened with the commentary ``left the table`` (pokerkit refuses
it; our importer replays it as a leave).

A hand whose big blind was posted short replays in pokerkit with the short
amount as the call, while ``short_blind_full_call`` (docs/rules.md 4) makes callers
match the full big blind: the import replays ``cc`` as a call of what our
ruleset asks.

A tournament hand (a level's blinds in chips and an ante) writes ``antes``
and ``blinds_or_straddles`` with the chips of the level and the table's
stake as ``_stake``; without ``_stake`` the import expects the stake's
blinds and no antes.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from ..cards import Card, card_str, parse_card
from ..errors import RulesError
from . import betting
from .rules import PRESETS, HoldemRules
from .state import HandState, Record

LEFT = "left the table"
TIMEOUT = "timeout"
UNKNOWN = "????"


def phh_player(state: HandState, player: int) -> int:
    """PHH's 1-based player number of our player."""
    return (player - state.button - 1) % state.players + 1


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)


def _seconds(ms: int) -> int | float:
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


def _action_line(state: HandState, record: Record) -> str:
    who = f"p{phh_player(state, record['player'])}"
    kind = record["action"]
    line = {"fold": f"{who} f", "raise": f"{who} cbr {record['to']}"}.get(kind, f"{who} cc")
    if record.get("left"):
        return f"{line} # {LEFT}"
    if record.get("timeout"):
        return f"{line} # {TIMEOUT}"
    return line


def _hole_text(state: HandState, player: int, viewer: int | None, reveal_all: bool) -> str:
    if reveal_all or state.shown[player] or player == viewer:
        return "".join(card_str(c) for c in state.hole[player])
    return UNKNOWN


def _unasked(state: HandState) -> set[int]:
    """The log indices of the checks our engine made for a player whom PHH
    (pokerkit) does not ask at all: their bet already covers every other live
    player's chips (a short stack all-in on its ante or blind, say)."""
    stacks = list(state.start_stacks)
    bets = [0] * state.players
    folded = [False] * state.players
    unasked: set[int] = set()
    for index, record in enumerate(state.log):
        kind = record["kind"]
        if kind in ("ante_posted", "blind_posted", "acted", "uncalled_returned"):
            player = record["player"]
            sign = -1 if kind == "uncalled_returned" else 1
            stacks[player] -= sign * record["amount"]
            if kind != "ante_posted":
                bets[player] += sign * record["amount"]
        if kind == "board_dealt":
            bets = [0] * state.players
        if kind != "acted":
            continue
        if record["action"] == "fold":
            folded[player] = True
        elif record.get("auto"):
            others = [
                bets[q] + stacks[q] for q in range(state.players) if q != player and not folded[q]
            ]
            if bets[player] >= max(others):
                unasked.add(index)
    return unasked


def phh_actions(state: HandState, viewer: int | None = None, reveal_all: bool = False) -> list[str]:
    order = [(state.button + 1 + k) % state.players for k in range(state.players)]
    lines = [
        f"d dh p{k + 1} {_hole_text(state, p, viewer, reveal_all)}" for k, p in enumerate(order)
    ]
    unasked = _unasked(state)
    for index, record in enumerate(state.log):
        kind = record["kind"]
        if kind == "acted":
            if index not in unasked:
                lines.append(_action_line(state, record))
        elif kind == "board_dealt":
            lines.append("d db " + "".join(record["cards"]))
        elif kind == "cards_shown":
            lines.append(f"p{phh_player(state, record['player'])} sm " + "".join(record["cards"]))
    return lines


def export_phh(
    state: HandState,
    viewer: int | None = None,
    *,
    reveal_all: bool = False,
    hand: str | int | None = None,
    names: Sequence[str] | None = None,
) -> str:
    """The hand as PHH text, for a player (``viewer``), the public, or the archive.

    ``hand`` is the hand's number or id and ``names`` the players' names in our
    player order, both optional.
    """
    if not state.finished:
        raise RulesError("hand_not_finished", "Only finished hands are exported")
    n = state.players
    order = [(state.button + 1 + k) % n for k in range(n)]
    start = state.log[0]
    blinds = [state.small_blind_chips, state.big_blind_chips] + [0] * (n - 2)
    won: list[int] = [0] * n
    for record in state.log:
        if record["kind"] == "pot_awarded":
            for player, share in zip(record["winners"], record["shares"], strict=True):
                won[player] += share
    fields: list[tuple[str, Any]] = [("variant", "NT")]
    if state.ante:
        # Our antes count in the pots as any chip put in (a short ante makes a
        # side pot): PHH's "trimming" (without it, all antes go to the main pot).
        fields.append(("ante_trimming_status", True))
    fields += [
        ("antes", [state.ante] * n),
        ("blinds_or_straddles", blinds),
        ("min_bet", state.big_blind_chips),
        ("starting_stacks", [state.start_stacks[p] for p in order]),
        ("actions", phh_actions(state, viewer, reveal_all)),
    ]
    if hand is not None:
        fields.append(("hand", hand))
    if names is not None:
        if len(names) != n:
            raise RulesError("bad_request", f"names must list {n} players")
        fields.append(("players", [str(names[p]) for p in order]))
    fields += [
        ("seats", [p + 1 for p in order]),
        ("finishing_stacks", [state.stacks[p] for p in order]),
        ("winnings", [won[p] for p in order]),
        ("time_limit", _seconds(state.rules.action_clock_ms)),
        ("time_banks", [_seconds(start["time_banks_ms"][p]) for p in order]),
    ]
    if state.max_raise is not None:
        fields.append(("_max_raise", state.max_raise))
    if state.blinds is not None or state.ante:
        # (a tournament level's blinds and ante, not the stake's units)
        fields.append(("_stake", state.stake))
    lines = []
    for key, value in fields:
        if key == "actions":
            lines.append("actions = [")
            lines += [f"  {_toml_value(line)}," for line in value]
            lines.append("]")
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


# -- import ------------------------------------------------------------------


@dataclass(frozen=True)
class PhhAction:
    """One line of ``actions``: actor ``d`` or ``pN``, verb (``dh``, ``db``, ``f``, ``cc``,
    ``cbr``, ``sm``), its argument (cards or an amount) and any commentary."""

    actor: str
    verb: str
    argument: str | None
    commentary: str | None


def parse_line(line: str) -> PhhAction | None:
    """One action notation; None for a no-op (blank or commentary only)."""
    text, _, comment = line.partition("#")
    words = text.split()
    commentary = comment.strip() or None
    if not words:
        return None
    if len(words) not in (2, 3, 4):
        raise RulesError("bad_phh", f"Cannot read the PHH action {line!r}")
    if words[0] == "d":
        if words[1] == "dh" and len(words) == 4:
            return PhhAction(words[2], "dh", words[3], commentary)
        if words[1] == "db" and len(words) == 3:
            return PhhAction("d", "db", words[2], commentary)
        raise RulesError("bad_phh", f"Cannot read the PHH action {line!r}")
    if len(words) == 4:
        raise RulesError("bad_phh", f"Cannot read the PHH action {line!r}")
    return PhhAction(words[0], words[1], words[2] if len(words) > 2 else None, commentary)


def _cards(text: str) -> list[Card | None]:
    if len(text) % 2:
        raise RulesError("bad_phh", f"Cannot read the cards {text!r}")
    return [
        None if text[i : i + 2] == "??" else parse_card(text[i : i + 2])
        for i in range(0, len(text), 2)
    ]


def _player_number(actor: str, players: int) -> int:
    if not actor.startswith("p") or not actor[1:].isdigit() or not 1 <= int(actor[1:]) <= players:
        raise RulesError("bad_phh", f"Unknown PHH player {actor!r}")
    return int(actor[1:]) - 1


@dataclass(frozen=True)
class _Table:
    players: int
    stake: int
    ours: tuple[int, ...]
    button: int
    stacks: tuple[int, ...]
    max_raise: int | None
    blinds: tuple[int, int] | None = None
    ante: int = 0


def _ints(value: object) -> TypeGuard[list[int]]:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )


def _read_table(data: dict[str, Any], rules: HoldemRules) -> _Table:
    if data.get("variant") != "NT":
        raise RulesError("bad_phh", "Only no-limit Texas hold'em (variant NT) is supported")
    stacks = data.get("starting_stacks")
    if not _ints(stacks) or not stacks:
        raise RulesError("bad_phh", "starting_stacks must list whole chip counts")
    n = len(stacks)
    blinds = data.get("blinds_or_straddles")
    if not _ints(blinds) or len(blinds) != n or blinds[0] <= 0:
        raise RulesError("bad_phh", "blinds_or_straddles must give the blinds")
    antes = data.get("antes")
    own_stake = data.get("_stake")
    if own_stake is None:
        # a cash table's hand: the stake's blinds, no antes
        stake = blinds[0] // rules.small_blind_units
        expected = [stake * rules.small_blind_units, stake * rules.big_blind_units]
        ante = 0
        if blinds != expected + [0] * (n - 2) or antes != [0] * n:
            raise RulesError("bad_phh", "Only the table's small and big blind, without antes")
    else:
        # a tournament level's blinds and ante (our export writes its _stake)
        if not _ints([own_stake]) or own_stake < 1:
            raise RulesError("bad_phh", "_stake must be a whole number of chips")
        stake, expected = own_stake, blinds[:2]
        if blinds != expected + [0] * (n - 2) or not 0 < expected[0] <= expected[1]:
            raise RulesError("bad_phh", "Only the level's small and big blind, without straddles")
        if not _ints(antes) or len(antes) != n or len(set(antes)) != 1 or antes[0] < 0:
            raise RulesError("bad_phh", "antes must be one ante for every player")
        ante = antes[0]
    if data.get("min_bet") != expected[1]:
        raise RulesError("bad_phh", f"min_bet must be the big blind ({expected[1]})")
    seats = data.get("seats", list(range(1, n + 1)))
    if not _ints(seats):
        raise RulesError("bad_phh", "seats must list whole numbers")
    ours = tuple(s - 1 for s in seats)
    if sorted(ours) != list(range(n)):
        raise RulesError("bad_phh", "seats must number the players 1 to n")
    if any(ours[k] != (ours[-1] + 1 + k) % n for k in range(n)):
        raise RulesError("bad_phh", "seats must follow the order of play from the button")
    max_raise = data.get("_max_raise")
    if max_raise is not None and not _ints([max_raise]):
        raise RulesError("bad_phh", "_max_raise must be a whole number of units")
    by_player = tuple(stacks[ours.index(p)] for p in range(n))
    derived = [stake * rules.small_blind_units, stake * rules.big_blind_units]
    given = None if expected == derived else (expected[0], expected[1])
    return _Table(n, stake, ours, ours[-1], by_player, max_raise, given, ante)


def _deck(table: _Table, actions: Sequence[PhhAction]) -> list[Card]:
    """Known cards where the history has them; unknown ones filled from the unused cards."""
    hole: list[list[Card | None]] = [[None, None] for _ in range(table.players)]
    board: list[Card] = []
    for action in actions:
        if action.verb in ("dh", "sm") and action.argument not in (None, "-"):
            player = table.ours[_player_number(action.actor, table.players)]
            cards = _cards(action.argument or "")
            if len(cards) != 2:
                raise RulesError("bad_phh", f"A hold'em hand has 2 cards, not {action.argument!r}")
            for i, card in enumerate(cards):
                if card is not None:
                    hole[player][i] = card
        elif action.verb == "db":
            board += [c for c in _cards(action.argument or "") if c is not None]
    used = {c for pair in hole for c in pair if c is not None} | set(board)
    spare: Iterator[Card] = iter(c for c in range(52) if c not in used)
    dealt = [c if c is not None else next(spare) for pair in hole for c in pair]
    board += [next(spare) for _ in range(5 - len(board))]
    rest = [c for c in range(52) if c not in set(dealt) | set(board)]
    return dealt + board + rest


def import_phh(text: str, rules: HoldemRules = PRESETS["vipgame"]) -> HandState:
    """Replay a PHH hand history in our engine and return the final (or last) state."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError("bad_phh", f"Not TOML: {exc}") from None
    table = _read_table(data, rules)
    lines = data.get("actions", [])
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise RulesError("bad_phh", "actions must be a list of strings")
    actions = [a for a in (parse_line(line) for line in lines) if a is not None]
    setup = {
        "stake": table.stake,
        "max_raise": table.max_raise,
        "button": table.button,
        "stacks": list(table.stacks),
    }
    if table.blinds is not None:
        setup["blinds"] = list(table.blinds)
    if table.ante:
        setup["ante"] = table.ante
    state = betting.start_hand(rules, _deck(table, actions), table.players, setup)
    replayed = 0
    for action in actions:
        if action.verb in ("dh", "db", "sm"):
            continue
        player = table.ours[_player_number(action.actor, table.players)]
        pending = [r for r in state.log if r["kind"] == "acted"][replayed:]
        replayed += len(pending)
        if pending and action.verb == "cc" and pending[0]["player"] == player:
            continue  # the check our engine made for a player with nothing to decide
        state = _replay(state, player, action)
        replayed += 1
    return state


def _replay(state: HandState, player: int, action: PhhAction) -> HandState:
    if action.verb == "f" and (action.commentary == LEFT or state.to_act != player):
        return betting.leave(state, player)
    if action.commentary == TIMEOUT and state.to_act == player:
        return betting.time_out(state)
    if action.verb == "f":
        move: dict[str, Any] = {"type": "fold"}
    elif action.verb == "cc":
        move = {"type": "call" if betting.call_amount(state, player) else "check"}
    elif action.verb == "cbr" and action.argument is not None and action.argument.isdigit():
        move = {"type": "raise", "to": int(action.argument)}
    else:
        raise RulesError("bad_phh", f"Unsupported PHH action {action.verb!r}")
    return betting.act(state, player, move)
