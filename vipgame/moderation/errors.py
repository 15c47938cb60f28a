"""Moderation refusals (stable code + message in the reader's language)."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from vipgame.errors import ServiceError


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


class AccountBanned(ModerationError):
    """Sent to a banned player's open sockets just before they are closed."""

    code = "account_banned"
    template = _("Your account has been banned. Reason: %(reason)s")
    status = 403


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


class BadReport(ModerationError):
    code = "bad_report"
    template = _(
        "Say why you report this line (%(categories)s) and keep the note under 200 characters."
    )


class ChatLineNotFound(ModerationError):
    code = "chat_line_not_found"
    template = _("That chat line does not exist.")
    status = 404


class ChatLineTooOld(ModerationError):
    code = "chat_line_too_old"
    template = _("Lines older than %(hours)s hours can no longer be reported.")
    status = 409


class CannotReportOwn(ModerationError):
    code = "cannot_report_own"
    template = _("You cannot report your own line.")
    status = 409


class CannotReportBot(ModerationError):
    code = "cannot_report_bot"
    template = _("Bots' lines are the room's own: they cannot be reported.")
    status = 409


class AlreadyReported(ModerationError):
    code = "already_reported"
    template = _("You have already reported this line: a moderator will look at it.")
    status = 409


class ReportTooFast(ModerationError):
    code = "report_rate_limited"
    template = _("You are reporting too fast: wait %(wait)s seconds.")
    status = 429

    def __init__(self, *, wait: int) -> None:
        self.wait = wait
        super().__init__(wait=wait)

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"wait": self.wait}}


class ReportNotOpen(ModerationError):
    code = "report_not_open"
    template = _("This report has already been dealt with.")
    status = 409
