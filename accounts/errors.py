from typing import Any

from django.utils.translation import gettext_lazy as _

from kernel.errors import ServiceError


class InvalidCredentials(ServiceError):
    code = "invalid_credentials"
    template = _("Wrong username or password.")
    status = 400


class LockedOut(ServiceError):
    code = "locked_out"
    template = _("Too many failed log-ins: try again in %(minutes)s minutes.")
    status = 429


class WrongPassword(ServiceError):
    code = "wrong_password"
    template = _("Your current password is wrong.")
    status = 400


class UnknownAvatar(ServiceError):
    code = "unknown_avatar"
    template = _("Pick one of the avatars offered.")
    status = 400

    def as_dict(self) -> dict[str, Any]:
        from .avatars import AVATARS

        return {**super().as_dict(), "details": {"avatars": list(AVATARS)}}


class AccountBanned(ServiceError):
    """Sent to a banned player's open sockets just before they are closed (a ban is
    the account's state: ``User.is_active`` off, set by moderation)."""

    code = "account_banned"
    template = _("Your account has been banned. Reason: %(reason)s")
    status = 403


class RefreshInvalid(ServiceError):
    code = "invalid_refresh"
    template = _("This refresh token is not valid (unknown or expired): log in again.")
    status = 400  # as OAuth 2's invalid_grant: the body is wrong, no credential was sent


class RefreshReused(ServiceError):
    """A refresh token already traded was shown again: the session it belongs
    to has ended (whoever holds a copy of it is logged out too)."""

    code = "refresh_reused"
    template = _("This refresh token was already used: the session is ended, log in again.")
    status = 400


class DeviceSessionUnknown(ServiceError):
    code = "session_not_found"
    template = _("You have no session with this id (it may have ended already).")
    status = 404


class ResetLinkInvalid(ServiceError):
    """A password reset link (uid and token) that is unknown, expired or used
    already (a new password retires every link sent before it)."""

    code = "invalid_reset_link"
    template = _(
        "This password reset link is not valid: it has expired or was used already. "
        "Ask for a new one."
    )
    status = 400


class VerificationLinkInvalid(ServiceError):
    """An address verification link that is unknown, expired, used already, or
    for an address the account no longer waits to verify."""

    code = "invalid_verification_link"
    template = _(
        "This verification link is not valid: it has expired, was used already, or "
        "the address was changed since. Ask for a new one from your profile."
    )
    status = 400


class EmailTaken(ServiceError):
    """Said only to whoever opened the link mailed to the address (they hold
    the mailbox): another account verified the address first."""

    code = "email_taken"
    template = _(
        "Another account already uses this e-mail address. If it is yours, reset its "
        "password to get back in."
    )
    status = 409


class NoEmailPending(ServiceError):
    code = "no_email_pending"
    template = _("No e-mail address is waiting for verification: set one first.")
    status = 400
