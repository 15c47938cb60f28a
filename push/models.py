"""A player's push subscriptions (a browser's Web Push subscription, an app's
FCM or APNs device token) and what they want to be told."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Subscription(models.Model):
    class Kind(models.TextChoices):
        WEB = "web", _("Browser (Web Push)")
        FCM = "fcm", _("Android app (FCM)")
        APNS = "apns", _("iOS app (APNs)")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    kind = models.CharField(max_length=8, choices=Kind.choices)
    # Web Push: the push service's URL for this browser; FCM/APNs: the device token.
    endpoint = models.CharField(max_length=1024)
    # Web Push only: the browser's ECDH public key and auth secret (RFC 8291).
    p256dh = models.CharField(max_length=200, blank=True)
    auth = models.CharField(max_length=100, blank=True)
    # The language the notifications are written in (the one the device subscribed in).
    language = models.CharField(max_length=8)
    # An app's device session: logging that device out ends its pushes too.
    session = models.ForeignKey(
        "accounts.DeviceSession", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    last_sent = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "endpoint"], name="push_subscription_endpoint")
        ]
        indexes = [models.Index(fields=["user", "created"], name="push_subscription_user")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} of user {self.user_id}"


class Preferences(models.Model):
    """What a player wants pushed (no row: everything, once they subscribe)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="push_preferences",
    )
    turn = models.BooleanField(_("my turn"), default=True)
    hand = models.BooleanField(_("a hand is about to start at my table"), default=True)
    invite = models.BooleanField(_("an invitation to a table"), default=True)

    def __str__(self) -> str:
        return f"push preferences of user {self.user_id}"
