"""What a committed table change does next, as data, and the one runner that
does it.

A table service never publishes or schedules anything itself: its unit of work
(``games.services.work.TableWork``) collects the messages, the timer, the bot
moves and the settlement the change calls for into an :class:`AfterCommit`,
and registers :func:`run` with ``transaction.on_commit``. Nothing happens if
the transaction rolls back; tests can read what would have happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from games import publish, scheduling
from games.publish import Publication
from kernel.notify import Message
from kernel.ops import metrics
from push import notices as push_notices


@dataclass
class AfterCommit:
    table_id: int
    game: str
    # What to tell whom: its messages are built on first use, after the commit.
    publication: Publication | None = None
    # (clock version, deadline): a timer task for a clock that runs out soon.
    timer: tuple[int, datetime] | None = None
    # (hand, position, delay in ms) of bots to move; (position, delay) to ready.
    bot_moves: list[tuple[int, int, int]] = field(default_factory=list)
    bot_readies: list[tuple[int, int]] = field(default_factory=list)
    settle: int | None = None
    # For the metrics: who moved (player, bot, timeout), whether a hand was
    # dealt or finished, and a clock's lateness (kind, seconds).
    move_by: str | None = None
    dealt: bool = False
    finished: bool = False
    timer_lateness: tuple[str, float] | None = None
    # Push notices (a player's turn, a hand about to start): push.notices keeps
    # those of players who want push and queues their delivery.
    push: list[push_notices.Notice] = field(default_factory=list)
    _messages: list[Message] | None = field(default=None, repr=False)

    @property
    def messages(self) -> list[Message]:
        if self._messages is None:
            self._messages = [] if self.publication is None else self.publication.messages()
        return self._messages


def run(work: AfterCommit) -> None:
    """Publish, count and schedule (``transaction.on_commit``, robust)."""
    publish.send(work.messages, game=work.game)
    metrics.table_committed(
        work.game, move_by=work.move_by, dealt=work.dealt, finished=work.finished
    )
    if work.timer_lateness is not None:
        metrics.timer_fired(*work.timer_lateness)
    scheduler = scheduling.scheduler
    if work.timer is not None:
        scheduler.timer(work.table_id, *work.timer)
    for hand_id, position, delay in work.bot_moves:
        scheduler.bot_move(work.table_id, hand_id, position, delay)
    for position, delay in work.bot_readies:
        scheduler.bot_ready(work.table_id, position, delay)
    if work.settle is not None:
        scheduler.settle(work.settle)
    if work.push:
        push_notices.send(work.push)
