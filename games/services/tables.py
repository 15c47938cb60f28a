"""Tables: create, close, their clocks running out, chat (and players' reports of
chat lines, which moderators then deal with), and the timer
tasks the sweeper queues.

The top of the service package: builds on hands, seats and settlement."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, OperationalError, models, transaction
from django.db.models import F
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import clock, publish, selectors
from games import seeds as seed_source
from games.errors import (
    AccountInactive,
    AlreadyReported,
    BadChat,
    BadReport,
    CannotReportBot,
    CannotReportOwn,
    ChatLineNotFound,
    ChatLineTooOld,
    ChatMuted,
    NotTableOwner,
    PrivateTable,
    ReportTooFast,
    TableClosed,
    TableFull,
    TableNotFound,
)
from games.limits import check_table, game_settings
from games.models import (
    ChatFlag,
    ChatMessage,
    ChatReport,
    Departure,
    HandPlayer,
    Seat,
    Table,
    TableSeed,
)
from games.plugins import PLUGINS, plugin_for
from games.selectors import can_view
from kernel import limits, notify
from kernel.errors import PermissionDenied
from kernel.ops import metrics
from kernel.retry import retried, timed_out

from . import outages
from .hands import hand_timeout, maybe_deal
from .seats import (
    free_seat,
    gone,
    limit_open_tables,
    play_now_ready,
    ready_by_itself,
    ready_clock,
    short_of_chips,
    table_sit,
)
from .settle import settle_in
from .work import TableWork

logger = logging.getLogger(__name__)


@retried
def table_create(
    *,
    owner: User | None,
    game: str,
    stake: int,
    seat_count: int | None = None,
    preset: str = "vipgame",
    options: dict[str, Any] | None = None,
    name: str = "",
    is_private: bool = False,
    fill_with_bots: bool = False,
    money: str = "",
    **fields: int | None,
) -> Table:
    """A new table. ``options``: its rule options; ``fields``: the numbers
    every table has (clocks, bot think times) and the game's own table knobs
    (a raise cap, a buy-in range...; another game's are left out), all
    checked by ``games.limits.check_table``. ``money``: a registered money
    model to play with instead of the game's (``games.plugins.money``: an
    app's, such as a tournament's chips)."""
    known = PLUGINS.get(game)
    settings, numbers = game_settings(game, options, fields)
    check_table(
        game=game,
        preset=preset,
        settings=settings,
        stake=stake,
        seat_count=known.seats.high if seat_count is None and known else seat_count,
        **numbers,
    )
    if owner is not None:
        limit_open_tables(owner)
    seed, commitment = seed_source.new_seed()
    plugin = plugin_for(game)
    table = Table.objects.create(
        game=game,
        name=name[:60],
        preset=preset,
        settings=plugin.complete(settings),
        stake=stake,
        seat_count=plugin.seats.high if seat_count is None else seat_count,
        fill_with_bots=fill_with_bots,
        is_private=is_private,
        invite_code=secrets.token_urlsafe(8) if is_private else "",
        owner=owner,
        next_commitment=commitment,
        money=money,
        **numbers,
    )
    TableSeed.objects.create(table=table, server_seed=seed)
    work = TableWork(table.pk)
    work.open_table()
    work.commit()
    return table


# A "play now" table: its stake and seats (the rest are the site's defaults).
PLAY_NOW_STAKE = 10
PLAY_NOW_SEATS = 4


@retried
def table_play_now(*, user: User, game: str, address: str | None = None, **fields: Any) -> Table:
    """One tap, a hand: the player's seat at a "play now" table of ``game``,
    ready, the bots in the other seats ready too, so the table deals in this
    change when it can (docs/tables.md "Play now").

    * Seated already at an open table of this game (a tab closed, a second
      tap): that table, never a second seat or buy-in; readied if it waits.
    * Else a public bots-only table of the play-now stake that nobody is at.
    * Else a new one, the house's (``owner`` None): it counts against no
      one's ``MAX_OPEN_TABLES_PER_USER``, and the idle closer closes it.

    ``fields``: the clocks and bot think times of a new table (the site's
    ``TABLE_DEFAULTS``). Refusals (``not_enough_chips``, ``too_many_bots``...)
    change nothing. Requests of one player at once are counted one after
    another (their account's row, locked first as ``table_sit`` does)."""
    if game not in PLUGINS:
        raise TableNotFound()
    if not User.objects.select_for_update(no_key=True).filter(pk=user.pk, is_active=True).exists():
        raise AccountInactive()
    held = (
        Seat.objects.filter(user=user, table__game=game, table__money="", leaving=False)
        .exclude(table__status=Table.Status.CLOSED)
        .order_by("-table__fill_with_bots", "-pk")
        .values_list("table_id", flat=True)
        .first()
    )
    if held is not None:
        play_now_ready(table_id=held, user=user)
        return Table.objects.get(pk=held)
    for _attempt in range(3):
        table = selectors.open_table_for(game=game, stake=PLAY_NOW_STAKE, bots_only=True)
        if table is None:
            break
        try:
            table_sit(table_id=table.pk, user=user, address=address, ready=True)
        except TableFull:
            continue
        return table
    table = table_create(
        owner=None, game=game, stake=PLAY_NOW_STAKE, seat_count=PLAY_NOW_SEATS,
        fill_with_bots=True, **fields,
    )  # fmt: skip
    table_sit(table_id=table.pk, user=user, address=address, ready=True)
    return table


@retried
def table_timeout(*, table_id: int, clock_version: int) -> bool:
    """The table's clock ran out. Safe to call twice or late: it acts only if
    this clock is still the table's clock and its deadline has passed."""
    work = TableWork(table_id)
    table = work.table
    if (
        table.clock_version != clock_version
        or table.deadline is None
        or table.deadline > clock.now()
        or table.status == Table.Status.CLOSED
    ):
        return False
    work.timer_fired(table.clock, (clock.now() - table.deadline).total_seconds())
    started = table.clock_started_at
    if started is not None and _players_clock(work) and outages.during(started, table.deadline):
        # The room was down while it ran: nobody could answer it. Given again.
        kind = table.clock
        work.set_clock(kind, int((table.deadline - started).total_seconds() * 1000))
        metrics.clock_given_again(kind)
    elif table.clock == Table.Clock.READY:
        _ready_timeout(work)
    elif table.clock == Table.Clock.SEEDS:
        work.clear_clock()
        maybe_deal(work, seeds_waited=True)
    elif table.clock == Table.Clock.SUMMARY:
        _summary_over(work)
    else:
        work.load_move()
        hand_timeout(work)
    work.commit()
    return True


def _players_clock(work: TableWork) -> bool:
    """The table's clock runs for players (the ready clock, a turn, an
    arrange), not for the table (the summary, the seeds' wait, a reveal)."""
    kind = work.table.clock
    if kind == Table.Clock.READY:
        return True
    if kind in (Table.Clock.SUMMARY, Table.Clock.SEEDS):
        return False
    engine_clock = work.plugin.engine.clocks.get(kind)
    return engine_clock is not None and engine_clock.for_actors


def _ready_timeout(work: TableWork) -> None:
    """docs/rules.md 2.7: players not ready when the ready clock runs out leave the
    table (told why: not ready, or short of the chips to be dealt in)."""
    work.clear_clock()
    for seat in list(work.seats) if not work.money.holds_seats else []:
        if not seat.ready and not seat.is_bot and not seat.sitting_out:
            reason = Departure.Reason.NOT_READY
            if short_of_chips(work, seat):
                reason = Departure.Reason.NO_CHIPS
            free_seat(work, seat, reason)
    maybe_deal(work)


def _summary_over(work: TableWork) -> None:
    hand = work.hand
    if hand is not None and not hand.settled:
        work.set_clock(Table.Clock.SUMMARY, 1000)
        work.settle_later(hand.pk)
        return
    work.clear_clock()
    work.update_table(status=Table.Status.WAITING)
    if work.money.holds_seats:
        # A tournament's seats: everyone with chips is dealt in, here or not
        # (the rules' time-outs act for the absent).
        for seat in work.seats:
            if not seat.ready or seat.sitting_out:
                work.update_seat(seat, ready=True, sitting_out=False)
        maybe_deal(work)
        return
    for seat in list(work.seats):
        if gone(seat, work.table.ready_seconds):
            free_seat(work, seat, Departure.Reason.NOT_READY)
    for seat in work.seats:
        if seat.is_bot:
            if not seat.ready or not work.plugin.keeps_ready:
                work.update_seat(seat, ready=False)
                work.bot_to_ready(seat.position)
        elif not work.plugin.keeps_ready:
            work.update_seat(seat, ready=ready_by_itself(work, seat))
    ready_clock(work)
    maybe_deal(work)


def claim_timers() -> list[tuple[int, int, datetime]]:
    """Clocks that run out within ``TIMER_QUEUE_AHEAD_S`` and have no timer task
    yet: (table, clock version, deadline). Each is marked queued here, once."""
    limit = clock.now() + timedelta(seconds=settings.TIMER_QUEUE_AHEAD_S)
    due = []
    for table_id, version, deadline in (
        Table.objects.filter(deadline__lte=limit, timer_version__lt=F("clock_version"))
        .exclude(status=Table.Status.CLOSED)
        .values_list("pk", "clock_version", "deadline")
    ):
        try:
            marked = Table.objects.filter(
                pk=table_id, clock_version=version, timer_version__lt=version
            ).update(timer_version=version)
        except OperationalError as exc:
            if not timed_out(exc):
                raise
            # A move holds the row past DB_LOCK_TIMEOUT_MS: the next run (2 s)
            # claims it; the rest of this run goes on.
            logger.warning("sweeper: timer of table %s not claimed: %s", table_id, exc)
            continue
        if marked and deadline is not None:
            due.append((table_id, version, deadline))
    return due


def chat_post(*, table_id: int, user: User, text: object) -> ChatMessage:
    if not isinstance(text, str) or not 1 <= len(text.strip()) <= 200:
        raise BadChat()
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise TableNotFound()
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    active, muted_until, muted_reason = (
        User.objects.filter(pk=user.pk)
        .values_list("is_active", "muted_until", "muted_reason")
        .get()
    )
    if not active:
        raise AccountInactive()
    if muted_until is not None and muted_until > clock.now():
        raise ChatMuted(until=muted_until, reason=muted_reason)
    message = ChatMessage.objects.create(table=table, user=user, text=text.strip())
    payload = {
        "type": "chat",
        "id": message.pk,
        "user_id": user.pk,
        "name": user.shown_name,
        "text": message.text,
        "at": publish.epoch_ms(message.created_at),
    }
    notify.send_on_commit(
        [(publish.chat_group(table_id), {"type": "table.chat", "payload": payload})]
    )
    return message


@retried
def table_close(*, table_id: int, by: User | None, reason: str = "") -> None:
    """Close a table: a hand in play is voided (no chips have moved during it:
    settlement happens only at its end), a finished hand is settled first,
    every seat is freed and Hold'em stacks go back to the wallets."""
    work = TableWork(table_id)
    table = work.table
    if by is not None and not by.is_staff and table.owner_id != by.pk:
        raise PermissionDenied()
    _close(work, reason)


# The reason a table closed by its owner gives its players (stored in the
# site's language, as the idle closer's).
OWNER_CLOSED = _("Closed by its owner.")


@retried
def table_close_own(*, table_id: int, user: User) -> None:
    """The table's owner closes it, as a moderator's force-close does (the
    one ``_close``: a hand in play voided, a finished one settled, every seat
    freed, Hold'em stacks back in the wallets, every socket sent the closed
    state), the reason ``OWNER_CLOSED``. A closed table stays as it was (no
    second refund). Anyone else: ``private_table`` where they may not open the
    table, else ``not_table_owner``; either changes nothing."""
    work = TableWork(table_id)
    table = work.table
    if table.owner_id is None or table.owner_id != user.pk:
        seated = work.seat_of(user) is not None
        if not can_view(table, user, "", seated):
            raise PrivateTable()
        raise NotTableOwner()
    with translation.override(settings.LANGUAGE_CODE):
        reason = str(OWNER_CLOSED)
    _close(work, reason)


def _close(work: TableWork, reason: str) -> None:
    table = work.table
    if table.status == Table.Status.CLOSED:
        return
    hand = work.hand
    if hand is not None and hand.ended_at is not None and not hand.settled:
        settle_in(work, hand.pk)
        hand = work.hand
    if hand is not None and hand.ended_at is None:
        work.void_hand(publish.voided_result(table.game, work.unit(), len(hand.players), reason))
    for seat in list(work.seats):
        free_seat(work, seat, Departure.Reason.CLOSED)
    work.update_table(status=Table.Status.CLOSED, closed_reason=reason[:200])
    work.clear_clock()
    work.commit()


def _could_read(user: User, message: ChatMessage, invite_code: str) -> bool:
    """Whether ``user`` could read the line: anyone at a public table (spectators
    see its chat too); at a private one, whoever may open it (seated, its
    owner, staff, the invite code) or played a hand there."""
    table = message.table
    played = (
        Seat.objects.filter(table=table, user=user).exists()
        or HandPlayer.objects.filter(hand__table=table, user=user).exists()
    )
    return can_view(table, user, invite_code, played)


# The longest note a reporter may add to a reported chat line (ChatFlag.note).
NOTE_MAX = 200


@retried
def chat_report(
    *, user: User, message_id: object, category: object = "abuse", note: object = "",
    invite_code: str = "",
) -> ChatReport:  # fmt: skip
    """A player reports a chat line they could read: the line joins the
    moderators' queue (or gains a report there). Not their own line, not a
    bot's, not one older than ``CHAT_REPORT_MAX_AGE_HOURS``, once per player
    and line, at most ``CHAT_REPORT_RATE`` reports per player. A line a
    moderator has already dealt with keeps its decision: the report is
    recorded, the line does not return to the queue."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied()
    # Read now, not from the caller's copy (a socket opened before a ban).
    if not User.objects.filter(pk=user.pk, is_active=True).exists():
        raise PermissionDenied()
    if (
        category not in ChatFlag.Category.values
        or not isinstance(note, str)
        or len(note) > NOTE_MAX
    ):
        raise BadReport(categories=", ".join(ChatFlag.Category.values))
    if isinstance(message_id, bool) or not isinstance(message_id, int):
        raise ChatLineNotFound()
    message = ChatMessage.objects.select_related("table", "user").filter(pk=message_id).first()
    if message is None or not _could_read(user, message, invite_code):
        raise ChatLineNotFound()
    if message.user_id == user.pk:
        raise CannotReportOwn()
    if message.user.is_bot:
        raise CannotReportBot()
    now = clock.now()
    hours = settings.CHAT_REPORT_MAX_AGE_HOURS
    if message.created_at < now - timedelta(hours=hours):
        raise ChatLineTooOld(hours=hours)
    if ChatFlag.objects.filter(report__message=message, reporter=user).exists():
        raise AlreadyReported()
    wait = limits.take("chat_report", str(user.pk), limits.settings_rate("CHAT_REPORT_RATE"))
    if wait:
        raise ReportTooFast(wait=max(1, round(wait)))
    report, _created = ChatReport.objects.select_for_update().get_or_create(
        message=message, defaults={"first_reported_at": now, "last_reported_at": now}
    )
    try:
        with transaction.atomic():
            ChatFlag.objects.create(
                report=report, reporter=user, category=category, note=note.strip(), created_at=now
            )
    except IntegrityError:  # the same player, twice at once
        raise AlreadyReported() from None
    ChatReport.objects.filter(pk=report.pk).update(
        flag_count=models.F("flag_count") + 1, last_reported_at=now
    )
    report.refresh_from_db()
    return report
