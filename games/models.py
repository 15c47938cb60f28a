"""Tables, seats, hands and their append-only event log (DESIGN.md layout)."""

from django.conf import settings as conf
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.rules import registry

#: The numbers every game's table has (a game's own are its plugin's knobs).
TABLE_NUMBERS = (
    "ready_seconds",
    "turn_seconds",
    "summary_seconds",
    "bot_delay_ms",
    "bot_delay_max_ms",
)


def game_choices() -> list[tuple[str, str]]:
    """The ``game`` choices: every registered game (``games.rules.registry``,
    filled from ``settings.VIPGAME_GAMES`` by ``games.plugins``, which the app
    loads when ready). A callable, so adding a game needs no migration."""
    return registry.choices()


class Table(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        SUMMARY = "summary", _("Showing the result")
        CLOSED = "closed", _("Closed")

    class Clock(models.TextChoices):
        """The clocks every table has; ``clock`` is one of them or one of the
        table's engine's (``GameEngine.clocks``: a turn, an arrange...)."""

        READY = "ready", _("Ready")
        SUMMARY = "summary", _("Summary")
        # Everyone is ready but a connected player's seed for this hand has not
        # arrived yet: a short wait (SEED_GRACE_MS), then the server draws it.
        SEEDS = "seeds", _("Seeds")

    game = models.CharField(_("game"), max_length=10, choices=game_choices)
    name = models.CharField(_("name"), max_length=60, blank=True)
    preset = models.CharField(_("rules preset"), max_length=30, default="vipgame")
    # The game's own settings: its plugin's knobs (games.plugins.base), rule
    # options and table numbers alike, one home each.
    settings = models.JSONField(_("game settings"), default=dict, blank=True)
    stake = models.PositiveBigIntegerField(_("stake (chips per unit)"))
    seat_count = models.PositiveSmallIntegerField(_("seats"))
    ready_seconds = models.PositiveSmallIntegerField(_("ready clock (s)"), default=20)
    turn_seconds = models.PositiveSmallIntegerField(_("turn clock (s)"), default=20)
    summary_seconds = models.PositiveSmallIntegerField(_("summary pause (s)"), default=5)
    bot_delay_ms = models.PositiveIntegerField(_("bot think time from (ms)"), default=500)
    bot_delay_max_ms = models.PositiveIntegerField(_("bot think time to (ms)"), default=1500)
    fill_with_bots = models.BooleanField(_("fill empty seats with bots"), default=False)
    is_private = models.BooleanField(_("private"), default=False)
    invite_code = models.CharField(_("invite code"), max_length=16, blank=True)
    owner = models.ForeignKey(
        conf.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="owned_tables",
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.WAITING
    )
    version = models.PositiveBigIntegerField(_("version"), default=1)
    hand_version = models.PositiveBigIntegerField(_("hand version"), default=1)
    # Not indexed, nor is ``active_at``: both change with every move, and a
    # changed indexed column makes PostgreSQL write a new entry in every index
    # of the table (no HOT update). The clock and idle sweeps read the open
    # tables through ``table_open``.
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    # A Clock, or a clock of the table's engine (its plugin gives the length).
    clock = models.CharField(_("clock"), max_length=10, blank=True)
    clock_started_at = models.DateTimeField(_("clock started"), null=True, blank=True)
    clock_version = models.PositiveBigIntegerField(_("clock version"), default=0)
    # The clock version whose timer task is queued (a long clock gets its task
    # from the sweeper shortly before it runs out; most are answered before).
    timer_version = models.PositiveBigIntegerField(_("timer version"), default=0)
    current_hand = models.ForeignKey(
        "Hand",
        verbose_name=_("current hand"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    hands_played = models.PositiveIntegerField(_("hands played"), default=0)
    # The next hand's server seed is kept in TableSeed (never on this model, so
    # no admin page, form or serializer of a table can show it).
    next_commitment = models.CharField(_("next hand's commitment"), max_length=64)
    # What the game remembers between hands (the button, the last winner):
    # written and read by its plugin only.
    carry = models.JSONField(_("kept between hands"), default=dict, blank=True)
    # Empty: its game's own money model; else the name of one an app registered
    # (games.plugins.money.register: a tournament's chips).
    money = models.CharField(_("money model"), max_length=16, blank=True, default="")
    closed_reason = models.CharField(_("reason for closing"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    # The last time anything changed at the table (idle tables are closed).
    active_at = models.DateTimeField(_("last activity"), default=timezone.now)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        indexes = [
            models.Index(fields=["game", "status"], name="table_lobby"),
            models.Index(fields=["id"], condition=~Q(status="closed"), name="table_open"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_game_display()} {self.stake}"


class TableSeed(models.Model):
    """The server seed of a table's next hand, secret until that hand ends.

    Its own table, registered nowhere (no admin, no form, no serializer, no
    ``__str__`` showing it): only ``games.services`` reads it, to deal. At the
    deal it moves to ``Hand.server_seed``, revealed once the hand has ended."""

    table = models.OneToOneField(
        Table, primary_key=True, on_delete=models.CASCADE, related_name="secret"
    )
    server_seed = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"seed of table {self.table_id}"

    def __repr__(self) -> str:
        return f"<TableSeed: table {self.table_id}>"


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(_("position"))
    user = models.ForeignKey(conf.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    is_bot = models.BooleanField(default=False)
    ready = models.BooleanField(default=False)
    # The player's contribution to the next hand's deck and the commitment it
    # answers: it counts only while that is still the table's next_commitment.
    client_seed = models.CharField(max_length=64, blank=True)
    seed_commitment = models.CharField(max_length=64, blank=True)
    connections = models.PositiveSmallIntegerField(default=0)
    last_seen = models.DateTimeField(null=True, blank=True)
    sitting_out = models.BooleanField(default=False)
    # Left mid-hand (the engine's leave rule was played): freed at settlement.
    leaving = models.BooleanField(default=False)
    # Plays the hand out, then leaves at its settlement (until cancelled).
    leave_after_hand = models.BooleanField(default=False)
    # Mậu Binh, Tiến Lên: the server readies the seat for each next hand.
    auto_ready = models.BooleanField(default=False)
    # The player's clocks run out in a row, without a move between (every game).
    timeouts = models.PositiveSmallIntegerField(default=0)
    # What the game keeps of the seat between hands (a time bank): its plugin's.
    carry = models.JSONField(default=dict, blank=True)
    # Chips on the seat that no ledger account backs (a tournament's chips:
    # games.plugins.money, ``chips_source`` "seat"); None elsewhere.
    stack = models.BigIntegerField(null=True, blank=True)
    # Mậu Binh, Tiến Lên: the wallet hold of the table's minimum balance.
    hold = models.ForeignKey(
        "wallet.Hold", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A bot's seat: who asked for it (counted against MAX_BOT_SEATS_PER_USER).
    bot_for = models.ForeignKey(
        conf.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # ... and the client address it was asked from (BOT_SHARE_PER_ADDRESS_PERCENT).
    bot_for_address = models.GenericIPAddressField(null=True, blank=True)
    recent_client_ids = models.JSONField(default=list, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["table", "user"], name="one_seat_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id}:{self.position} {self.user}"

    PRESENCE_TIMEOUT_S = 60

    @property
    def connected(self) -> bool:
        """A socket is open and has been heard from recently (a server killed
        without closing its sockets leaves a count that the heartbeat ages out)."""
        if self.connections <= 0 or self.last_seen is None:
            return False
        from games import clock

        return (clock.now() - self.last_seen).total_seconds() < self.PRESENCE_TIMEOUT_S


class Departure(models.Model):
    """The last time a player's seat at a table was freed, and why: the table
    tells them (with a way back) until they sit there again."""

    class Reason(models.TextChoices):
        LEFT = "left", _("left")
        NOT_READY = "not_ready", _("not ready in time")
        NO_CHIPS = "no_chips", _("not enough chips")
        CLOSED = "closed", _("table closed")
        OUT = "out", _("out of chips in the tournament")
        MOVED = "moved", _("moved to another table of the tournament")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="departures")
    user = models.ForeignKey(conf.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(_("reason"), max_length=10, choices=Reason.choices)
    at = models.DateTimeField(_("when"), default=timezone.now)

    class Meta:
        verbose_name = _("departure")
        verbose_name_plural = _("departures")
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="one_departure_per_player")
        ]

    def __str__(self) -> str:
        return f"{self.table_id}:{self.user_id} {self.reason}"


class Invitation(models.Model):
    """A player invited to a private table: a signed-in player who opened it
    with its invite code (its link, the socket's or the API's ``invite``, a
    seat taken with it). From then on, while it is open, the table is theirs
    to find (``GET /api/v1/me/tables``, the lobby) and to open without the
    code. Its owner is never one (they own it); bots never are."""

    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="invitations"
    )
    user = models.ForeignKey(
        conf.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="+"
    )
    at = models.DateTimeField(_("when"), default=timezone.now)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="one_invitation_per_player")
        ]

    def __str__(self) -> str:
        return f"{self.table_id}:{self.user_id}"


class Hand(models.Model):
    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.PROTECT, related_name="hands"
    )
    number = models.PositiveIntegerField(_("number"))
    game = models.CharField(_("game"), max_length=10, choices=game_choices)
    commitment = models.CharField(_("commitment"), max_length=64)
    server_seed = models.CharField(_("server seed"), max_length=64)
    client_seeds = models.JSONField(_("client seeds"), default=list)
    # Per player, whose the client seed was: "player" (sent for this hand's
    # commitment), "bot" (a bot's, from the OS CSPRNG) or "server" (the player
    # sent none in time: drawn for them from the OS CSPRNG).
    seed_sources = models.JSONField(_("client seed sources"), default=list)
    players = models.JSONField(_("players"), default=list)
    setup = models.JSONField(_("setup"), default=dict)
    state = models.JSONField(_("state"), default=dict)
    event_count = models.PositiveIntegerField(_("events"), default=0)
    result = models.JSONField(_("result"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)
    settled = models.BooleanField(_("settled"), default=False)
    settled_at = models.DateTimeField(_("settled at"), null=True, blank=True)
    voided = models.BooleanField(_("voided"), default=False)
    # The table's stake when it was dealt (a tournament's rises with its
    # levels); empty for hands dealt before it was kept: the table's.
    stake = models.PositiveBigIntegerField(_("stake"), null=True, blank=True)

    class Meta:
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="hand_number_per_table")
        ]
        indexes = [
            models.Index(fields=["ended_at"], condition=Q(settled=False), name="hand_unsettled")
        ]

    def __str__(self) -> str:
        return f"#{self.pk} ({self.table_id}/{self.number})"

    @property
    def fair_id(self) -> str:
        """The hand id fed to the provably fair shuffle (docs/fairness.md)."""
        return f"{self.table_id}-{self.number}"

    @property
    def finished(self) -> bool:
        return self.ended_at is not None


class HandPlayer(models.Model):
    """Who was dealt into a hand, and what they won or lost once it is settled."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="participants")
    user = models.ForeignKey(
        conf.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="hands_played"
    )
    index = models.PositiveSmallIntegerField()
    position = models.PositiveSmallIntegerField()
    net = models.BigIntegerField(_("chips won"), null=True, blank=True)
    # Clocks that ran out for this player in this hand (the rules played for
    # them: an absent player's hand, flagged in the history).
    timeouts = models.PositiveSmallIntegerField(_("time-outs"), default=0)
    # The seed this player's hand was dealt with (a player never uses one twice).
    client_seed = models.CharField(max_length=64, blank=True)

    class Meta:
        verbose_name = _("hand player")
        verbose_name_plural = _("hand players")
        constraints = [
            models.UniqueConstraint(fields=["hand", "user"], name="one_entry_per_player")
        ]
        indexes = [
            models.Index(fields=["user", "-hand"], name="player_hands_recent"),
            models.Index(fields=["user", "client_seed"], name="player_seeds_used"),
        ]

    def __str__(self) -> str:
        return f"{self.hand_id}:{self.user_id}"


class HandEvent(models.Model):
    class Visibility(models.TextChoices):
        EVERYONE = "all", _("everyone")
        SEAT = "seat", _("one player")

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    table_version = models.PositiveBigIntegerField()
    type = models.CharField(max_length=30)
    payload = models.JSONField(default=dict)
    visibility = models.CharField(max_length=5, choices=Visibility.choices)
    player = models.SmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("hand event")
        verbose_name_plural = _("hand events")
        ordering = ["hand", "seq"]
        constraints = [models.UniqueConstraint(fields=["hand", "seq"], name="event_seq")]

    def __str__(self) -> str:
        return f"{self.hand_id}#{self.seq} {self.type}"


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(conf.AUTH_USER_MODEL, on_delete=models.PROTECT)
    text = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        indexes = [models.Index(fields=["table", "-id"], name="chat_recent")]

    def __str__(self) -> str:
        return self.text[:40]


class ChatReport(models.Model):
    """A reported chat line: one item of the moderators' queue, however many
    players reported it (each one is a :class:`ChatFlag`)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for a moderator")
        DISMISSED = "dismissed", _("Dismissed")
        MUTED = "muted", _("Author muted")

    message = models.OneToOneField(
        ChatMessage,
        verbose_name=_("chat line"),
        on_delete=models.CASCADE,
        related_name="report",
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.OPEN
    )
    first_reported_at = models.DateTimeField(_("first reported"))
    last_reported_at = models.DateTimeField(_("last reported"))
    flag_count = models.PositiveIntegerField(_("reports"), default=0)
    resolved_by = models.ForeignKey(
        conf.AUTH_USER_MODEL,
        verbose_name=_("resolved by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    resolved_at = models.DateTimeField(_("resolved"), null=True, blank=True)
    resolution = models.TextField(_("moderator's reason"), blank=True)

    class Meta:
        verbose_name = _("reported chat line")
        verbose_name_plural = _("reported chat lines")
        db_table = "moderation_chatreport"  # made by moderation, which reads the queue
        ordering = ["first_reported_at", "id"]
        indexes = [models.Index(fields=["status", "first_reported_at"], name="chat_report_queue")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.message.user}: {self.message}"


class ChatFlag(models.Model):
    """One player's report of a chat line (a player reports a line once)."""

    class Category(models.TextChoices):
        ABUSE = "abuse", _("Insults or harassment")
        SPAM = "spam", _("Spam or advertising")
        CHEATING = "cheating", _("Cheating or collusion")
        OTHER = "other", _("Something else")

    report = models.ForeignKey(
        ChatReport, verbose_name=_("reported chat line"), on_delete=models.CASCADE,
        related_name="flags",
    )  # fmt: skip
    reporter = models.ForeignKey(
        conf.AUTH_USER_MODEL,
        verbose_name=_("reported by"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    category = models.CharField(_("why"), max_length=10, choices=Category.choices)
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("time"))

    class Meta:
        verbose_name = _("chat line report")
        verbose_name_plural = _("chat line reports")
        db_table = "moderation_chatflag"
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["report", "reporter"], name="one_flag_per_reporter")
        ]

    def __str__(self) -> str:
        return f"{self.reporter} → #{self.report_id}"


class RoomBeat(models.Model):
    """When a Daphne process last noted that it reaches PostgreSQL and Redis
    (one row, games.services.outages): a gap of more than ``OUTAGE_GAP`` is an outage."""

    at = models.DateTimeField(_("at"))

    class Meta:
        verbose_name = _("room beat")
        verbose_name_plural = _("room beats")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S}"


class Outage(models.Model):
    """A time the room could not serve (games.services.outages: PostgreSQL, Redis or
    every worker down): a player's clock that ran during one is given again,
    not run out on them."""

    started_at = models.DateTimeField(_("started at"), db_index=True)
    ended_at = models.DateTimeField(_("ended at"), db_index=True)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("outage")
        verbose_name_plural = _("outages")

    def __str__(self) -> str:
        return f"{self.started_at:%Y-%m-%d %H:%M:%S} – {self.ended_at:%H:%M:%S}"
