"""Celery: the Sit & Gos' periodic work (beat, every ``SIT_AND_GO_EVERY_S``)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from kernel.ops import isolation

from . import services

logger = logging.getLogger(__name__)


@shared_task(soft_time_limit=20, time_limit=25)
@isolation.put_off_while_the_database_is_away({"put_off": 1}, logger=logger)
def sit_and_gos() -> dict[str, int]:
    """Every ``SIT_AND_GO_EVERY_S`` (beat), each tournament on its own (one
    that fails is logged and stops no other): bots take the empty places of
    the Sit & Gos that waited long enough (``tournament_fill_with_bots``);
    the scheduled tournaments whose time has come start
    (``tournament_start``: a restarted worker or beat starts one late, never
    twice); players between tables are seated (``seat_players``: a move or
    a late entry whose seating was lost); the house keeps one Sit & Go open
    for every game, table size and buy-in of ``HOUSE_SIT_AND_GOS`` and its
    next daily tournament scheduled (``DAILY_TOURNAMENT_AT``)."""
    filled = isolation.each_on_its_own(
        "tournaments: bots",
        services.bots_due(),
        lambda t: services.tournament_fill_with_bots(tournament_id=t),
        logger=logger,
    )
    started = isolation.each_on_its_own(
        "tournaments: start",
        services.start_due(),
        lambda t: services.tournament_start(tournament_id=t),
        logger=logger,
    )
    seated = isolation.each_on_its_own(
        "tournaments: seat", services.moving_in(), services.seat_players, logger=logger
    )
    opened = 0
    if settings.HOUSE_SIT_AND_GOS:
        opened = len(services.house_sit_and_gos())
    scheduled = len(services.daily_tournaments())
    return {
        "filled": filled,
        "started": started,
        "seated": seated,
        "opened": opened,
        "scheduled": scheduled,
    }
