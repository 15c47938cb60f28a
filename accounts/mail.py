"""The account's mails (address verification, password reset): rendered from
templates in the language asked for, plain text with an HTML alternative, and
sent off the request path.

A request that causes a mail only queues a Celery task (``queue``), after its
transaction commits; the worker renders and sends it (``accounts.tasks``). So
an SMTP server that is slow or down never holds a web thread, a failed send is
tried again, and asking for a reset takes the same time whether or not an
account has the address (the task, not the request, looks it up). Tasks are
sent by name, as ``games.scheduling`` does; tests swap ``outbox`` to run them
in the test's process.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from celery import current_app
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# The tasks (accounts/tasks.py), queued by name.
VERIFY_TASK = "accounts.tasks.verification_mail"
RESET_TASK = "accounts.tasks.password_reset_mail"


class Outbox(Protocol):
    def send(self, task: str, kwargs: dict[str, Any]) -> None: ...


class CeleryOutbox:
    def send(self, task: str, kwargs: dict[str, Any]) -> None:
        """Queue the task; with the broker down the mail is not sent (said in
        the log): the player asks again, nothing is half done."""
        try:
            current_app.send_task(task, kwargs=kwargs)
        except (OperationalError, RedisError, OSError) as exc:
            logger.warning("%s not queued, no mail sent: %s", task, exc)


outbox: Outbox = CeleryOutbox()


def queue(task: str, **kwargs: Any) -> None:
    """Queue a mail's task once the current transaction commits (at once
    outside one); dropped if it rolls back."""
    transaction.on_commit(lambda: outbox.send(task, kwargs), robust=True)


def link(path: str) -> str:
    """An absolute link to a page of the site: ``SITE_URL``, never the Host
    header of a request (a forged one would mail a link to another site)."""
    return f"{settings.SITE_URL}{path}"


def mail_send(*, kind: str, to: str, language: str, context: dict[str, Any]) -> None:
    """Render ``templates/accounts/mail/<kind>_subject.txt``, ``<kind>.txt``
    and ``<kind>.html`` in ``language`` and send them to one address."""
    with translation.override(language):
        context = {**context, "site_url": settings.SITE_URL, "language": language}
        subject = " ".join(render_to_string(f"accounts/mail/{kind}_subject.txt", context).split())
        text = render_to_string(f"accounts/mail/{kind}.txt", context)
        html = render_to_string(f"accounts/mail/{kind}.html", context)
    message = EmailMultiAlternatives(subject, text, to=[to], headers={"Content-Language": language})
    message.attach_alternative(html, "text/html")
    message.send()
