"""What each connected client is sent: its own seat's view, never more.

A committed change's :class:`Publication` builds the payloads after the
commit, outside the table lock (from the state the unit of work held): a
delta or a full state per recipient, sent through ``kernel.notify``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol

from accounts.models import User
from games import clock, sql
from games.changes import (
    Change,
    ChipsMoved,
    ClockSet,
    HandFinished,
    HandMoved,
    SeatLeft,
    SeatTaken,
    SeatUpdated,
    TableOpened,
    TableUpdated,
    events_of,
)
from games.limits import non_default_rules
from games.models import Hand, HandEvent, Invitation, Seat, Table
from games.plugins import plugin_for
from games.plugins.money import money_for
from games.protocol import VERSION as PROTOCOL_VERSION
from games.protocol import personal_patch, view_patch
from games.refs import SeatRef
from games.rules.game import Outcome, Status, payment_json
from kernel import notify
from kernel.notify import Message
from kernel.ops import metrics
from wallet.models import Account

if TYPE_CHECKING:
    from games.plugins import GamePlugin

LOBBY_GROUP = "lobby"


class SeatLike(Protocol):
    @property
    def position(self) -> int: ...
    @property
    def user_id(self) -> int: ...
    @property
    def ready(self) -> bool: ...


class EventLike(Protocol):
    @property
    def seq(self) -> int: ...
    @property
    def table_version(self) -> int: ...
    @property
    def type(self) -> str: ...
    @property
    def payload(self) -> Any: ...
    @property
    def visibility(self) -> str: ...
    @property
    def player(self) -> int | None: ...


@dataclass
class ActionTiming:
    """Set by the table socket while it handles an action: when it was received
    (perf_counter, and the wall clock as ``received_wall``) and its type. The
    first state that action publishes is measured against it
    (vipgame_action_state_seconds); later ones (the same action's presence
    update) are not. A move's (``act``) first state also carries
    ``received_wall`` to every recipient's socket, in whichever process, which
    measures its frame written (vipgame_move_fanout_seconds)."""

    received: float
    action: str
    claimed: bool = False
    received_wall: float | None = None


action_received: ContextVar[ActionTiming | None] = ContextVar("action_received", default=None)


def user_group(table_id: int, user_id: int) -> str:
    return f"table.{table_id}.user.{user_id}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


def chat_group(table_id: int) -> str:
    return f"table.{table_id}.all"


def lobby_user_group(user_id: int) -> str:
    """Every lobby socket of one user: the private tables they may find."""
    return f"lobby.user.{user_id}"


def epoch_ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def seats_with_chips(table: Table) -> list[Seat]:
    """The table's seats with their players and, as ``chips``, what each shows:
    the Hold'em stack on the seat, else the wallet balance (one statement)."""
    return sql.seats_with_chips(table, money_for(table).chips_source)


def seat_chips(table: Table, seats: Sequence[Seat]) -> dict[int, int]:
    """What each seat shows: the Hold'em stack on the seat, else the wallet balance."""
    if all(hasattr(s, "chips") for s in seats):
        shown = {s.position: getattr(s, "chips", None) for s in seats}
        return {position: chips for position, chips in shown.items() if chips is not None}
    source = money_for(table).chips_source
    if source == "seat":
        return {s.position: s.stack for s in seats if s.stack is not None}
    if source == "escrow":
        keys = {f"seat:{table.pk}:{s.position}": s.position for s in seats}
        stacks = Account.objects.filter(key__in=keys).values_list("key", "balance")
        return {keys[k]: b for k, b in stacks}
    users = {s.user_id: s.position for s in seats}
    wallets = Account.objects.filter(kind=Account.Kind.USER, user__in=users).values_list(
        "user_id", "balance"
    )
    return {users[u]: b for u, b in wallets if u is not None}


def table_identity(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "game": table.game,
        "name": table.name,
        "preset": table.preset,
        "stake": table.stake,
        "seat_count": table.seat_count,
        "private": table.is_private,
        "status": table.status,
        # Rule options that differ from the preset: shown before anyone sits.
        "rules": non_default_rules(table.game, table.preset, table.settings),
    }


def table_fields(table: Table) -> dict[str, Any]:
    """What the state shows of the table row itself (all of ``table`` but its seats)."""
    buy_in = money_for(table).buy_in_range(table)
    info: dict[str, Any] = {
        **table_identity(table),
        # The raise cap of a game that has one (the wire's field of old).
        "max_raise": table.settings.get("max_raise"),
        "buy_in": None if buy_in is None else list(buy_in),
        # "" (its game's own money) or a registered model's name ("tournament")
        "money": table.money,
        "hands_played": table.hands_played,
        "next_commitment": table.next_commitment,
    }
    if table.status == Table.Status.CLOSED:
        info["closed_reason"] = table.closed_reason
    return info


# The table's columns that ``table_fields`` shows (tests/services/test_deltas.py
# checks that no other column changes it): a change that touches none of them
# (a move: the version and the clock) leaves the fields as they were.
TABLE_SHOWN = (
    "game",
    "name",
    "preset",
    "stake",
    "seat_count",
    "is_private",
    "status",
    "settings",
    "hands_played",
    "next_commitment",
    "closed_reason",
    "money",  # (the buy-in range its money model shows)
)


def table_fields_changed(before: Table, after: Table) -> dict[str, Any]:
    """The fields of ``table_fields`` whose value changed from ``before``."""
    if all(getattr(before, name) == getattr(after, name) for name in TABLE_SHOWN):
        return {}
    return _changed(table_fields(before), table_fields(after))


def table_info(table: Table, seats: Sequence[Seat], chips: dict[int, int]) -> dict[str, Any]:
    return {
        **table_fields(table),
        "seats": [
            {
                "position": s.position,
                "user_id": s.user_id,
                "name": s.user.shown_name,
                "avatar": s.user.avatar_key,
                "bot": s.is_bot,
                "ready": s.ready,
                "connected": s.connected or s.is_bot,
                "sitting_out": s.sitting_out,
                "leaving": s.leaving,
                "leave_after_hand": s.leave_after_hand,
                "auto_ready": s.auto_ready,
                "chips": chips.get(s.position),
            }
            for s in seats
        ],
    }


def removed_info(reason: str, at: datetime) -> dict[str, Any]:
    """Why the viewer's seat at this table was freed (``Departure.Reason``) and when."""
    return {"reason": reason, "at": epoch_ms(at)}


def player_of_user(hand: Hand, user_id: int | None) -> int | None:
    """The index of this user among the hand's players (never by seat: whoever
    sits in a seat now may not be whoever was dealt there)."""
    if user_id is None:
        return None
    return next((i for i, p in enumerate(hand.players) if p["user_id"] == user_id), None)


def hand_players(hand: Hand) -> list[dict[str, Any]]:
    """The hand's players as dealt: who they are and where they sat then."""
    return [
        {
            "index": i,
            "position": p["position"],
            "user_id": p["user_id"],
            "name": p["name"],
            "bot": p["bot"],
        }
        for i, p in enumerate(hand.players)
    ]


def hand_result(game: str, unit: int, outcome: Outcome) -> dict[str, Any]:
    """A finished hand's result, the one shape (docs/protocol.md "Results"):
    ``net`` and ``payments`` in units of ``unit`` chips before anyone's cap;
    ``chips`` (what each player's wallet or stack really moved) once settled."""
    return {
        "game": game,
        "voided": False,
        "reason": None,
        "unit": unit,
        "net": list(outcome.net),
        "chips": None,
        "payments": [payment_json(p) for p in outcome.payments],
        "summary": dict(outcome.summary),
    }


def voided_result(game: str, unit: int, players: int, reason: str) -> dict[str, Any]:
    """The result of a hand voided when its table was closed: nothing moved."""
    return {
        "game": game,
        "voided": True,
        "reason": reason,
        "unit": unit,
        "net": [0] * players,
        "chips": [0] * players,
        "payments": [],
        "summary": None,
    }


def hand_info(hand: Hand | None, view: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if hand is None:
        return None
    # (``last_seq``: the hand's last event so far, a client opening the table
    # starts from it; ``client_seeds``: each player's seed for this hand and
    # whose it was, not secret: without the server seed they say nothing
    # about the deck.)
    return {"id": hand.pk, "players": hand_players(hand), "view": view, **hand_fields(hand)}


def hand_fields(hand: Hand) -> dict[str, Any]:
    """What the state shows of the hand row itself (``hand`` but its id,
    players and view)."""
    return {
        "number": hand.number,
        "last_seq": hand.event_count,
        "commitment": hand.commitment,
        "fair_id": hand.fair_id,
        "finished": hand.finished,
        "settled": hand.settled,
        "client_seeds": hand.client_seeds,
        "seed_sources": hand.seed_sources,
        "result": hand.result if hand.finished else None,
        "server_seed": hand.server_seed if hand.finished else None,
    }


def _for_actors(table: Table) -> bool:
    """The table's clock is its engine's and runs for the actors (a turn, an arrange)."""
    kind = plugin_for(table.game).engine.clocks.get(table.clock)
    return kind is not None and kind.for_actors


def clock_info(
    table: Table, seats: Sequence[SeatLike], hand: Hand | None, actors: Sequence[int]
) -> dict[str, Any] | None:
    """The running clock and the seats it runs for (their countdown rings): the
    actors still sitting where they were dealt, or the seats not ready yet."""
    if not table.clock or table.deadline is None:
        return None
    if table.clock == Table.Clock.READY:
        running = [s.position for s in seats if not s.ready]
    elif hand is not None and _for_actors(table):
        by_position = {s.position: s.user_id for s in seats}
        running = [
            hand.players[i]["position"]
            for i in actors
            if by_position.get(hand.players[i]["position"]) == hand.players[i]["user_id"]
        ]
    else:
        running = []
    return {
        "kind": table.clock,
        "started": epoch_ms(table.clock_started_at),
        "deadline": epoch_ms(table.deadline),
        "seats": running,
    }


def event_json(event: EventLike) -> dict[str, Any]:
    """An event as clients see it (its own fields never override seq, v and type)."""
    return {**event.payload, "seq": event.seq, "v": event.table_version, "type": event.type}


def visible_events(events: Iterable[EventLike], player: int | None) -> list[dict[str, Any]]:
    return [
        event_json(e)
        for e in events
        if e.visibility == HandEvent.Visibility.EVERYONE
        or (e.visibility == HandEvent.Visibility.SEAT and player is not None and e.player == player)
    ]


def state_payload(
    table: Table,
    seats: Sequence[Seat],
    chips: dict[int, int],
    hand: Hand | None,
    state: Any,
    viewer: Seat | None,
    events: Sequence[EventLike] = (),
    status: Status | None = None,
    public_view: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``state`` message for one viewer (a seat, or None for spectators).

    ``status`` and ``public_view`` (the spectators' view of ``state``) are the
    engine's when the caller has them (one per publication, not one per
    viewer)."""
    player = None
    if hand is not None and viewer is not None:
        player = player_of_user(hand, viewer.user_id)
    view = None
    actors: list[int] = []
    if hand is not None and state is not None:
        engine = plugin_for(table.game).engine
        if public_view is None:
            view = engine.view(state, player)
        elif player is None:
            view = public_view
        else:
            view = {**public_view, **engine.personal_view(state, player)}
        if not hand.finished:
            actors = list((status or engine.status(state)).actors)
    return {
        "type": "state",
        "protocol": PROTOCOL_VERSION,
        "v": table.version,
        "server_time": epoch_ms(clock.now()),
        "seat": None if viewer is None else viewer.position,
        "you": player,
        "actors": actors,
        "clock": clock_info(table, seats, hand, actors),
        "table": table_info(table, seats, chips),
        "hand": hand_info(hand, view),
        "events": visible_events(events, player),
        "resync": False,
    }


# What a change is published as (``decide``).
DELTA, SEAT_DELTA, FULL = "delta", "seat_delta", "full"
# The table's columns a lobby card shows (``lobby_entry``).
LOBBY_SHOWN = frozenset({*TABLE_SHOWN} - {"hands_played", "next_commitment", "closed_reason"})


def decide(changes: Sequence[Change]) -> str:
    """What a change is published as, by the kinds of change it declared:

    * ``DELTA``: moves of the running hand (and the hand's end), with the
      clock, the table's own fields and seat fields no state shows;
    * ``SEAT_DELTA``: seat fields a state shows, chips, the clock or the
      table's own fields, with the same players in the same seats and no
      hand changed;
    * ``FULL``: anything else (a deal, a seat taken or freed, a settlement).
    """
    moved = False
    seats_only = True
    hidden_seats = True
    for change in changes:
        if isinstance(change, HandMoved):
            moved, seats_only = True, False
        elif isinstance(change, HandFinished):
            seats_only = False
        elif isinstance(change, SeatUpdated):
            if change.shown:
                hidden_seats = False
        elif isinstance(change, ChipsMoved):
            hidden_seats = False
        elif not isinstance(change, ClockSet | TableUpdated):
            return FULL
    if moved and hidden_seats:
        return DELTA
    return SEAT_DELTA if seats_only else FULL


def lobby_changed(changes: Sequence[Change]) -> bool:
    """Whether the table's lobby card changed: seats taken or freed, a hand
    dealt or finished (its status), the table opened or its shown fields."""
    return any(
        isinstance(c, SeatTaken | SeatLeft | HandFinished | TableOpened)
        or (isinstance(c, TableUpdated) and not LOBBY_SHOWN.isdisjoint(c.fields))
        for c in changes
    )


@dataclass
class Publication:
    """What a committed table change tells whom, built after the commit
    (outside the table lock) from what the unit of work holds and the change
    record it declared (``changes``), whose kinds decide the messages
    (``decide``): a ``delta`` per recipient, one seat delta for all, or a
    full ``state`` per recipient. ``table_before`` and ``hand_before``: the
    rows as the unit of work loaded them (for what a delta says changed)."""

    table: Table
    plugin: GamePlugin
    seats: list[Seat] | None  # with their chips; loaded unless a delta
    refs: list[SeatRef]
    hand: Hand | None
    state: Any
    changes: Sequence[Change]
    # The engine's status of ``state`` when the change computed it (a move).
    status: Status | None = None
    table_before: Table | None = None
    hand_before: Hand | None = None

    @cached_property
    def kind(self) -> str:
        return decide(self.changes)

    @cached_property
    def events(self) -> list[Any]:
        return events_of(self.changes)

    @property
    def gone_users(self) -> dict[int, dict[str, Any]]:
        """User id: why they left (``removed_info``)."""
        gone = {c.user_id: c.removed for c in self.changes if isinstance(c, SeatLeft)}
        return dict(sorted(gone.items()))

    def _status(self) -> Status | None:
        if self.state is None:
            return None
        return self.status or self.plugin.engine.status(self.state)

    def messages(self) -> list[Message]:
        kind = self.kind
        if kind == DELTA:
            messages = self._deltas()
        elif kind == SEAT_DELTA:
            messages = self._seat_deltas()
        else:
            messages = self._states()
        # A private table's card goes only to the lobby sockets of those who
        # may find it (its owner, its invited players, whoever sat there),
        # never to the lobby's group.
        table = self.table
        if lobby_changed(self.changes):
            seats = self.refs if self.seats is None else self.seats
            message = {"type": "lobby.table", "table": lobby_entry(table, seats)}
            if not table.is_private:
                messages.append((LOBBY_GROUP, message))
            else:
                messages.extend(
                    (lobby_user_group(user_id), message)
                    for user_id in private_audience(table, seats, self.changes)
                )
        return messages

    def _states(self) -> list[Message]:
        table, seats, hand, state = self.table, self.seats, self.hand, self.state
        assert seats is not None
        chips = seat_chips(table, seats)
        engine = self.plugin.engine
        status = self._status()
        spectators = None if hand is None or state is None else engine.view(state, None)
        messages = [
            _personal(
                table,
                seat.user_id,
                state_payload(
                    table, seats, chips, hand, state, seat, self.events, status, spectators
                ),
            )
            for seat in seats
            if not seat.is_bot
        ]
        public = state_payload(
            table, seats, chips, hand, state, None, self.events, status, spectators
        )
        messages.append(_public(table, public))
        messages += [
            _personal(table, user_id, {**public, "removed": removed})
            for user_id, removed in self.gone_users.items()
        ]
        return messages

    def _delta_head(self, seats: Sequence[SeatLike]) -> dict[str, Any]:
        """What every delta starts with: its version and base, the time, who
        acts and the clock."""
        table, hand = self.table, self.hand
        actors: list[int] = []
        status = self._status()
        if hand is not None and status is not None and not hand.finished:
            actors = list(status.actors)
        return {
            "type": "delta",
            "v": table.version,
            "base": table.version - 1,
            "server_time": epoch_ms(clock.now()),
            "actors": actors,
            "clock": clock_info(table, seats, hand, actors),
        }

    def _seat_deltas(self) -> list[Message]:
        """The same delta for everyone: the clock, who acts, the table's
        fields that changed and its seats; no ``hand`` (it did not change)."""
        table, seats = self.table, self.seats
        assert seats is not None
        assert self.table_before is not None
        payload = {
            **self._delta_head(seats),
            "table": {
                **table_fields_changed(self.table_before, table),
                "seats": table_info(table, seats, seat_chips(table, seats))["seats"],
            },
            "events": [],
        }
        messages = [_personal(table, seat.user_id, payload) for seat in seats if not seat.is_bot]
        messages.append(_public(table, payload))
        return messages

    def _deltas(self) -> list[Message]:
        table, hand, state = self.table, self.hand, self.state
        # From the state the change started from (its first move's) to the last.
        before = next(c.before for c in self.changes if isinstance(c, HandMoved))
        assert hand is not None
        engine = self.plugin.engine
        common = self._delta_head(self.refs)
        # The table's and the hand's own fields that changed (a hand's end:
        # the status, the result, the seed), as they replace the state's.
        if self.table_before is not None:
            changed = table_fields_changed(self.table_before, table)
            if changed:
                common["table"] = changed
        hand_changed: dict[str, Any] = {}
        if self.hand_before is not None:
            hand_changed = _changed(hand_fields(self.hand_before), hand_fields(hand))
        patches: dict[int | None, dict[str, Any]] = {}
        # The spectators' views of the two states, and their patch, once; a
        # seat's patch adds only what it sees of its own (personal_patch).
        old_public, new_public = engine.view(before, None), engine.view(state, None)
        public_patch = view_patch(old_public, new_public)

        def delta(player: int | None) -> dict[str, Any]:
            if player not in patches:
                patch = public_patch
                if player is not None:
                    patch = personal_patch(
                        public_patch,
                        old_public,
                        new_public,
                        engine.personal_view(before, player),
                        engine.personal_view(state, player),
                    )
                patches[player] = {
                    **common,
                    "hand": {
                        **hand_changed,
                        "id": hand.pk,
                        "last_seq": hand.event_count,
                        "view": patch,
                    },
                    "events": visible_events(self.events, player),
                }
            return patches[player]

        messages = [
            _personal(table, ref.user_id, delta(player_of_user(hand, ref.user_id)))
            for ref in self.refs
            if not ref.is_bot
        ]
        messages.append(_public(table, delta(None)))
        return messages


def _changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``new`` whose value is not ``old``'s."""
    return {k: v for k, v in new.items() if old.get(k) != v}


def _personal(table: Table, user_id: int, payload: dict[str, Any]) -> Message:
    """A state or delta for one user's sockets at the table."""
    return user_group(table.pk, user_id), {
        "type": "table.state",
        "payload": payload,
        "personal": True,
    }


def _public(table: Table, payload: dict[str, Any]) -> Message:
    """A state or delta for the sockets of nobody seated (spectators)."""
    return public_group(table.pk), {"type": "table.state", "payload": payload}


def lobby_entry(table: Table, seats: Sequence[Seat] | Sequence[SeatRef]) -> dict[str, Any]:
    return {
        **table_identity(table),
        "taken": len(seats),
        "humans": sum(1 for s in seats if not s.is_bot),
        "players": lobby_players(seats),
    }


def private_audience(
    table: Table, seats: Sequence[Seat] | Sequence[SeatRef], changes: Sequence[Change] = ()
) -> list[int]:
    """Whose lobby sockets hear of a private table: its owner, its invited
    players (``Invitation``), the people seated there and those whose seat
    this change freed."""
    people = {s.user_id for s in seats if not s.is_bot}
    left = {c.user_id for c in changes if isinstance(c, SeatLeft)} - people
    if left:
        people |= set(User.objects.filter(pk__in=left, is_bot=False).values_list("pk", flat=True))
    people |= set(Invitation.objects.filter(table_id=table.pk).values_list("user_id", flat=True))
    if table.owner_id is not None:
        people.add(table.owner_id)
    return sorted(people)


def lobby_players(seats: Sequence[Seat | SeatRef]) -> list[dict[str, Any]]:
    """Who sits, in seat order: what a lobby card shows of them. Seats in short
    (a hand's end) name their users in one query."""
    users = {s.user_id: s.user for s in seats if isinstance(s, Seat)}
    missing = [s.user_id for s in seats if s.user_id not in users]
    if missing:
        users |= User.objects.only("username", "display_name", "avatar").in_bulk(missing)
    return [
        {
            "position": s.position,
            "user_id": s.user_id,
            "name": users[s.user_id].shown_name,
            "avatar": users[s.user_id].avatar_key,
            "bot": s.is_bot,
        }
        for s in sorted(seats, key=lambda seat: seat.position)
        if s.user_id in users
    ]


def encoded(messages: Sequence[Message]) -> list[Message]:
    """Table states and deltas as the channel layer carries them: the JSON
    text the sockets send as it is (encoded once per payload, not once per
    socket) with the few fields a socket reads (``v``, ``base``, ``seat``)."""
    texts: dict[int, str] = {}
    out: list[Message] = []
    for group, message in messages:
        payload = message.get("payload")
        if message.get("type") == "table.state" and isinstance(payload, dict):
            key = id(payload)
            if key not in texts:
                texts[key] = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            message = {
                "type": "table.state",
                "personal": bool(message.get("personal")),
                "kind": payload["type"],
                "v": payload["v"],
                "base": payload.get("base"),
                "seat": payload.get("seat"),
                "text": texts[key],
            }
        out.append((group, message))
    return out


def send(messages: Sequence[Message], *, game: str = "") -> None:
    """Send a table change's messages (after commit, best effort: a client that
    misses one resyncs by version) through the one notification path.

    The first table state published by a socket's action in ``game`` is
    measured from the action's arrival to the end of this publication.
    """
    timing = action_received.get()
    sent = None
    out = encoded(messages)
    if timing is not None and not timing.claimed and game:
        timing.claimed = True
        started, action = timing.received, timing.action

        def sent() -> None:
            metrics.action_published(game, action, time.perf_counter() - started)

        if action == "act" and timing.received_wall is not None:
            out = stamped(out, timing.received_wall, game)
    notify.send(out, sent=sent)


def stamped(messages: Sequence[Message], received_wall: float, game: str) -> list[Message]:
    """A move's states and deltas with the moment the move was received (the
    wall clock: the recipient's socket may be in another process, or host) and
    its game, for the recipient's socket to observe once its frame is written
    (``vipgame_move_fanout_seconds``). In the channel layer's event only: the
    frame sent to the client (``text``) stays as it was."""
    return [
        (group, {**message, "moved_at": received_wall, "game": game})
        if message.get("type") == "table.state"
        else (group, message)
        for group, message in messages
    ]
