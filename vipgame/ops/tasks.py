"""Celery: the scheduled clean-up (``RETENTION_EVERY_S``; see settings)."""

from __future__ import annotations

import logging

from celery import shared_task

from . import retention

logger = logging.getLogger(__name__)


@shared_task
def clean_up() -> dict[str, int]:
    deleted = retention.run()
    logger.info("retention: deleted %s", deleted)
    return deleted
