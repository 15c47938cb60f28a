"""The account's mails, sent by the Celery worker (accounts/mail.py says why).

A send that fails (the SMTP server down, a time-out) is tried again three
times, a minute apart at first; a reset retried is not counted again towards
the account's limit. Acknowledged late: a worker lost mid-send sends it again.
"""

from __future__ import annotations

from smtplib import SMTPException
from typing import Any

from celery import shared_task

from .recovery import reset_mails_send, verification_mail_send

RETRY: dict[str, Any] = {
    "acks_late": True,
    "autoretry_for": (SMTPException, OSError),
    "retry_backoff": 60,
    "max_retries": 3,
}


@shared_task(**RETRY)
def verification_mail(user_id: int, language: str) -> bool:
    return verification_mail_send(user_id=user_id, language=language)


@shared_task(bind=True, **RETRY)
def password_reset_mail(self: Any, email: str, username: str, language: str) -> int:
    return reset_mails_send(
        email=email, username=username, language=language, count=not self.request.retries
    )
