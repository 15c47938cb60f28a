"""Tournaments and their entries (issue 31).

A tournament's money is the ledger's (``wallet``): each entry's buy-in and fee
go from the player's wallet to the tournament's prize pool account
(``tournament:<id>:pool``, kind ``prize_pool``); the fees go on to the house
when it starts; the pool is paid out by place when it ends, or back to every
entry when it is cancelled (``tournaments.services``). The chips played with
are tournament chips (``starting_chips`` each), never the wallet's.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.models import Table, game_choices


class Tournament(models.Model):
    class Kind(models.TextChoices):
        SIT_AND_GO = "sit_and_go", _("Sit & Go")
        SCHEDULED = "scheduled", _("Scheduled")

    class Status(models.TextChoices):
        REGISTERING = "registering", _("Registering")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    class Levels(models.TextChoices):
        BLINDS = "blinds", _("Blinds and antes")
        STAKE = "stake", _("Stake per unit")

    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices, default=Kind.SIT_AND_GO)
    game = models.CharField(_("game"), max_length=10, choices=game_choices)
    seats = models.PositiveSmallIntegerField(
        _("players"), help_text=_("A Sit & Go starts when this many have registered.")
    )
    buy_in = models.BigIntegerField(_("buy-in"), help_text=_("Chips that go to the prize pool."))
    fee = models.BigIntegerField(_("entry fee"), default=0, help_text=_("Chips for the house."))
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.REGISTERING
    )
    table_size = models.PositiveSmallIntegerField(
        _("players per table"),
        null=True,
        blank=True,
        help_text=_("A scheduled tournament's tables; empty: one table of all its players."),
    )
    late_levels = models.PositiveSmallIntegerField(
        _("late registration (levels)"),
        default=0,
        help_text=_("Registration stays open through this many levels after the start."),
    )
    allow_bots = models.BooleanField(
        _("bots may fill it"),
        default=False,
        help_text=_("Bots may take the empty places of a Sit & Go that waited too long."),
    )
    bots_after_seconds = models.PositiveIntegerField(_("bots after (seconds)"), default=300)
    starting_chips = models.BigIntegerField(_("starting chips"))
    level_kind = models.CharField(_("levels raise"), max_length=8, choices=Levels.choices)
    levels = models.JSONField(
        _("levels"), help_text=_("The level schedule (tournaments.levels), fixed at creation.")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("Empty: the house's."),
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    starts_at = models.DateTimeField(_("starts"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)
    cancel_reason = models.TextField(_("why it was cancelled"), blank=True)

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(buy_in__gt=0), name="tournament_buy_in_positive"),
            models.CheckConstraint(condition=Q(fee__gte=0), name="tournament_fee_not_negative"),
            models.CheckConstraint(condition=Q(seats__gte=2), name="tournament_two_players"),
            models.CheckConstraint(
                condition=Q(starting_chips__gt=0), name="tournament_starting_chips_positive"
            ),
        ]
        indexes = [
            models.Index(
                fields=["game", "buy_in"],
                condition=Q(status="registering"),
                name="tournament_open",
            )
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_kind_display()} {self.game} {self.buy_in}+{self.fee}"

    @property
    def pool_key(self) -> str:
        """The key of its prize pool's ledger account."""
        return f"tournament:{self.pk}:pool"


class Entry(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("Registered")
        UNREGISTERED = "unregistered", _("Unregistered (refunded)")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        REFUNDED = "refunded", _("Refunded (cancelled)")

    tournament = models.ForeignKey(
        Tournament, verbose_name=_("tournament"), on_delete=models.PROTECT, related_name="entries"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.PROTECT,
        related_name="tournament_entries",
    )
    is_bot = models.BooleanField(_("bot"), default=False)
    registered_at = models.DateTimeField(_("registered"), auto_now_add=True)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.REGISTERED
    )
    place = models.PositiveSmallIntegerField(
        _("place"), null=True, blank=True, help_text=_("Players out together share a place.")
    )
    rank = models.PositiveSmallIntegerField(
        _("order"),
        null=True,
        blank=True,
        help_text=_("Its order among all the finishers (who gets a tie's odd chips first)."),
    )
    prize = models.BigIntegerField(_("prize"), null=True, blank=True)
    moving_chips = models.BigIntegerField(
        _("chips while moving"),
        null=True,
        blank=True,
        help_text=_("A player between two tables (moved, or registered late): their chips."),
    )

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        ordering = ["tournament_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=~Q(status="unregistered"),
                name="tournament_one_entry_per_player",
            ),
            models.CheckConstraint(
                condition=Q(prize__isnull=True) | Q(prize__gte=0), name="entry_prize_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id}/{self.player_id}"


class TournamentTable(models.Model):
    """A table the tournament plays at (a Sit & Go has one)."""

    tournament = models.ForeignKey(
        Tournament, verbose_name=_("tournament"), on_delete=models.PROTECT, related_name="tables"
    )
    table = models.OneToOneField(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="tournament_table"
    )
    opened_at = models.DateTimeField(_("opened"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament table")
        verbose_name_plural = _("tournament tables")
        ordering = ["tournament_id", "id"]

    def __str__(self) -> str:
        return f"{self.tournament_id}/{self.table_id}"
