"""Push services: subscribe a browser or register an app's device, forget it,
a player's preferences, and the delivery of one notice (run by the Celery
task ``push.tasks.deliver``, never inside a table's transaction)."""

from __future__ import annotations

import base64
import binascii
import logging
import re
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import User

from . import index
from .errors import SubscriptionInvalid, SubscriptionUnknown
from .models import Preferences, Subscription
from .senders import Outcome, sender_for

logger = logging.getLogger(__name__)

NOTICES = index.KINDS
_FCM_TOKEN = re.compile(r"[A-Za-z0-9:_\-]{20,1024}")
_APNS_TOKEN = re.compile(r"[0-9a-fA-F]{64,200}")


def _b64url_bytes(value: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


def _check(kind: str, endpoint: str, p256dh: str, auth: str) -> None:
    if kind == Subscription.Kind.WEB:
        if not endpoint.startswith("https://") or len(endpoint) > 1024:
            raise SubscriptionInvalid(why=_("the endpoint must be an https:// address."))
        key, secret = _b64url_bytes(p256dh), _b64url_bytes(auth)
        if key is None or len(key) != 65 or key[0] != 4:
            raise SubscriptionInvalid(why=_("keys.p256dh must be a P-256 public key."))
        if secret is None or len(secret) != 16:
            raise SubscriptionInvalid(why=_("keys.auth must be 16 bytes."))
    elif kind == Subscription.Kind.FCM:
        if not _FCM_TOKEN.fullmatch(endpoint):
            raise SubscriptionInvalid(why=_("that is not an FCM registration token."))
    elif kind == Subscription.Kind.APNS:
        if not _APNS_TOKEN.fullmatch(endpoint):
            raise SubscriptionInvalid(why=_("that is not an APNs device token."))
    else:
        raise SubscriptionInvalid(why=_("the kind must be web, fcm or apns."))


def preferences_of(user_id: int) -> Preferences:
    """The player's preferences (everything on until they change them)."""
    found = Preferences.objects.filter(user_id=user_id).first()
    return found if found is not None else Preferences(user_id=user_id)


def index_refresh(user_id: int) -> None:
    """The player's entries in the index, as the database says (after commit)."""
    has_any = Subscription.objects.filter(user_id=user_id).exists()
    active = User.objects.filter(pk=user_id, is_active=True).exists()
    prefs = preferences_of(user_id)
    index.put(user_id, {k: has_any and active and bool(getattr(prefs, k)) for k in NOTICES})


def _refresh_on_commit(user_id: int) -> None:
    transaction.on_commit(lambda: index_refresh(user_id), robust=True)


@transaction.atomic
def push_subscribe(
    *,
    user: User,
    kind: str,
    endpoint: str,
    p256dh: str = "",
    auth: str = "",
    language: str,
    session_id: int | None = None,
) -> Subscription:
    """A browser's Web Push subscription, or an app's FCM/APNs device token
    (tied to its device session: logging that device out ends it). The same
    endpoint again updates it (a device now used by this account moves to
    it); past ``PUSH_MAX_SUBSCRIPTIONS`` the oldest of the player's go."""
    _check(kind, endpoint, p256dh, auth)
    if kind != Subscription.Kind.WEB:
        p256dh = auth = ""
    subscription, _created = Subscription.objects.update_or_create(
        kind=kind,
        endpoint=endpoint,
        defaults={
            "user": user,
            "p256dh": p256dh,
            "auth": auth,
            "language": language,
            "session_id": session_id,
        },
    )
    keep = Subscription.objects.filter(user=user).order_by("-created", "-pk")
    old = list(keep.values_list("pk", flat=True)[settings.PUSH_MAX_SUBSCRIPTIONS :])
    if old:
        Subscription.objects.filter(pk__in=old).delete()
    _refresh_on_commit(user.pk)
    return subscription


@transaction.atomic
def push_unsubscribe(*, user: User, subscription_id: int) -> None:
    deleted, _rows = Subscription.objects.filter(user=user, pk=subscription_id).delete()
    if not deleted:
        raise SubscriptionUnknown()
    _refresh_on_commit(user.pk)


def push_subscriptions(*, user: User) -> list[Subscription]:
    return list(Subscription.objects.filter(user=user).order_by("-created", "-pk"))


@transaction.atomic
def push_preferences_set(*, user: User, **changes: bool) -> Preferences:
    """Turn notices on or off (``turn``, ``hand``, ``invite``)."""
    prefs = preferences_of(user.pk)
    for name, value in changes.items():
        if name not in NOTICES:
            raise ValueError(name)
        setattr(prefs, name, bool(value))
    prefs.save()
    _refresh_on_commit(user.pk)
    return prefs


# -- delivery (push.tasks.deliver) ------------------------------------------------------


def _texts(notice: str, table_id: int, extra: dict[str, Any]) -> tuple[str, str]:
    if notice == "turn":
        return _("Your turn"), _("Table %(table)s is waiting for your move.") % {"table": table_id}
    if notice == "hand":
        return (
            _("A hand is about to start"),
            _("Table %(table)s deals soon: press Ready.") % {"table": table_id},
        )
    return (
        _("You are invited to a table"),
        _("%(name)s invites you to table %(table)s.")
        % {"name": extra.get("by", ""), "table": table_id},
    )


def payload(notice: str, *, table_id: int, game: str, extra: dict[str, Any]) -> dict[str, Any]:
    """What a device receives (docs/protocol.md "Push"), in the active language."""
    title, body = _texts(notice, table_id, extra)
    return {
        "v": 1,
        "type": notice,
        "title": title,
        "body": body,
        "url": reverse("table", args=[table_id]),
        "table": table_id,
        "game": game,
        # One notification a table: a newer one replaces the last.
        "tag": f"table-{table_id}",
        "sent_at": timezone.now().isoformat(),
    }


def ttl_of(notice: str) -> int:
    return settings.PUSH_TURN_TTL_S if notice in ("turn", "hand") else settings.PUSH_INVITE_TTL_S


def push_deliver(
    *, notice: str, user_id: int, table_id: int, game: str, extra: dict[str, Any] | None = None
) -> int:
    """Send one notice to each of the player's devices; returns how many took
    it. Nothing for a banned or muted account, nor a notice turned off.
    Subscriptions their push service no longer knows (404/410) are deleted."""
    user = User.objects.filter(pk=user_id).first()
    if user is None or not user.is_active or user.is_bot:
        return 0
    if user.muted_until is not None and user.muted_until > timezone.now():
        return 0
    if notice not in NOTICES or not getattr(preferences_of(user_id), notice):
        return 0
    sent, gone = 0, []
    for subscription in Subscription.objects.filter(user_id=user_id):
        with translation.override(subscription.language or settings.LANGUAGE_CODE):
            body = payload(notice, table_id=table_id, game=game, extra=extra or {})
        outcome = sender_for(subscription.kind).send(subscription, body, ttl=ttl_of(notice))
        if outcome is Outcome.GONE:
            gone.append(subscription.pk)
        elif outcome is Outcome.SENT:
            sent += 1
    if sent:
        Subscription.objects.filter(user_id=user_id).exclude(pk__in=gone).update(
            last_sent=timezone.now()
        )
    if gone:
        Subscription.objects.filter(pk__in=gone).delete()
        index_refresh(user_id)
    return sent
