"""Celery: the Sit & Gos' periodic work (beat, every ``SIT_AND_GO_EVERY_S``)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from kernel.ops import isolation

from . import services

logger = logging.getLogger(__name__)


@shared_task(soft_time_limit=20, time_limit=25)
def sit_and_gos() -> dict[str, int]:
    """Bots take the empty places of the Sit & Gos that waited long enough
    (``tournament_fill_with_bots``), and the house keeps one Sit & Go open
    for every game, table size and buy-in of ``HOUSE_SIT_AND_GOS``
    (``house_sit_and_gos``). Each tournament on its own: one that fails is
    logged and stops no other."""
    filled = isolation.each_on_its_own(
        "tournaments: bots",
        services.bots_due(),
        lambda t: services.tournament_fill_with_bots(tournament_id=t),
        logger=logger,
    )
    opened = 0
    if settings.HOUSE_SIT_AND_GOS:
        opened = len(services.house_sit_and_gos())
    return {"filled": filled, "opened": opened}
