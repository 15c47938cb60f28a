"""Outages the players did not cause (issue 33: 14 players lost their seats
during outages). When PostgreSQL or Redis is down, or no Daphne process
serves, nobody can move, ready or come back, yet the clocks run on: when the
room serves again, the timers fire and seats are freed as "not ready", turns
run out and count toward "away". So a player's clock (the ready clock, a turn,
an arrange: those that run for players) that ran during an outage is given
again, whole, instead of running out
(``tables.table_timeout``).

An outage is seen by the processes that serve the players: every
``ROOM_BEAT_S`` each Daphne process with sockets notes (``beat``) that it
reaches PostgreSQL and Redis (games.consumers). A gap of more than
``OUTAGE_GAP`` since the last note, whichever process wrote it, is recorded
as an ``Outage`` by the first note after it. A clock that runs out before
that (the timer tasks resume with the room) sees the outage still going on.
A Celery worker or beat down is not an outage: players still move, and the
clocks fire late when a worker is back.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction

from games import clock
from games.models import Outage, RoomBeat
from kernel.ops import heartbeat, metrics

logger = logging.getLogger(__name__)

#: The longest gap between two notes (every ``ROOM_BEAT_S``, 3 s, from each
#: serving process) that is not an outage.
OUTAGE_GAP = timedelta(seconds=12)


def beat() -> Outage | None:
    """A serving process reaches PostgreSQL and Redis now; the outage this
    ends, if any."""
    now = clock.now()
    with transaction.atomic():
        last = RoomBeat.objects.select_for_update().filter(pk=1).first()
        if last is None:
            RoomBeat.objects.create(pk=1, at=now)
            return None
        RoomBeat.objects.filter(pk=1).update(at=now)
        if now - last.at <= OUTAGE_GAP:
            return None
        outage = Outage.objects.create(started_at=last.at, ended_at=now)
    seconds = (now - last.at).total_seconds()
    logger.warning("outage: no process served for %.1f s (since %s)", seconds, last.at)
    metrics.outage_seen(seconds)
    return outage


def beat_if_serving() -> Outage | None:
    """A serving process's note (games.consumers, every ``ROOM_BEAT_S``): only
    if Redis answers too (the sockets' messages go through it)."""
    heartbeat.redis_client().ping()
    return beat()


def during(start: datetime, end: datetime) -> bool:
    """Whether the room went down while a clock ran from ``start`` to
    ``end``: a recorded outage, or one still going on (no note for
    ``OUTAGE_GAP``), that began while it ran. A clock set once the outage was
    under way (a clock given again as the room came back, before the first note
    recorded it) is not given again for it."""
    since = start - OUTAGE_GAP
    if Outage.objects.filter(started_at__gt=since, started_at__lt=end, ended_at__gt=start).exists():
        return True
    last = RoomBeat.objects.filter(pk=1).values_list("at", flat=True).first()
    return last is not None and clock.now() - last > OUTAGE_GAP and since < last < end
