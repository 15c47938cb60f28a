"""Moderation refusals (stable code + message in the reader's language)."""

from django.utils.translation import gettext_lazy as _

from kernel.errors import ServiceError


class ModerationError(ServiceError):
    code = "moderation_error"


class ReasonRequired(ModerationError):
    code = "reason_required"
    template = _("Give a reason for this action.")


class CannotModerateSelf(ModerationError):
    code = "cannot_moderate_self"
    template = _("You cannot do this to your own account.")
    status = 409


class AlreadyBanned(ModerationError):
    code = "already_banned"
    template = _("This account is already banned.")
    status = 409


class NotBanned(ModerationError):
    code = "not_banned"
    template = _("This account is not banned.")
    status = 409


class NotMuted(ModerationError):
    code = "not_muted"
    template = _("This player is not muted.")
    status = 409


class BadMuteLength(ModerationError):
    code = "bad_mute_minutes"
    template = _("A mute lasts from 1 to %(most)s minutes.")


class BadAdjustKey(ModerationError):
    code = "bad_adjust_key"
    template = _("This adjustment's key was not made by the server.")


class CannotApproveOwn(ModerationError):
    code = "cannot_approve_own"
    template = _("Another staff member must approve an adjustment you asked for.")
    status = 409


class CannotActOnLinked(ModerationError):
    code = "linked_account"
    template = _(
        "This account was seen from an address or device you use: another staff member must "
        "deal with it."
    )
    status = 409


class AdjustmentNotPending(ModerationError):
    code = "adjustment_not_pending"
    template = _("This adjustment is no longer waiting for approval.")
    status = 409


class ReportNotOpen(ModerationError):
    code = "report_not_open"
    template = _("This report has already been dealt with.")
    status = 409
