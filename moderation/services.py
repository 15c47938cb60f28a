"""Moderation actions (issue 8, items 6-10).

Each action is staff only, needs a reason, runs in one transaction that also
writes its :class:`AuditEntry` (before and after), and tells the player's open
sockets only after commit.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.db import IntegrityError, models, transaction
from django.db.models import Func, Sum
from django.utils import timezone

from accounts.models import DeviceSession, User
from accounts.sessions import sessions_end
from games import clock, publish
from games import services as table_services
from games.errors import TableClosed, TableNotFound
from games.models import ChatReport, Seat, Table
from kernel.errors import PermissionDenied
from kernel.notify import tell_user_on_commit
from kernel.retry import retried
from tournaments import services as tournaments
from tournaments.errors import TournamentNotFound
from tournaments.models import Tournament
from wallet import services as wallet
from wallet.errors import InvalidAmount
from wallet.models import Adjustment

from .errors import (
    AdjustmentNotPending,
    AlreadyBanned,
    BadAdjustKey,
    BadMuteLength,
    CannotActOnLinked,
    CannotApproveOwn,
    CannotModerateSelf,
    NotBanned,
    NotMuted,
    ReasonRequired,
    ReportNotOpen,
)
from .models import AuditEntry, Sighting
from .selectors import accounts_linked

Action = AuditEntry.Action
MAX_MUTE_MINUTES = 60 * 24 * 365


def _require_staff(by: User | None) -> User:
    if by is None or not by.is_authenticated or not by.is_active or not by.is_staff:
        raise PermissionDenied()
    return by


def _require_reason(reason: object) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ReasonRequired()
    return reason.strip()


def _lock_target(by: User, user: User) -> User:
    """The target user's row, locked; staff accounts only by a superuser."""
    if user.pk == by.pk:
        raise CannotModerateSelf()
    # (NO KEY: see games.services.seats._require_active)
    locked = User.objects.select_for_update(no_key=True).get(pk=user.pk)
    if locked.is_staff and not by.is_superuser:
        raise PermissionDenied()
    return locked


def audit_record(
    *,
    actor: User,
    action: str,
    target: models.Model,
    reason: str,
    before: dict[str, Any],
    after: dict[str, Any],
) -> AuditEntry:
    """Append to the audit log (call inside the action's transaction)."""
    return AuditEntry.objects.create(
        actor=actor,
        action=action,
        reason=reason,
        target_type=ContentType.objects.get_for_model(target),
        target_id=target.pk,
        target_label=str(target)[:200],
        before=before,
        after=after,
    )


def _session_keys(user: User) -> list[str]:
    """The user's live sessions (database sessions carry no user column: each
    live session is decoded, once per ban)."""
    wanted = str(user.pk)
    return [
        session.session_key
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if session.get_decoded().get(SESSION_KEY) == wanted
    ]


def _seats(user: User) -> list[dict[str, Any]]:
    return [
        {"table": table_id, "position": position, "leaving": leaving}
        for table_id, position, leaving in Seat.objects.filter(user=user)
        .order_by("table_id")
        .values_list("table_id", "position", "leaving")
    ]


def _account_picture(user: User, sessions: int) -> dict[str, Any]:
    return {
        "is_active": user.is_active,
        "seats": _seats(user),
        "tokens": DeviceSession.objects.filter(user=user).count(),
        "sessions": sessions,
    }


@retried
def user_ban(*, by: User, user: User, reason: str) -> AuditEntry:
    """Deactivate the account, leave every table (mid-hand: through the game's
    leave rule, the seat frees at settlement; between hands: at once, Hold'em
    stacks back to the wallet), revoke API tokens, end sessions, and close the
    player's sockets after commit."""
    _require_staff(by)
    reason = _require_reason(reason)
    locked = _lock_target(by, user)
    if not locked.is_active:
        raise AlreadyBanned()
    sessions = _session_keys(locked)
    before = _account_picture(locked, len(sessions))
    # Leave first (as the player, while still active: the table services refuse
    # an inactive account), then deactivate; all in this one transaction.
    for table_id in (
        Seat.objects.filter(user=locked).order_by("table_id").values_list("table_id", flat=True)
    ):
        table_services.table_leave(table_id=table_id, user=locked)
    locked.is_active = False
    locked.save(update_fields=["is_active"])
    sessions_end(user_id=locked.pk, close_sockets=False)  # the ban closes them (4401)
    Session.objects.filter(session_key__in=sessions).delete()
    after = _account_picture(locked, 0)
    entry = audit_record(
        actor=by, action=Action.BAN, target=locked, reason=reason, before=before, after=after
    )
    user_id = locked.pk
    tell_user_on_commit(user_id, {"type": "account.banned", "reason": reason})
    user.is_active = False
    return entry


@retried
def user_unban(*, by: User, user: User, reason: str) -> AuditEntry:
    """Let the player log in again (tokens and sessions stay revoked)."""
    _require_staff(by)
    reason = _require_reason(reason)
    locked = _lock_target(by, user)
    if locked.is_active:
        raise NotBanned()
    locked.is_active = True
    locked.save(update_fields=["is_active"])
    user.is_active = True
    return audit_record(
        actor=by,
        action=Action.UNBAN,
        target=locked,
        reason=reason,
        before={"is_active": False},
        after={"is_active": True},
    )


def _mute_picture(user: User) -> dict[str, Any]:
    until = user.muted_until
    return {
        "muted_until": None if until is None else until.isoformat(),
        "muted_reason": user.muted_reason,
    }


def is_muted(user: User, now: datetime | None = None) -> bool:
    return user.muted_until is not None and user.muted_until > (now or clock.now())


@retried
def user_mute(*, by: User, user: User, minutes: int, reason: str) -> AuditEntry:
    """Refuse the player's chat for ``minutes`` (from now; replaces a running mute)."""
    _require_staff(by)
    reason = _require_reason(reason)
    if isinstance(minutes, bool) or not isinstance(minutes, int):
        raise BadMuteLength(most=MAX_MUTE_MINUTES)
    if not 1 <= minutes <= MAX_MUTE_MINUTES:
        raise BadMuteLength(most=MAX_MUTE_MINUTES)
    locked = _lock_target(by, user)
    before = _mute_picture(locked)
    locked.muted_until = clock.now() + timedelta(minutes=minutes)
    locked.muted_reason = reason[:200]
    locked.save(update_fields=["muted_until", "muted_reason"])
    user.muted_until, user.muted_reason = locked.muted_until, locked.muted_reason
    entry = audit_record(
        actor=by,
        action=Action.MUTE,
        target=locked,
        reason=reason,
        before=before,
        after={**_mute_picture(locked), "minutes": minutes},
    )
    message = {
        "type": "account.muted",
        "until": publish.epoch_ms(locked.muted_until),
        "reason": locked.muted_reason,
    }
    user_id = locked.pk
    tell_user_on_commit(user_id, message)
    return entry


@retried
def user_unmute(*, by: User, user: User, reason: str) -> AuditEntry:
    _require_staff(by)
    reason = _require_reason(reason)
    locked = _lock_target(by, user)
    if not is_muted(locked):
        raise NotMuted()
    before = _mute_picture(locked)
    locked.muted_until, locked.muted_reason = None, ""
    locked.save(update_fields=["muted_until", "muted_reason"])
    user.muted_until, user.muted_reason = None, ""
    entry = audit_record(
        actor=by,
        action=Action.UNMUTE,
        target=locked,
        reason=reason,
        before=before,
        after=_mute_picture(locked),
    )
    user_id = locked.pk
    tell_user_on_commit(user_id, {"type": "account.unmuted"})
    return entry


def _table_picture(table: Table) -> dict[str, Any]:
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    chips = publish.seat_chips(table, seats)
    hand = table.current_hand
    return {
        "status": table.status,
        "closed_reason": table.closed_reason,
        "hand": None
        if hand is None
        else {
            "id": hand.pk,
            "number": hand.number,
            "finished": hand.ended_at is not None,
            "settled": hand.settled,
            "voided": hand.voided,
        },
        "seats": [
            {
                "position": s.position,
                "user_id": s.user_id,
                "name": s.user.shown_name,
                "chips": chips.get(s.position),
            }
            for s in seats
        ],
    }


@retried
def table_force_close(*, by: User, table_id: int, reason: str) -> AuditEntry:
    """Close a live table: a hand in play is voided (chips only move when a hand
    is settled, so every balance is what it was when the hand began), a finished
    hand is settled, Hold'em stacks go back to the wallets, and the players'
    sockets get the closed state with the reason."""
    _require_staff(by)
    reason = _require_reason(reason)
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise TableNotFound()
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    before = _table_picture(table)
    table_services.table_close(table_id=table_id, by=by, reason=reason)
    table.refresh_from_db()
    return audit_record(
        actor=by,
        action=Action.TABLE_CLOSE,
        target=table,
        reason=reason,
        before=before,
        after=_table_picture(table),
    )


@retried
def tournament_cancel(*, by: User, tournament_id: int, reason: str) -> AuditEntry:
    """Call a tournament off: every entry gets its buy-in and fee back exactly
    (``tournaments.services.tournament_cancel``), in the audit log with the
    entries and the pool before and after."""
    _require_staff(by)
    reason = _require_reason(reason)
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound()
    before = tournaments.picture(tournament)
    tournament = tournaments.tournament_cancel(tournament_id=tournament_id, reason=reason)
    return audit_record(
        actor=by,
        action=Action.TOURNAMENT_CANCEL,
        target=tournament,
        reason=reason,
        before=before,
        after=tournaments.picture(tournament),
    )


ADJUST_KEY = re.compile(r"adjust:[0-9a-f]{32}")


def adjust_key() -> str:
    """A fresh idempotency key for one staff adjustment (made here, never taken
    from a form)."""
    return f"adjust:{secrets.token_hex(16)}"


def _require_adjuster(by: User | None) -> User:
    staff = _require_staff(by)
    if not staff.has_perm("wallet.adjust_balance"):
        raise PermissionDenied()
    return staff


def _refuse_own_or_linked(by: User, user: User) -> None:
    """No staff member adjusts, approves or rejects money for their own
    account or one that shares an address or device with theirs."""
    if user.pk == by.pk:
        raise CannotModerateSelf()
    if accounts_linked(user=by, other=user):
        raise CannotActOnLinked()


def _post_adjustment(
    *, by: User, user: User, amount: int, reason: str, key: str, action: str, extra: dict[str, Any]
) -> wallet.PostResult:
    result = wallet.admin_adjust(user=user, amount=amount, reason=reason, staff_user=by, key=key)
    if result.created:
        account = wallet.account_for_user(user=user)
        balance_after = result.transaction.entries.get(account=account).balance_after
        audit_record(
            actor=by,
            action=action,
            target=user,
            reason=reason,
            before={"balance": balance_after - amount},
            after={
                "balance": balance_after,
                "amount": amount,
                "transaction": result.transaction.pk,
                **extra,
            },
        )
    return result


def _posted_alone(by: User, account_id: int) -> tuple[int, int]:
    """Chips (sum of |amount|) ``by`` posted without a second staff member in
    the last ``ADJUST_APPROVAL_WINDOW_HOURS``: to this account, to all."""
    since = timezone.now() - timedelta(hours=settings.ADJUST_APPROVAL_WINDOW_HOURS)
    recent = Adjustment.objects.filter(
        requested_by=by, status=Adjustment.Status.POSTED, requested_at__gte=since
    )
    size = Func(models.F("amount"), function="ABS")
    total = recent.aggregate(chips=Sum(size))["chips"] or 0
    to_account = recent.filter(account_id=account_id).aggregate(chips=Sum(size))["chips"] or 0
    return int(to_account), int(total)


@retried
def balance_adjust(
    *, by: User, user: User, amount: int, reason: str, key: str
) -> wallet.PostResult | Adjustment:
    """The wallet's audited staff correction (needs ``wallet.adjust_balance``).

    ``key`` is ``adjust:`` and 32 hex digits, made by :func:`adjust_key` (a
    repeated key neither posts nor logs again). Never to one's own account or
    a linked one (:func:`accounts_linked`). Posted at once while what this
    staff member posted alone in the last ``ADJUST_APPROVAL_WINDOW_HOURS``,
    this one included, stays within ``ADJUST_APPROVAL_LIMIT`` chips (either
    way) for this player and ``ADJUST_APPROVAL_STAFF_LIMIT`` for all players;
    otherwise it becomes a pending :class:`Adjustment` that another staff
    member approves or rejects. Either way it is an :class:`Adjustment` row.
    """
    _require_adjuster(by)
    reason = _require_reason(reason)
    if not isinstance(key, str) or not ADJUST_KEY.fullmatch(key):
        raise BadAdjustKey()
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise InvalidAmount()
    _refuse_own_or_linked(by, user)
    # Both users' rows, in primary-key order (the lock order, docs/architecture.md:
    # two staff members adjusting each other at once wait, never deadlock): the
    # sums below are read and extended by one adjustment at a time per staff member.
    list(User.objects.select_for_update(no_key=True).filter(pk__in=(by.pk, user.pk)).order_by("pk"))
    account = wallet.account_for_user(user=user)
    found = Adjustment.objects.filter(key=key).first()
    if found is not None and found.status != Adjustment.Status.POSTED:
        return found
    to_account, total = _posted_alone(by, account.pk)
    size = abs(amount)
    limit, staff_limit = settings.ADJUST_APPROVAL_LIMIT, settings.ADJUST_APPROVAL_STAFF_LIMIT
    if found is not None or (to_account + size <= limit and total + size <= staff_limit):
        result = _post_adjustment(
            by=by, user=user, amount=amount, reason=reason, key=key,
            action=Action.BALANCE_ADJUST, extra={},
        )  # fmt: skip
        if result.created:
            Adjustment.objects.create(
                account=account,
                amount=amount,
                reason=reason,
                key=key,
                status=Adjustment.Status.POSTED,
                requested_by=by,
                transaction=result.transaction,
            )
        return result
    adjustment = Adjustment.objects.create(
        account=account, amount=amount, reason=reason, key=key, requested_by=by
    )
    audit_record(
        actor=by,
        action=Action.ADJUST_REQUEST,
        target=user,
        reason=reason,
        before={"balance": account.balance},
        after={
            "amount": amount,
            "adjustment": adjustment.pk,
            "status": adjustment.status,
            "limit": limit,
            "staff_limit": staff_limit,
            "window_hours": settings.ADJUST_APPROVAL_WINDOW_HOURS,
            "posted_alone_to_player": to_account,
            "posted_alone_in_all": total,
        },
    )
    return adjustment


def _lock_pending(by: User, adjustment_id: int) -> Adjustment:
    adjustment = (
        Adjustment.objects.select_for_update(of=("self",))
        .select_related("account__user", "requested_by")
        .filter(pk=adjustment_id)
        .first()
    )
    if adjustment is None or adjustment.status != Adjustment.Status.PENDING:
        raise AdjustmentNotPending()
    if adjustment.requested_by_id == by.pk:
        raise CannotApproveOwn()
    player = adjustment.account.user
    assert player is not None
    _refuse_own_or_linked(by, player)
    return adjustment


@retried
def adjustment_approve(*, by: User, adjustment_id: int, reason: str) -> wallet.PostResult:
    """A second staff member (never the one who asked, never the player or
    an account linked to them) approves: posted now."""
    _require_adjuster(by)
    reason = _require_reason(reason)
    adjustment = _lock_pending(by, adjustment_id)
    player = adjustment.account.user
    assert player is not None
    result = _post_adjustment(
        by=by,
        user=player,
        amount=adjustment.amount,
        reason=adjustment.reason,
        key=adjustment.key,
        action=Action.ADJUST_APPROVE,
        extra={
            "adjustment": adjustment.pk,
            "requested_by": adjustment.requested_by.username,
            "approval_reason": reason,
        },
    )
    adjustment.status = Adjustment.Status.APPROVED
    adjustment.decided_by, adjustment.decided_at = by, timezone.now()
    adjustment.decision_reason, adjustment.transaction = reason, result.transaction
    adjustment.save()
    return result


@retried
def adjustment_reject(*, by: User, adjustment_id: int, reason: str) -> AuditEntry:
    """Refuse a pending adjustment: nothing is posted (the same staff members
    as :func:`adjustment_approve` may decide)."""
    _require_adjuster(by)
    reason = _require_reason(reason)
    adjustment = _lock_pending(by, adjustment_id)
    adjustment.status = Adjustment.Status.REJECTED
    adjustment.decided_by, adjustment.decided_at = by, timezone.now()
    adjustment.decision_reason = reason
    adjustment.save()
    player = adjustment.account.user
    assert player is not None
    return audit_record(
        actor=by,
        action=Action.ADJUST_REJECT,
        target=player,
        reason=reason,
        before={"adjustment": adjustment.pk, "status": Adjustment.Status.PENDING},
        after={
            "adjustment": adjustment.pk,
            "status": adjustment.status,
            "amount": adjustment.amount,
        },
    )


def _lock_open_report(report_id: int) -> ChatReport:
    report = (
        ChatReport.objects.select_for_update(of=("self",))
        .select_related("message__user")
        .filter(pk=report_id)
        .first()
    )
    if report is None or report.status != ChatReport.Status.OPEN:
        raise ReportNotOpen()
    return report


def _close_report(report: ChatReport, *, by: User, status: str, reason: str) -> None:
    report.status = status
    report.resolved_by, report.resolved_at, report.resolution = by, timezone.now(), reason
    report.save(update_fields=["status", "resolved_by", "resolved_at", "resolution"])


def _report_picture(report: ChatReport) -> dict[str, Any]:
    return {
        "status": report.status,
        "line": report.message_id,
        "author": report.message.user_id,
        "text": report.message.text,
        "reports": report.flag_count,
    }


@retried
def chat_report_dismiss(*, by: User, report_id: int, reason: str) -> AuditEntry:
    """Nothing wrong with the line: it leaves the queue (never by its author)."""
    _require_staff(by)
    reason = _require_reason(reason)
    report = _lock_open_report(report_id)
    if report.message.user_id == by.pk:
        raise CannotModerateSelf()
    before = _report_picture(report)
    _close_report(report, by=by, status=ChatReport.Status.DISMISSED, reason=reason)
    return audit_record(
        actor=by,
        action=Action.REPORT_DISMISS,
        target=report,
        reason=reason,
        before=before,
        after=_report_picture(report),
    )


@retried
def chat_report_mute(*, by: User, report_id: int, minutes: int, reason: str) -> AuditEntry:
    """The line breaks the rules: its author is muted (:func:`user_mute`, with
    its own audit entry and the author told why) and the line leaves the queue."""
    _require_staff(by)
    reason = _require_reason(reason)
    report = _lock_open_report(report_id)
    before = _report_picture(report)
    mute = user_mute(by=by, user=report.message.user, minutes=minutes, reason=reason)
    _close_report(report, by=by, status=ChatReport.Status.MUTED, reason=reason)
    return audit_record(
        actor=by,
        action=Action.REPORT_MUTE,
        target=report,
        reason=reason,
        before=before,
        after={**_report_picture(report), "minutes": minutes, "mute_entry": mute.pk},
    )


def sighting_record(*, user: User, ip: str, device: str, at: datetime | None = None) -> None:
    """Remember that ``user`` was seen from ``ip`` with ``device`` (one row per
    triple: first and last time seen)."""
    moment = at or timezone.now()
    rows = Sighting.objects.filter(user=user, ip=ip, device=device)
    if rows.filter(last_seen__lt=moment).update(last_seen=moment) or rows.exists():
        return
    try:
        with transaction.atomic():
            Sighting.objects.create(
                user=user, ip=ip, device=device, first_seen=moment, last_seen=moment
            )
    except IntegrityError:  # a concurrent request recorded it first
        rows.filter(last_seen__lt=moment).update(last_seen=moment)
