from django.utils.translation import gettext_lazy as _

from kernel.errors import ServiceError


class WalletError(ServiceError):
    code = "wallet_error"


class InsufficientChips(WalletError):
    code = "insufficient_chips"
    template = _("Not enough chips: %(needed)s needed, %(available)s available.")
    chip_params = ("needed", "available")


class InvalidAmount(WalletError):
    code = "invalid_amount"
    template = _("The amount must be a whole number of chips greater than zero.")


class UnknownAccount(WalletError):
    code = "unknown_account"
    template = _("That chip account does not exist.")
    status = 404


class AccountClosed(WalletError):
    code = "account_closed"
    template = _("That chip account is closed.")
    status = 409


class BonusAlreadyClaimed(WalletError):
    code = "bonus_already_claimed"
    template = _("You have already claimed today's bonus. Come back tomorrow!")
    status = 409


class IdempotencyConflict(WalletError):
    code = "idempotency_conflict"
    template = _("This operation was already recorded with different details.")
    status = 409


class UnbalancedTransaction(WalletError):
    code = "unbalanced_transaction"
    template = _("A transaction's entries must add up to zero.")


class ReasonRequired(WalletError):
    code = "reason_required"
    template = _("Give a reason for this change.")


class HoldNotPending(WalletError):
    code = "hold_not_pending"
    template = _("These chips are no longer held.")
    status = 409


class SeatOccupied(WalletError):
    code = "seat_occupied"
    template = _("Another player's chips are still on this seat.")
    status = 409
