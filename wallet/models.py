"""The chip ledger: double entry, append-only (DESIGN.md "Wallet")."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _


class Account(models.Model):
    class Kind(models.TextChoices):
        USER = "user", _("Player")
        SEAT = "seat", _("Seat escrow")
        HOUSE = "house", _("House")
        ISSUANCE = "issuance", _("Issuance")
        # A tournament's prize pool (``tournament:<id>:pool``, no owner): the
        # buy-ins and, until the start, the entry fees (tournaments.services).
        PRIZE_POOL = "prize_pool", _("Prize pool")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    key = models.CharField(_("key"), max_length=120, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="chip_accounts",
    )
    balance = models.BigIntegerField(_("balance"), default=0)
    held = models.BigIntegerField(_("held"), default=0)
    is_closed = models.BooleanField(_("closed"), default=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("chip account")
        verbose_name_plural = _("chip accounts")
        permissions = [("adjust_balance", _("Can adjust a player's balance"))]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="issuance") | Q(balance__gte=0),
                name="account_balance_not_negative",
            ),
            models.CheckConstraint(
                condition=Q(kind="issuance") | Q(held__lte=F("balance")),
                name="account_held_within_balance",
            ),
            models.CheckConstraint(condition=Q(held__gte=0), name="account_held_not_negative"),
            models.UniqueConstraint(
                fields=["user"], condition=Q(kind="user"), name="one_user_account_per_user"
            ),
        ]

    def __str__(self) -> str:
        return self.key

    @property
    def available(self) -> int:
        return self.balance - self.held


class LedgerTransaction(models.Model):
    class Kind(models.TextChoices):
        SIGNUP_GRANT = "signup_grant", _("Sign-up grant")
        GRANT = "grant", _("Grant")
        DAILY_BONUS = "daily_bonus", _("Daily bonus")
        TRANSFER = "transfer", _("Transfer")
        HOLD_POST = "hold_post", _("Held chips paid")
        BUY_IN = "buy_in", _("Buy-in")
        CASH_OUT = "cash_out", _("Cash-out")
        SETTLEMENT = "settlement", _("Hand result")
        ADJUSTMENT = "adjustment", _("Adjustment by staff")
        BOT_LOAN = "bot_loan", _("Chips lent to a bot")
        BOT_RETURN = "bot_return", _("Chips back from a bot")
        HOUSE_FLOAT = "house_float", _("House float")
        TOURNAMENT_ENTRY = "tourney_entry", _("Tournament entry")
        TOURNAMENT_REFUND = "tourney_refund", _("Tournament entry refunded")
        TOURNAMENT_FEE = "tourney_fee", _("Tournament entry fees")
        TOURNAMENT_PRIZE = "tourney_prize", _("Tournament prizes")

    idempotency_key = models.CharField(_("idempotency key"), max_length=200, unique=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    reason = models.TextField(_("reason"), blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    hand_id = models.BigIntegerField(_("hand"), null=True, blank=True, db_index=True)
    fingerprint = models.CharField(_("payload fingerprint"), max_length=64)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("ledger transaction")
        verbose_name_plural = _("ledger transactions")
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()}"


class LedgerEntry(models.Model):
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="entries"
    )
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="entries")
    amount = models.BigIntegerField(_("amount"))
    balance_after = models.BigIntegerField(_("balance after"))

    class Meta:
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        indexes = [models.Index(fields=["account", "-id"], name="entry_account_recent")]
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="entry_not_zero")]

    def __str__(self) -> str:
        return f"{self.account} {self.amount:+d}"


class Hold(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        POSTED = "posted", _("Paid")
        VOIDED = "voided", _("Released")
        EXPIRED = "expired", _("Expired")

    key = models.CharField(_("key"), max_length=200, unique=True)
    account = models.ForeignKey(
        Account, verbose_name=_("account"), on_delete=models.PROTECT, related_name="holds"
    )
    amount = models.BigIntegerField(_("amount"))
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    expires_at = models.DateTimeField(_("expires"))
    transaction = models.ForeignKey(
        LedgerTransaction,
        verbose_name=_("ledger transaction"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("hold")
        verbose_name_plural = _("holds")
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="hold_positive")]
        indexes = [models.Index(fields=["status", "expires_at"], name="hold_pending_expiry")]

    def __str__(self) -> str:
        return f"{self.key} ({self.get_status_display()})"


class Adjustment(models.Model):
    """One staff balance adjustment, whatever became of it: posted at once
    (within the approval limits, see ``balance_adjust``), or waiting for a
    second staff member to approve (then it is posted) or reject it."""

    class Status(models.TextChoices):
        POSTED = "posted", _("Posted at once")
        PENDING = "pending", _("Waiting for approval")
        APPROVED = "approved", _("Approved and posted")
        REJECTED = "rejected", _("Rejected")

    account = models.ForeignKey(
        Account, verbose_name=_("account"), on_delete=models.PROTECT, related_name="+"
    )
    amount = models.BigIntegerField(_("amount"))
    reason = models.TextField(_("reason"))
    key = models.CharField(_("idempotency key"), max_length=64, unique=True, editable=False)
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.PROTECT,
        related_name="+",
    )
    requested_at = models.DateTimeField(_("requested"), auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    decision_reason = models.TextField(_("reason for the decision"), blank=True)
    transaction = models.ForeignKey(
        LedgerTransaction,
        verbose_name=_("ledger transaction"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        verbose_name = _("balance adjustment")
        verbose_name_plural = _("balance adjustments")
        ordering = ["-id"]
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="adjustment_not_zero")]
        indexes = [
            models.Index(fields=["requested_by", "requested_at"], name="adjustment_by_staff_recent")
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.account} {self.amount:+d}"
