"""The unit of work of one table service call.

Every table service opens one :class:`TableWork` inside ``transaction.atomic``.
It locks the table row, loads what the call reads (seats, the hand and its
engine state) on first use, bumps the version once, and records what the change
calls for through its methods. :meth:`TableWork.commit` saves everything and
returns the after-commit work as data (:class:`games.aftercommit.AfterCommit`),
registered with ``transaction.on_commit`` to be run by
:func:`games.aftercommit.run`. Nothing else writes its fields.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import User
from games import aftercommit, clock, publish, sql
from games.aftercommit import AfterCommit
from games.errors import AccountInactive, NotSeated, TableNotFound
from games.models import Hand, HandEvent, Seat
from games.plugins import GamePlugin, plugin_for
from games.publish import Publication
from games.refs import EventRecord, SeatRef, seat_ref
from games.rules.game import Event
from kernel.ops import context

# Seat fields no state shows: changing only these still allows a delta.
SEAT_HIDDEN = frozenset({"recent_client_ids", "time_bank_ms", "timeouts"})
REF_FIELDS = frozenset(f.name for f in dataclasses.fields(SeatRef))


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
        self._seats: list[Seat] | None = None
        # Read after the lock, not joined to it: in READ COMMITTED a joined row
        # can be an older version than the table row we waited to lock.
        self._hand: Hand | None = None
        self._hand_loaded = False
        self._state: Any = None
        self._loaded_state: Any = None
        self._refs: list[SeatRef] | None = None
        # Who sat where when the seats were first read: a change that keeps
        # them and touches no hand is published as a seat delta.
        self._seated: list[tuple[int, int]] | None = None
        self._hand_before: Hand | None = None
        # {seat id: {field: value}} written with the change (games.sql.write).
        self._seat_changes: dict[int, dict[str, Any]] = {}
        self._changed = False
        self._state_dirty = False
        # A move of a running hand that changed nothing else: it is published
        # as a delta (games.protocol.DeltaMessage); anything else, in full.
        self._move = False
        self._full = False
        self._events: list[EventRecord] = []
        self._timer_due = False
        self._lobby = False
        self._gone_users: dict[int, dict[str, Any]] = {}
        self._bots_to_move: set[int] = set()
        self._bots_to_ready: set[int] = set()
        self._after = AfterCommit(table_id=table.pk, game=table.game)

    # -- reading -------------------------------------------------------------

    @property
    def seats(self) -> list[Seat]:
        if self._seats is None:
            # With their chips: the balances they show only change when chips
            # move, and whoever moves them calls forget_seats(). A change that
            # reads the seats in full may change them: it is published in full.
            self._seats = list(publish.seats_with_chips(self.table))
            self._show_pending(self._seats)
            self._full = True
            self._note_seated(self._seats)
        return self._seats

    def _note_seated(self, seats: list[Seat] | list[SeatRef]) -> None:
        if self._seated is None:
            self._seated = [(s.position, s.user_id) for s in seats]

    def forget_seats(self) -> None:
        self._seats = None
        self._refs = None
        self._full = True

    @property
    def refs(self) -> list[SeatRef]:
        """The seats in short (who sits where, bot, active, ready): what a move
        needs, without the players' names or chips."""
        if self._refs is None:
            if self._seats is not None:
                self._refs = [seat_ref(s) for s in self._seats]
            else:
                self._refs = sql.seat_refs(self.table.pk)
                if self._seat_changes:
                    self._refs = [
                        dataclasses.replace(ref, **self._pending_of(ref.id)) for ref in self._refs
                    ]
            self._note_seated(self._refs)
        return self._refs

    def _show_pending(self, seats: list[Seat]) -> None:
        """Seats with what this unit of work will write to them
        (``update_seats``): seats read anew (after ``forget_seats``) must show
        it to the rest of the work, and a full state must show it."""
        for seat in seats:
            for name, value in self._seat_changes.get(seat.pk, {}).items():
                setattr(seat, name, value)

    def _pending_of(self, seat_id: int) -> dict[str, Any]:
        """``_show_pending`` for a seat in short: the changes to its fields."""
        changes = self._seat_changes.get(seat_id, {})
        return {k: v for k, v in changes.items() if k in REF_FIELDS}

    def load_move(self, user_id: int | None = None) -> None:
        """The current hand, its state and the seats in short, in one
        statement (a move's read). ``user_id``: whose recent client ids to read."""
        if self._hand_loaded:
            return
        hand, refs = sql.hand_and_refs(self.table, user_id)
        self._hand, self._hand_loaded, self._refs = hand, True, refs
        self._note_seated(refs)
        if hand is not None:
            self._state = self._loaded_state = self.plugin.engine.loads(hand.state)
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

    def remember_client_id(self, ref: SeatRef, client_id: str, kept: int) -> None:
        """Written with the move (the seat's recent client ids: a repeat is
        acknowledged, not applied twice; the player is here: no time-outs in a row)."""
        fields: dict[str, Any] = {"recent_client_ids": [*ref.recent_client_ids, client_id][-kept:]}
        if ref.timeouts:
            fields["timeouts"] = 0
        self.update_seats({ref.id: fields})

    def timed_out(self, refs: list[SeatRef]) -> None:
        """These players' clock ran out: one more time-out in a row each."""
        self.update_seats({ref.id: {"timeouts": ref.timeouts + 1} for ref in refs})

    def update_seats(self, changes: dict[int, dict[str, Any]]) -> None:
        """Seat fields to write with the change: ``{seat id: {field: value}}``.
        A change of what the state shows of a seat is published in full."""
        for seat_id, fields in changes.items():
            self._seat_changes.setdefault(seat_id, {}).update(fields)
            if not SEAT_HIDDEN.issuperset(fields):
                self._full = True

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
        if not self._hand_loaded:
            hand_id = self.table.current_hand_id
            # (a prepared statement, not the ORM: a seat's presence, a ready)
            self._hand = None if hand_id is None else sql.read_hand(hand_id)
            self._hand_loaded = True
            if self._hand is not None:
                self._state = self._loaded_state = self.plugin.engine.loads(self._hand.state)
                self._hand_before = sql.clone(self._hand)
        return self._hand

    @property
    def state(self) -> Any:
        """The current hand's engine state (None without a hand)."""
        self.hand  # noqa: B018 - loads the hand and its state on first use
        return self._state

    @state.setter
    def state(self, value: Any) -> None:
        self._state = value
        self._state_dirty = True

    def set_hand(self, hand: Hand, state: Any) -> None:
        self._hand, self._hand_loaded, self._state = hand, True, state
        self._full = self._state_dirty = True
        self.table.current_hand = hand
        context.bind(hand=hand.pk)

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

    # -- writing -------------------------------------------------------------

    def bump(self) -> None:
        if not self._changed:
            self.table.version += 1
            self._changed = True

    def set_clock(self, kind: str, ms: int) -> None:
        now = clock.now()
        self.table.clock = kind
        self.table.clock_started_at = now
        self.table.deadline = now + timedelta(milliseconds=ms)
        self.table.clock_version += 1
        self._timer_due = True
        self.bump()

    def clear_clock(self) -> None:
        if self.table.deadline is not None or self.table.clock:
            self.table.clock = ""
            self.table.deadline = None
            self.table.clock_started_at = None
            self.table.clock_version += 1
            self.bump()

    def record(self, events: list[Event]) -> None:
        hand = self.hand
        assert hand is not None
        self.bump()
        self._state_dirty = True
        for event in events:
            hand.event_count += 1
            self._events.append(
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

    def moved(self) -> None:
        """This unit of work is a move of the running hand (see ``commit``)."""
        self._move = True

    # -- what the change calls for after commit --------------------------------

    def announce(self) -> None:
        """The lobby's entry of this table changed (seats taken, status)."""
        self._lobby = True

    def user_left(self, user_id: int, removed: dict[str, Any]) -> None:
        """A user left their seat: their sockets get the public state once
        more, saying why (``removed``: ``publish.removed_info``)."""
        self._gone_users[user_id] = removed
        self._full = True

    def bots_to_move(self, positions: set[int]) -> None:
        """The bots whose move it is now (replaces any earlier set)."""
        self._bots_to_move = set(positions)

    def bot_to_ready(self, position: int) -> None:
        self._bots_to_ready.add(position)

    def settle_later(self, hand_id: int) -> None:
        self._after.settle = hand_id

    def moved_by(self, kind: str) -> None:
        """For the metrics: a move by a player, a bot or a time-out."""
        self._after.move_by = kind

    def hand_dealt(self) -> None:
        self._after.dealt = True
        self._full = True

    def hand_finished(self, hand_id: int) -> None:
        self._after.finished = True
        self._bots_to_move = set()
        self.settle_later(hand_id)

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

    # -- the end -------------------------------------------------------------

    def _seats_only(self) -> bool:
        """A change of what the seats show (ready, present, auto-ready, leave
        after the hand, chips, a seed) or of the table's own fields, with the
        same players in the same seats and the hand untouched: everyone's view
        of the hand is what it was, so one seat delta tells every recipient.
        (Called after ``commit`` has read the seats and the hand in full.)"""
        if (
            self._move
            or self._events
            or self._state_dirty
            or self._gone_users
            or self._after.dealt
            or self._seats is None
            or self._seated != [(s.position, s.user_id) for s in self._seats]
            or self.table.current_hand_id != self._saved["current_hand_id"]
        ):
            return False
        hand, before = self._hand, self._hand_before
        if hand is None:
            return before is None
        return (
            before is not None
            and hand.pk == before.pk
            and publish.hand_fields(hand) == publish.hand_fields(before)
        )

    def commit(self) -> AfterCommit | None:
        """Save everything in one statement; register and return the
        after-commit work (None when nothing changed). The messages are built
        after the transaction commits, outside the table lock."""
        if not self._changed:
            return None
        table, after, hand = self.table, self._after, self._hand
        # A clock that runs out soon gets its timer task now; a longer one from
        # the sweeper a few seconds before its deadline (tasks.sweeper): most
        # turn clocks are answered long before, and need no task at all.
        deadline = table.deadline
        if (
            self._timer_due
            and deadline is not None
            and (deadline - clock.now()).total_seconds() <= settings.TIMER_QUEUE_AHEAD_S
        ):
            table.timer_version = table.clock_version
            after.timer = (table.clock_version, deadline)
        table.active_at = clock.now()
        # A move of the hand it loaded that changed no seat: a delta.
        delta = self._move and not self._full and self._loaded_state is not None
        if not delta:
            # A full state shows the seats and the hand: read them under the lock.
            self._show_pending(self.seats)
            hand = self.hand
        seats_only = not delta and self._seats_only()
        hand_write = None
        if hand is not None and self._state is not None and self._state_dirty:
            hand.state = self.plugin.engine.dumps(self._state)
            hand_write = hand
        sql.write(
            table,
            sql.changed_columns(table, self._saved),
            hand_write,
            self._events,
            self._seat_changes,
        )
        after.publication = Publication(
            table=sql.clone(table),
            plugin=self.plugin,
            seats=None if self._seats is None else list(self._seats),
            refs=self.refs,
            hand=None if hand is None else sql.clone(hand),
            state=self._state,
            before=self._loaded_state if delta else None,
            events=self._events,
            gone_users=dict(sorted(self._gone_users.items())),
            lobby=self._lobby,
            table_before=sql.table_as(table, self._saved) if delta or seats_only else None,
            hand_before=self._hand_before if delta else None,
            seats_only=seats_only,
        )
        if self._bots_to_move:
            assert hand is not None
            after.bot_moves = [(hand.pk, p, self._bot_delay()) for p in sorted(self._bots_to_move)]
        after.bot_readies = [(p, self._bot_delay()) for p in sorted(self._bots_to_ready)]
        transaction.on_commit(lambda: aftercommit.run(after), robust=True)
        return after
