"""One service call's work on one locked table.

Every table service opens a :class:`TableTx` inside ``transaction.atomic``:
it locks the table row, collects what changed, bumps the version once, and at
``finish()`` saves, builds each seat's payload and registers the after-commit
publication, timer, bot moves and settlement.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from games import clock, publish
from games.errors import NotSeated, TableNotFound
from games.models import Hand, HandEvent, Seat, Table
from games.plugins import GamePlugin, plugin_for
from games.rules.game import Event
from games.scheduling import scheduler
from vipgame.accounts.models import User
from vipgame.ops import context, metrics


class TableTx:
    def __init__(self, table_id: int) -> None:
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None:
            raise TableNotFound()
        self.table = table
        context.bind(table=table.pk, hand=table.current_hand_id)  # for log lines
        self.plugin: GamePlugin = plugin_for(table.game)
        self._seats: list[Seat] | None = None
        # Read after the lock, not joined to it: in READ COMMITTED a joined row
        # can be an older version than the table row we waited to lock.
        self._hand: Hand | None = None
        self._hand_loaded = False
        self._state: Any = None
        self.changed = False
        self.events: list[HandEvent] = []
        self.timer_due = False
        self.lobby_changed = False
        self.gone_users: set[int] = set()
        self.bots_to_move: set[int] = set()
        self.bots_to_ready: set[int] = set()
        self.to_settle: int | None = None
        # For the metrics, counted after commit: who moved (player, bot,
        # timeout), whether a hand was dealt or finished, a clock's lateness.
        self.move_by: str | None = None
        self.dealt = False
        self.finished = False
        self.timer_lateness: tuple[str, float] | None = None

    # -- reading -------------------------------------------------------------

    @property
    def seats(self) -> list[Seat]:
        if self._seats is None:
            # With their chips: the balances they show only change when chips
            # move, and whoever moves them calls forget_seats().
            self._seats = list(publish.seats_with_chips(self.table))
        return self._seats

    def forget_seats(self) -> None:
        self._seats = None

    def seat_of(self, user: User) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user.pk), None)

    def require_seat(self, user: User) -> Seat:
        seat = self.seat_of(user)
        if seat is None:
            raise NotSeated()
        return seat

    @property
    def hand(self) -> Hand | None:
        if not self._hand_loaded:
            hand_id = self.table.current_hand_id
            self._hand = None if hand_id is None else Hand.objects.get(pk=hand_id)
            self._hand_loaded = True
            if self._hand is not None:
                self._state = self.plugin.engine.loads(self._hand.state)
        return self._hand

    @property
    def state(self) -> Any:
        """The current hand's engine state (None without a hand)."""
        self.hand  # noqa: B018 - loads the hand and its state on first use
        return self._state

    @state.setter
    def state(self, value: Any) -> None:
        self._state = value

    def set_hand(self, hand: Hand, state: Any) -> None:
        self._hand, self._hand_loaded, self._state = hand, True, state
        self.table.current_hand = hand
        context.bind(hand=hand.pk)

    def hand_seats(self) -> list[Seat]:
        """The seats of the current hand's players, in player order."""
        assert self.hand is not None
        by_position = {s.position: s for s in self.seats}
        return [by_position[p["position"]] for p in self.hand.players]

    def player_index(self, seat: Seat) -> int | None:
        if self.hand is None:
            return None
        # By the player, not the seat: a seat's new occupant was not dealt in.
        return next(
            (i for i, p in enumerate(self.hand.players) if p["user_id"] == seat.user_id), None
        )

    # -- writing -------------------------------------------------------------

    def bump(self) -> None:
        if not self.changed:
            self.table.version += 1
            self.changed = True

    def set_clock(self, kind: str, ms: int) -> None:
        now = clock.now()
        self.table.clock = kind
        self.table.clock_started_at = now
        self.table.deadline = now + timedelta(milliseconds=ms)
        self.table.clock_version += 1
        self.timer_due = True
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
        for event in events:
            hand.event_count += 1
            self.events.append(
                HandEvent(
                    hand=hand,
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

    def bot_delay(self) -> int:
        low, high = (
            self.table.bot_delay_ms,
            max(self.table.bot_delay_max_ms, self.table.bot_delay_ms),
        )
        return random.randint(low, high)  # think time, not a secret

    def finish(self) -> None:
        """Save everything and register the after-commit work."""
        if self._hand is not None and self.changed and self._state is not None:
            self._hand.state = self.plugin.engine.dumps(self._state)
            self._hand.save(update_fields=["state", "event_count", "ended_at", "result"])
        if self.events:
            HandEvent.objects.bulk_create(self.events)
        if not self.changed:
            return
        table_id, clock_version, deadline = (
            self.table.pk,
            self.table.clock_version,
            self.table.deadline,
        )
        # A clock that runs out soon gets its timer task now; a longer one from
        # the sweeper a few seconds before its deadline (tasks.sweeper): most
        # turn clocks are answered long before, and need no task at all.
        timer = (
            self.timer_due
            and deadline is not None
            and (deadline - clock.now()).total_seconds() <= settings.TIMER_QUEUE_AHEAD_S
        )
        if timer:
            self.table.timer_version = clock_version
        self.table.active_at = clock.now()
        self.table.save()
        messages = self._messages()
        hand_id = None if self._hand is None else self._hand.pk
        bots = [(p, self.bot_delay()) for p in sorted(self.bots_to_move)]
        ready = [(p, self.bot_delay()) for p in sorted(self.bots_to_ready)]
        settle = self.to_settle
        game, move_by, dealt, finished = self.table.game, self.move_by, self.dealt, self.finished
        lateness = self.timer_lateness

        def after_commit() -> None:
            publish.send(messages)
            metrics.table_committed(game, move_by=move_by, dealt=dealt, finished=finished)
            if lateness is not None:
                metrics.timer_fired(*lateness)
            if timer:
                assert deadline is not None
                scheduler.timer(table_id, clock_version, deadline)
            for position, delay in bots:
                assert hand_id is not None
                scheduler.bot_move(table_id, hand_id, position, delay)
            for position, delay in ready:
                scheduler.bot_ready(table_id, position, delay)
            if settle is not None:
                scheduler.settle(settle)

        transaction.on_commit(after_commit, robust=True)

    def _messages(self) -> list[tuple[str, dict[str, Any]]]:
        table, seats = self.table, self.seats
        chips = publish.seat_chips(table, seats)
        hand = self.hand
        messages: list[tuple[str, dict[str, Any]]] = []
        for seat in seats:
            if seat.is_bot:
                continue
            payload = publish.state_payload(
                table, seats, chips, hand, self.state, seat, self.events
            )
            messages.append(
                (
                    publish.user_group(table.pk, seat.user_id),
                    {"type": "table.state", "payload": payload, "personal": True},
                )
            )
        public = publish.state_payload(table, seats, chips, hand, self.state, None, self.events)
        messages.append(
            (publish.public_group(table.pk), {"type": "table.state", "payload": public})
        )
        for user_id in self.gone_users:
            messages.append(
                (
                    publish.user_group(table.pk, user_id),
                    {"type": "table.state", "payload": public, "personal": True},
                )
            )
        # Private tables are never in the lobby (nor in its first list): their
        # players know them from the invite link.
        if self.lobby_changed and not table.is_private:
            entry = publish.lobby_entry(table, seats)
            messages.append((publish.LOBBY_GROUP, {"type": "lobby.table", "table": entry}))
        return messages
