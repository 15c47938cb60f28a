"""The unit of work of one table service call.

Every table service opens one :class:`TableWork` inside ``transaction.atomic``.
It locks the table row and loads what the call reads (seats, the hand and its
engine state) on first use. Every change of the table goes through one of its
typed operations (a seat taken, freed or updated; a hand dealt, moved,
finished, settled or voided; the clock; the table's own fields), which bumps
the version once per call and appends a declared change to its record
(``games.changes``). :meth:`TableWork.commit` writes everything through the
one writer (``games.sql.write``) and hands the record to the publisher, which
decides by the kinds of change what to send (``games.publish.decide``); it
returns the after-commit work as data (:class:`games.aftercommit.AfterCommit`),
registered with ``transaction.on_commit`` to be run by
:func:`games.aftercommit.run`. Nothing else writes a table, its seats or its
hands.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F

from accounts.models import User
from games import aftercommit, clock, publish, sql, thinking
from games.aftercommit import AfterCommit
from games.changes import (
    SEAT_SHOWN,
    Change,
    ChipsMoved,
    ClockSet,
    HandDealt,
    HandFinished,
    HandMoved,
    HandSettled,
    HandVoided,
    SeatLeft,
    SeatTaken,
    SeatUpdated,
    TableOpened,
    TableUpdated,
    UndeclaredChange,
)
from games.errors import AccountInactive, NotSeated, TableNotFound
from games.models import Hand, HandEvent, HandPlayer, Seat
from games.plugins import GamePlugin, plugin_for
from games.plugins.money import MoneyModel, money_for
from games.publish import Publication
from games.refs import EventRecord, SeatRef, seat_ref
from games.rules.game import Event, Status
from kernel.ops import context
from push import notices as push_notices
from push.notices import Notice

REF_FIELDS = frozenset(f.name for f in dataclasses.fields(SeatRef))
_SHOWN = tuple(sorted(SEAT_SHOWN))
# The hand's current state and the seats, not read yet.
_UNREAD: Any = object()


def _shown(seat: Seat) -> tuple[Any, ...]:
    return tuple(getattr(seat, name) for name in _SHOWN)


class TableWork:
    def __init__(self, table_id: int) -> None:
        # One statement, no ORM query compilation (games.sql): the table row,
        # locked. Only the columns that change are written back.
        table = sql.lock_table(table_id)
        if table is None:
            raise TableNotFound()
        self.table = table
        self._saved = sql.table_values(table)
        context.bind(table=table.pk, hand=table.current_hand_id)  # for log lines
        self.plugin: GamePlugin = plugin_for(table.game)
        # Its game's, or the one the table names (a tournament's chips).
        self.money: MoneyModel = money_for(table)
        self._seats: list[Seat] | None = None
        # What the seats read in full showed (to check that every change of it
        # was declared: ``_check_declared``).
        self._seats_shown: dict[int, tuple[Any, ...]] = {}
        # Read after the lock, not joined to it: in READ COMMITTED a joined row
        # can be an older version than the table row we waited to lock.
        self._hand: Hand | None = _UNREAD
        self._state: Any = None
        self._status: Status | None = None  # of ``_state``, when a move computed it
        self._refs: list[SeatRef] | None = None
        self._hand_before: Hand | None = None
        # What the change writes (games.sql.write): {seat id: {field: value}},
        # {hand id: the hand and the names of its changed fields}, events.
        self._seat_writes: dict[int, dict[str, Any]] = {}
        self._hand_writes: dict[int, tuple[Hand, dict[str, None]]] = {}
        self._events: list[EventRecord] = []
        # What it changed, declared: written, then handed to the publisher.
        self.changes: list[Change] = []
        self._bots_to_move: set[int] = set()
        self._bots_to_ready: set[int] = set()
        # Push notices by (kind, user id): a later one of a kind replaces
        # (a turn's: the players whose move it is now).
        self._push: dict[tuple[str, int], None] = {}
        self._after = AfterCommit(table_id=table.pk, game=table.game)

    # -- reading -------------------------------------------------------------

    @property
    def seats(self) -> list[Seat]:
        if self._seats is None:
            # With their chips: the balances they show only change when chips
            # move, and whoever moves them declares it (``chips_moved``).
            self._seats = list(publish.seats_with_chips(self.table))
            self._show_pending(self._seats)
            self._seats_shown = {s.pk: _shown(s) for s in self._seats}
        return self._seats

    def _forget_seats(self) -> None:
        self._check_declared()
        self._seats = None
        self._refs = None

    @property
    def refs(self) -> list[SeatRef]:
        """The seats in short (who sits where, bot, active, ready): what a move
        needs, without the players' names or chips."""
        if self._refs is None:
            if self._seats is not None:
                self._refs = [seat_ref(s) for s in self._seats]
            else:
                self._refs = sql.seat_refs(self.table.pk)
                if self._seat_writes:
                    self._refs = [
                        dataclasses.replace(ref, **self._pending_of(ref.id)) for ref in self._refs
                    ]
        return self._refs

    def _show_pending(self, seats: list[Seat]) -> None:
        """Seats with what this unit of work will write to them: seats read
        anew (after chips moved) must show it to the rest of the work, and a
        full state must show it."""
        for seat in seats:
            for name, value in self._seat_writes.get(seat.pk, {}).items():
                setattr(seat, name, value)

    def _pending_of(self, seat_id: int) -> dict[str, Any]:
        """``_show_pending`` for a seat in short: the changes to its fields."""
        changes = self._seat_writes.get(seat_id, {})
        return {k: v for k, v in changes.items() if k in REF_FIELDS}

    def load_move(self, user_id: int | None = None) -> None:
        """The current hand, its state and the seats in short, in one
        statement (a move's read). ``user_id``: whose recent client ids to read."""
        if self._hand is not _UNREAD:
            return
        hand, refs = sql.hand_and_refs(self.table, user_id)
        self._refs = refs
        self._loaded(hand)

    def _loaded(self, hand: Hand | None) -> None:
        self._hand = hand
        if hand is not None:
            self._state = self.plugin.engine.loads(hand.state)
            self._hand_before = sql.clone(hand)

    def seat_of(self, user: User) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user.pk), None)

    def require_ref(self, user: User) -> SeatRef:
        """The user's seat in short; an inactive (banned) account may not act."""
        ref = next((r for r in self.refs if r.user_id == user.pk), None)
        if ref is None:
            raise NotSeated()
        if not ref.active:
            raise AccountInactive()
        return ref

    def require_seat(self, user: User) -> Seat:
        """The user's seat, read with the user in the seats' one query: a
        deactivated (banned) account may not act (``AccountInactive``)."""
        seat = self.seat_of(user)
        if seat is None:
            raise NotSeated()
        if not seat.user.is_active:
            raise AccountInactive()
        return seat

    @property
    def hand(self) -> Hand | None:
        if self._hand is _UNREAD:
            hand_id = self.table.current_hand_id
            # (a prepared statement, not the ORM: a seat's presence, a ready)
            self._loaded(None if hand_id is None else sql.read_hand(hand_id))
        return self._hand

    @property
    def state(self) -> Any:
        """The current hand's engine state (None without a hand)."""
        self.hand  # noqa: B018 - loads the hand and its state on first use
        return self._state

    def hand_refs(self) -> list[SeatRef]:
        """The seats (in short) of the current hand's players, in player order
        (a player's seat is kept until the hand is settled)."""
        assert self.hand is not None
        by_position = {r.position: r for r in self.refs}
        return [by_position[p["position"]] for p in self.hand.players]

    def player_index(self, seat: Seat | SeatRef) -> int | None:
        if self.hand is None:
            return None
        # By the player, not the seat: a seat's new occupant was not dealt in.
        return publish.player_of_user(self.hand, seat.user_id)

    def in_current_hand(self, seat: Seat) -> bool:
        hand = self.hand
        return hand is not None and not hand.settled and self.player_index(seat) is not None

    # -- changing: every change is one of these operations ----------------------

    def _declare(self, change: Change) -> None:
        self.changes.append(change)
        self._bump()

    def _bump(self) -> None:
        """The table's version, once per call (every operation but a change of
        seat fields that no state shows bumps it)."""
        if self.table.version == self._saved["version"]:
            self.table.version += 1

    def _bumped(self) -> bool:
        return bool(self.table.version != self._saved["version"])

    # The table row.

    def open_table(self) -> None:
        """A table just created: its first version."""
        self._declare(TableOpened())

    def update_table(self, **fields: Any) -> None:
        """Columns of the table row (its status, the hands played, the next
        commitment, a closing's reason, the version a move must be based on,
        what its game carries between hands)."""
        for name, value in fields.items():
            setattr(self.table, name, value)
        self._declare(TableUpdated(frozenset(fields)))

    def set_clock(self, kind: str, ms: int) -> None:
        now = clock.now()
        table = self.table
        table.clock = kind
        table.clock_started_at = now
        table.deadline = now + timedelta(milliseconds=ms)
        table.clock_version += 1
        self._declare(ClockSet(kind, table.deadline))

    def clear_clock(self) -> None:
        table = self.table
        if table.deadline is not None or table.clock:
            table.clock = ""
            table.deadline = None
            table.clock_started_at = None
            table.clock_version += 1
            self._declare(ClockSet("", None))

    # The seats.

    def seat_take(self, **fields: Any) -> Seat:
        """A new seat at this table (``Seat``'s fields)."""
        seat = Seat.objects.create(table=self.table, **fields)
        self._forget_seats()
        self._declare(SeatTaken(seat.pk, seat.position, seat.user_id))
        return seat

    def seat_free(self, seat: Seat, removed: dict[str, Any]) -> None:
        """The seat is freed; its user is told why (``publish.removed_info``)."""
        seat_id = seat.pk
        seat.delete()
        self._seat_writes.pop(seat_id, None)
        self._forget_seats()
        self._declare(SeatLeft(seat_id, seat.position, seat.user_id, removed))

    def update_seat(self, seat: Seat | SeatRef, **fields: Any) -> None:
        """Fields of one seat, written with the change (and shown at once on
        ``seat`` when it is read in full)."""
        if isinstance(seat, SeatRef):
            self.update_seats({seat.id: fields})
            return
        for name, value in fields.items():
            setattr(seat, name, value)
        self.update_seats({seat.pk: fields})

    def update_seats(self, changes: dict[int, dict[str, Any]]) -> None:
        """Seat fields to write with the change: ``{seat id: {field: value}}``,
        shown at once on the seats read in full. A change of a field that no
        state shows (a move's client ids, a seed, a hold) does not bump the
        version by itself."""
        for seat_id, fields in changes.items():
            if not fields:
                continue
            self._seat_writes.setdefault(seat_id, {}).update(fields)
            for seat in self._seats or ():
                if seat.pk == seat_id:
                    for name, value in fields.items():
                        setattr(seat, name, value)
            change = SeatUpdated(seat_id, frozenset(fields))
            if change.shown:
                self._declare(change)
            else:
                self.changes.append(change)

    def chips_moved(self) -> None:
        """The chips the seats show changed (a buy-in, a settlement): they are
        read anew."""
        self._forget_seats()
        self._declare(ChipsMoved())

    def remember_client_id(self, ref: SeatRef, client_id: str, kept: int) -> None:
        """Written with the move (the seat's recent client ids: a repeat is
        acknowledged, not applied twice; the player is here: no time-outs in a row)."""
        fields: dict[str, Any] = {"recent_client_ids": [*ref.recent_client_ids, client_id][-kept:]}
        if ref.timeouts:
            fields["timeouts"] = 0
        self.update_seats({ref.id: fields})

    def timed_out(self, refs: list[SeatRef]) -> None:
        """These players' clock ran out: one more time-out in a row each, and
        one more in this hand's history (``HandPlayer.timeouts``)."""
        self.update_seats({ref.id: {"timeouts": ref.timeouts + 1} for ref in refs})
        if self.table.current_hand_id is not None:
            HandPlayer.objects.filter(
                hand_id=self.table.current_hand_id, user_id__in=[ref.user_id for ref in refs]
            ).update(timeouts=F("timeouts") + 1)

    # The hand.

    def _write_hand(self, hand: Hand, *names: str) -> None:
        written = self._hand_writes.setdefault(hand.pk, (hand, {}))[1]
        written.update(dict.fromkeys(names))

    def _events_of(self, hand: Hand, events: Sequence[Event]) -> tuple[EventRecord, ...]:
        """The events, numbered in the hand and recorded at the new version."""
        records = []
        for event in events:
            hand.event_count += 1
            records.append(
                EventRecord(
                    seq=hand.event_count,
                    table_version=self.table.version,
                    type=event.type,
                    payload=event.data,
                    visibility=(
                        HandEvent.Visibility.EVERYONE
                        if event.seat is None
                        else HandEvent.Visibility.SEAT
                    ),
                    player=event.seat,
                )
            )
        self._events += records
        if records:
            self._write_hand(hand, "event_count")
        return tuple(records)

    def deal(
        self,
        hand: Hand,
        players: list[HandPlayer],
        state: Any,
        events: Sequence[Event],
        status: Status,
    ) -> None:
        """A new hand (not saved yet) with its players, dealt: the table's
        current hand, its first events recorded (``status``: the engine's of
        ``state``)."""
        hand.save(force_insert=True)
        for player in players:
            player.hand = hand
        HandPlayer.objects.bulk_create(players)
        self._bump()
        self.table.current_hand = hand
        self._hand, self._state, self._status = hand, state, status
        context.bind(hand=hand.pk)
        self._declare(HandDealt(hand.pk, self._events_of(hand, events)))

    def move(self, state: Any, events: Sequence[Event], status: Status) -> None:
        """The running hand's state changed (a move, a bot's move, a time-out,
        a player leaving): ``status`` is the engine's of ``state``."""
        hand = self.hand
        assert hand is not None
        self._bump()
        before, self._state, self._status = self._state, state, status
        self._write_hand(hand, "state")
        self._declare(HandMoved(hand.pk, before, state, self._events_of(hand, events), status))

    def finish_hand(self, result: dict[str, Any]) -> None:
        """The running hand ended with ``result``: settled later."""
        hand = self.hand
        assert hand is not None
        hand.ended_at = clock.now()
        hand.result = result
        self._write_hand(hand, "ended_at", "result")
        self._after.finished = True
        self._bots_to_move = set()
        self.push_notice(push_notices.TURN, set())
        self.settle_later(hand.pk)
        self._declare(HandFinished(hand.pk))

    def settle_hand(self, hand: Hand, chips: list[int]) -> None:
        """The finished hand (its row locked) is settled: what each player's
        chips really moved."""
        hand.settled = True
        hand.settled_at = clock.now()
        hand.result = {**(hand.result or {}), "chips": chips}
        self._write_hand(hand, "settled", "settled_at", "result")
        sql.set_nets(hand.pk, chips)
        if hand.pk == self.table.current_hand_id:
            self._hand, self._state = hand, self.plugin.engine.loads(hand.state)
            self._status = None
        self._declare(HandSettled(hand.pk))

    def void_hand(self, result: dict[str, Any]) -> None:
        """The running hand is voided (its table closed): nothing moved."""
        hand = self.hand
        assert hand is not None
        hand.ended_at = clock.now()
        hand.voided = hand.settled = True
        hand.settled_at = hand.ended_at
        hand.result = result
        self._write_hand(hand, "ended_at", "voided", "settled", "settled_at", "result")
        self._declare(HandVoided(hand.pk))

    # -- what the change calls for after commit --------------------------------

    def bots_to_move(self, positions: set[int]) -> None:
        """The bots whose move it is now (replaces any earlier set)."""
        self._bots_to_move = set(positions)

    def push_notice(self, kind: str, user_ids: set[int]) -> None:
        """Tell these players (after commit, if they want push): ``turn`` (their
        move now: replaces any earlier set) or ``hand`` (a hand is about to start)."""
        if kind == push_notices.TURN:
            self._push = {key: None for key in self._push if key[0] != push_notices.TURN}
        self._push.update({(kind, uid): None for uid in sorted(user_ids)})

    def bot_to_ready(self, position: int) -> None:
        self._bots_to_ready.add(position)

    def settle_later(self, hand_id: int) -> None:
        self._after.settle = hand_id

    def moved_by(self, kind: str) -> None:
        """For the metrics: a move by a player, a bot or a time-out."""
        self._after.move_by = kind

    def timer_fired(self, kind: str, lateness_s: float) -> None:
        self._after.timer_lateness = (kind, lateness_s)

    def _bot_delay(self) -> int:
        low, high = (
            self.table.bot_delay_ms,
            max(self.table.bot_delay_max_ms, self.table.bot_delay_ms),
        )
        return random.randint(low, high)  # think time, not a secret

    def unit(self) -> int:
        """Chips per unit of a result: the stake, or 1 where results are in chips."""
        return self.table.stake if self.plugin.pays_in_units else 1

    @contextlib.contextmanager
    def attempt(self) -> Iterator[None]:
        """A part of the change that may fail and be undone (a savepoint):
        on an error, what it declared and would have written is dropped too."""
        changes, seats = list(self.changes), {k: dict(v) for k, v in self._seat_writes.items()}
        version = self.table.version
        try:
            with transaction.atomic():
                yield
        except Exception:
            self.changes, self._seat_writes = changes, seats
            self.table.version = version
            raise

    # -- the end -------------------------------------------------------------

    def _check_declared(self) -> None:
        """Every change of what the seats read in full show, and of the table's
        shown columns, was declared through an operation (``UndeclaredChange``:
        a service bug that would publish a wrong delta)."""
        declared: dict[int, set[str]] = {}
        for change in self.changes:
            if isinstance(change, SeatUpdated):
                declared.setdefault(change.seat_id, set()).update(change.fields)
        for seat in self._seats or ():
            before = self._seats_shown.get(seat.pk)
            if before is None or before == _shown(seat):
                continue
            changed = {n for n, old in zip(_SHOWN, before, strict=True) if getattr(seat, n) != old}
            if not changed <= declared.get(seat.pk, set()):
                raise UndeclaredChange(f"seat {seat.pk}: {sorted(changed)} changed undeclared")

    def _check_table(self, columns: dict[str, Any]) -> None:
        shown = set(publish.TABLE_SHOWN).intersection(columns)
        if not shown:
            return
        declared = {f for c in self.changes if isinstance(c, TableUpdated) for f in c.fields}
        if not shown <= declared:
            raise UndeclaredChange(f"table: {sorted(shown - declared)} changed undeclared")

    def commit(self) -> AfterCommit | None:
        """Write everything in one statement; register and return the
        after-commit work (None when the version did not change). The
        messages are built after the transaction commits, outside the table
        lock."""
        if not self.changes:
            return None
        table, after, changes = self.table, self._after, self.changes
        self._check_declared()
        bumped = self._bumped()
        kind = publish.decide(changes)
        if bumped and kind != publish.DELTA:
            # A full state or a seat delta shows the seats (and a full state,
            # the hand): read them under the lock.
            self.seats  # noqa: B018
            self.hand  # noqa: B018
        if bumped:
            # A clock that runs out soon gets its timer task now; a longer one
            # from the sweeper a few seconds before its deadline
            # (tasks.sweeper): most turn clocks are answered long before, and
            # need no task at all.
            deadline = table.deadline
            if (
                deadline is not None
                and any(isinstance(c, ClockSet) for c in changes)
                and (deadline - clock.now()).total_seconds() <= settings.TIMER_QUEUE_AHEAD_S
            ):
                table.timer_version = table.clock_version
                after.timer = (table.clock_version, deadline)
            table.active_at = clock.now()
        hand = self._hand if self._hand is not _UNREAD else None
        if hand is not None and "state" in self._hand_writes.get(hand.pk, (hand, {}))[1]:
            hand.state = self.plugin.engine.dumps(self._state)
        columns = sql.changed_columns(table, self._saved)
        self._check_table(columns)
        sql.write(
            table,
            columns,
            {
                pk: {name: getattr(h, name) for name in names}
                for pk, (h, names) in self._hand_writes.items()
            },
            self._events,
            self._seat_writes,
            None if hand is None else hand.pk,
        )
        if not bumped:
            return None  # (seat fields that no state shows: nothing to tell)
        after.dealt = any(isinstance(c, HandDealt) for c in changes)
        after.publication = Publication(
            table=sql.clone(table),
            plugin=self.plugin,
            seats=None if self._seats is None else list(self._seats),
            refs=self.refs,
            hand=None if hand is None else sql.clone(hand),
            state=self._state,
            changes=tuple(changes),
            status=self._status,
            table_before=sql.table_as(table, self._saved),
            hand_before=self._hand_before,
        )
        if self._bots_to_move:
            assert hand is not None
            index = {player["position"]: i for i, player in enumerate(hand.players)}
            after.bot_moves = [
                (hand.pk, p, thinking.think_ms(self.plugin, table, hand, self.state, index[p]))
                for p in sorted(self._bots_to_move)
            ]
        after.bot_readies = [(p, self._bot_delay()) for p in sorted(self._bots_to_ready)]
        after.push = [Notice(kind, uid, table.pk, table.game) for kind, uid in self._push]
        transaction.on_commit(lambda: aftercommit.run(after), robust=True)
        return after
