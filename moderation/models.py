"""The moderation audit log and the (user, address, device) sightings (the
reported chat lines are games' ``ChatReport``: chat is the games')."""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.utils.translation import gettext_lazy as _


class AuditEntry(models.Model):
    """One moderation action: written by the service in the action's own
    transaction, never edited or deleted."""

    class Action(models.TextChoices):
        BAN = "ban", _("Ban")
        UNBAN = "unban", _("Unban")
        MUTE = "mute", _("Mute in chat")
        UNMUTE = "unmute", _("Unmute")
        TABLE_CLOSE = "table_close", _("Force-close a table")
        BALANCE_ADJUST = "balance_adjust", _("Balance adjustment")
        ADJUST_REQUEST = "adjust_request", _("Balance adjustment asked (needs approval)")
        ADJUST_APPROVE = "adjust_approve", _("Balance adjustment approved")
        ADJUST_REJECT = "adjust_reject", _("Balance adjustment rejected")
        REPORT_DISMISS = "report_dismiss", _("Chat report dismissed")
        REPORT_MUTE = "report_mute", _("Chat report upheld: author muted")
        TOURNAMENT_CANCEL = "tourney_cancel", _("Tournament cancelled")

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("staff member"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    reason = models.TextField(_("reason"))
    target_type = models.ForeignKey(
        ContentType, verbose_name=_("target type"), on_delete=models.PROTECT, related_name="+"
    )
    target_id = models.BigIntegerField(_("target id"))
    target_label = models.CharField(_("target"), max_length=200)
    before = models.JSONField(_("before"), default=dict)
    after = models.JSONField(_("after"), default=dict)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")
        ordering = ["-id"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_action_display()} {self.target_label}"


class Sighting(models.Model):
    """A user seen from an address with a device cookie (one row per triple)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="sightings",
    )
    ip = models.GenericIPAddressField(_("IP address"))
    device = models.CharField(_("device cookie"), max_length=64, blank=True)
    first_seen = models.DateTimeField(_("first seen"))
    last_seen = models.DateTimeField(_("last seen"), db_index=True)

    class Meta:
        verbose_name = _("sighting")
        verbose_name_plural = _("sightings")
        constraints = [
            models.UniqueConstraint(fields=["user", "ip", "device"], name="one_sighting_per_triple")
        ]
        indexes = [
            models.Index(fields=["ip"], name="sighting_ip"),
            models.Index(fields=["device"], name="sighting_device"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.ip} {self.device[:8]}"


class IntegrityReport(Sighting):
    """No table of its own: gives the integrity report its place in the admin."""

    class Meta:
        proxy = True
        verbose_name = _("integrity report")
        verbose_name_plural = _("integrity report")
