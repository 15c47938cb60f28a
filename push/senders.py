"""The one notifier interface: ``sender_for(kind).send(subscription, payload,
ttl=)`` with the sender the ``PUSH_SENDER`` setting chooses.

* ``webpush``: browsers' subscriptions through their push service with
  pywebpush (VAPID, RFC 8291 encryption). FCM and APNs tokens are
  registration-only here: they go to the logging sender (delivering them needs
  the platforms' credentials, see docs/operations.md "Push").
* ``logging`` (``make run`` and the tests): nothing leaves the machine; each
  push is logged, kept in ``RECORDED`` (this process) and appended as a JSON
  line to ``PUSH_LOG_FILE`` when set (what the browser test feeds the service
  worker).
* ``off``: nothing is sent (nor logged).
"""

from __future__ import annotations

import enum
import json
import logging
import threading
from collections import deque
from typing import Any, Protocol

from django.conf import settings

from .models import Subscription

logger = logging.getLogger(__name__)


class Outcome(enum.Enum):
    SENT = "sent"
    GONE = "gone"  # the push service no longer knows it (404/410): delete it
    FAILED = "failed"  # try again with the next notice


class Sender(Protocol):
    def send(self, subscription: Subscription, payload: dict[str, Any], *, ttl: int) -> Outcome: ...


#: The logging sender's pushes in this process, newest last (the tests read it).
RECORDED: deque[dict[str, Any]] = deque(maxlen=200)
_file_lock = threading.Lock()


class LoggingSender:
    def send(self, subscription: Subscription, payload: dict[str, Any], *, ttl: int) -> Outcome:
        record = {
            "subscription": subscription.pk,
            "kind": subscription.kind,
            "user": subscription.user_id,
            "ttl": ttl,
            "payload": payload,
        }
        RECORDED.append(record)
        logger.info("push (logged, not sent) %s", json.dumps(record, ensure_ascii=False))
        path = settings.PUSH_LOG_FILE
        if path:
            with _file_lock, open(path, "a", encoding="utf-8") as out:
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
        return Outcome.SENT


class WebPushSender:
    """A browser's subscription through its push service (pywebpush)."""

    def send(self, subscription: Subscription, payload: dict[str, Any], *, ttl: int) -> Outcome:
        from py_vapid import Vapid02
        from pywebpush import WebPushException, webpush

        try:
            webpush(
                subscription_info={
                    "endpoint": subscription.endpoint,
                    "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
                },
                data=json.dumps(payload, ensure_ascii=False),
                vapid_private_key=Vapid02.from_raw(settings.PUSH_VAPID_PRIVATE_KEY.encode()),
                vapid_claims={"sub": settings.PUSH_VAPID_SUBJECT},
                ttl=ttl,
                timeout=settings.PUSH_TIMEOUT_S,
            )
        except WebPushException as exc:
            status = getattr(exc.response, "status_code", None)
            if status in (404, 410):
                return Outcome.GONE
            logger.warning("web push to subscription %s failed: %s", subscription.pk, exc)
            return Outcome.FAILED
        except OSError as exc:  # (requests' connection errors and time-outs are OSErrors)
            logger.warning("web push to subscription %s failed: %s", subscription.pk, exc)
            return Outcome.FAILED
        return Outcome.SENT


class NoSender:
    def send(self, subscription: Subscription, payload: dict[str, Any], *, ttl: int) -> Outcome:
        return Outcome.SENT


_logging = LoggingSender()


def sender_for(kind: str) -> Sender:
    mode = settings.PUSH_SENDER
    if mode == "off":
        return NoSender()
    if mode == "webpush" and kind == Subscription.Kind.WEB:
        return WebPushSender()
    return _logging
