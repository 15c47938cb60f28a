"""Test harness for live tables: a controllable clock and a recording scheduler.

``Harness.drain()`` runs what Celery would run (settlement, bot moves, bot
ready-ups) without waiting; ``fire()`` jumps the clock to the table's deadline
and runs its timer, as the timer task would.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import ModuleType
from typing import Any

from django.db import connection
from django.db.models import Sum
from django.utils import timezone

from games import services
from games.models import Hand, Table
from tournaments.models import Entry, Tournament
from wallet.models import Account, LedgerTransaction


@contextlib.contextmanager
def statements_run() -> Iterator[list[str]]:
    """The SQL text of every statement run inside, in order. (Django's
    ``CaptureQueriesContext`` records a prepared statement of the hot path,
    ``games.sql``, without its text.)"""
    ran: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        ran.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield ran


@dataclass
class Clock:
    moment: datetime = field(default_factory=timezone.now)

    def now(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


@dataclass
class RecordingScheduler:
    timers: list[tuple[int, int, datetime]] = field(default_factory=list)
    bots: list[tuple[int, int, int]] = field(default_factory=list)
    #: The think time each bot move was scheduled with, newest last.
    bot_delays: dict[tuple[int, int, int], int] = field(default_factory=dict)
    readies: list[tuple[int, int]] = field(default_factory=list)
    settlements: list[int] = field(default_factory=list)

    def timer(self, table_id: int, clock_version: int, at: datetime) -> None:
        self.timers.append((table_id, clock_version, at))

    def bot_move(self, table_id: int, hand_id: int, position: int, delay_ms: int) -> None:
        self.bots.append((table_id, hand_id, position))
        self.bot_delays[(table_id, hand_id, position)] = delay_ms

    def bot_ready(self, table_id: int, position: int, delay_ms: int) -> None:
        self.readies.append((table_id, position))

    def settle(self, hand_id: int) -> None:
        self.settlements.append(hand_id)


@dataclass
class Harness:
    clock: Clock
    scheduler: RecordingScheduler

    def drain(self, limit: int = 10_000) -> int:
        """Run pending settlements, bot ready-ups and bot moves until none are left."""
        done = 0
        s = self.scheduler
        while (s.settlements or s.readies or s.bots) and done < limit:
            if s.settlements:
                services.hand_settle(hand_id=s.settlements.pop(0))
            elif s.readies:
                table_id, position = s.readies.pop(0)
                services.table_bot_ready(table_id=table_id, position=position)
            else:
                table_id, hand_id, position = s.bots.pop(0)
                services.table_bot_move(table_id=table_id, hand_id=hand_id, position=position)
            done += 1
        return done

    def fire(self, table: Table | int) -> bool:
        """Let the table's current clock run out."""
        table_id = table if isinstance(table, int) else table.pk
        current = Table.objects.get(pk=table_id)
        if current.deadline is None:
            return False
        if current.deadline > self.clock.moment:
            self.clock.moment = current.deadline
        return services.table_timeout(table_id=table_id, clock_version=current.clock_version)


class AfterCommit:
    """Each call a test makes into a service runs its after-commit work when it
    returns, as production's commit does (the test's own transaction never
    commits): pytest-django's ``django_capture_on_commit_callbacks(execute=True)``
    around the call. Work registered by a service that rolled back is dropped,
    as in production; a call made inside another transaction (a service calling
    a service) leaves its work to the end of the outermost one."""

    def __init__(self, capture: Callable[..., Any]) -> None:
        self.capture = capture
        self.depth = len(connection.atomic_blocks)  # the test's own transaction
        self.calling = False

    def wrap(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def call(*args: Any, **kwargs: Any) -> Any:
            if self.calling or len(connection.atomic_blocks) > self.depth:
                return func(*args, **kwargs)  # the outer call runs the work
            self.calling = True
            try:
                with self.capture(execute=True):
                    return func(*args, **kwargs)
            finally:
                self.calling = False

        return call

    def install(self, monkeypatch: Any, modules: Iterable[ModuleType]) -> None:
        """Wrap the public functions of these modules (a Celery task's ``run``)."""
        for module in modules:
            names = getattr(module, "__all__", None) or [
                n for n in vars(module) if not n.startswith("_")
            ]
            for name in names:
                value = getattr(module, name)
                if hasattr(value, "run") and hasattr(value, "apply_async"):
                    monkeypatch.setattr(value, "run", self.wrap(value.run))
                elif (
                    callable(value)
                    and not isinstance(value, type)
                    and getattr(value, "__module__", "").startswith(module.__name__)
                ):
                    monkeypatch.setattr(module, name, self.wrap(value))


def assert_money_consistent() -> None:
    """Σ balances = 0, every finished hand settled exactly once, and every
    tournament's prize pool holds what its state says (assert_pools_exact)."""
    assert Account.objects.aggregate(total=Sum("balance"))["total"] in (0, None)
    assert not Account.objects.exclude(kind=Account.Kind.ISSUANCE).filter(balance__lt=0).exists()
    assert_pools_exact()
    for hand in Hand.objects.filter(ended_at__isnull=False):
        assert hand.settled, f"hand {hand.pk} not settled"
        count = LedgerTransaction.objects.filter(idempotency_key=f"hand:{hand.pk}:settle").count()
        assert count <= 1


def assert_pools_exact() -> None:
    """A tournament's pool (tournaments.services) holds Σ (buy-in + fee) of its
    entries while it registers, buy-in x entrants while it runs, nothing once
    it is over; its entries' prizes add up to buy-in x entrants when it
    finished; and no prize pool belongs to no tournament."""
    pools = dict(Account.objects.filter(kind=Account.Kind.PRIZE_POOL).values_list("key", "balance"))
    status = Tournament.Status
    for tournament in Tournament.objects.all():
        entries = tournament.entries.filter(
            status__in=[Entry.Status.REGISTERED, Entry.Status.PLAYING, Entry.Status.FINISHED]
        )
        count = entries.count()
        expected: int = {
            status.REGISTERING.value: (tournament.buy_in + tournament.fee) * count,
            status.RUNNING.value: tournament.buy_in * count,
        }.get(tournament.status, 0)
        assert pools.pop(tournament.pool_key, 0) == expected, f"tournament {tournament.pk}"
        if tournament.status == status.FINISHED:
            prizes = entries.aggregate(total=Sum("prize"))["total"]
            assert prizes == tournament.buy_in * count, f"tournament {tournament.pk} prizes"
    assert not any(pools.values()), f"prize pools of no tournament: {pools}"


def payload_cards(payload: Any) -> set[str]:
    """Every card-looking string anywhere in a message."""
    found: set[str] = set()
    if isinstance(payload, dict):
        for value in payload.values():
            found |= payload_cards(value)
    elif isinstance(payload, list):
        for value in payload:
            found |= payload_cards(value)
    elif (
        isinstance(payload, str)
        and len(payload) == 2
        and payload[0] in "23456789TJQKA"
        and payload[1] in "scdh"
    ):
        found.add(payload)
    return found


def settle_leftovers() -> None:
    from games.services import hand_settle

    for hand_id in Hand.objects.filter(ended_at__isnull=False, settled=False).values_list(
        "pk", flat=True
    ):
        hand_settle(hand_id=hand_id)
