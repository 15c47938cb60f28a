from celery import shared_task

from .services import holds_expire


@shared_task(acks_late=True)
def expire_holds() -> int:
    return holds_expire()
