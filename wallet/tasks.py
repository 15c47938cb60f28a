import logging

from celery import shared_task

from kernel.ops import isolation

from .services import holds_expire

logger = logging.getLogger(__name__)


@shared_task(acks_late=True)
@isolation.put_off_while_the_database_is_away(0, logger=logger)
def expire_holds() -> int:
    return holds_expire()
