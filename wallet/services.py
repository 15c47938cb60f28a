"""The only code that moves chips. Every write goes through ``ledger_post``.

Each function runs in one transaction, locks the accounts it touches in
primary-key order, updates balances in the database (``F()`` expressions, or
on PostgreSQL one statement for several accounts: ``wallet.sql``) and notifies
clients only after commit.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from accounts.services import bot_create, user_register
from kernel import notify
from kernel.errors import PermissionDenied
from kernel.ops.isolation import each_on_its_own
from kernel.retry import retried

from . import sql
from .errors import (
    AccountClosed,
    BonusAlreadyClaimed,
    HoldNotPending,
    IdempotencyConflict,
    InsufficientChips,
    InvalidAmount,
    ReasonRequired,
    SeatOccupied,
    UnbalancedTransaction,
    UnknownAccount,
)
from .models import Account, Hold, LedgerEntry, LedgerTransaction

logger = logging.getLogger(__name__)
Kind = LedgerTransaction.Kind
ISSUANCE_KEY = "issuance"
HOUSE_KEY = "house"


@dataclass(frozen=True)
class PostResult:
    transaction: LedgerTransaction
    created: bool


def _check_amount(amount: object) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise InvalidAmount()
    return amount


def system_account(kind: Account.Kind) -> Account:
    key = {Account.Kind.ISSUANCE: ISSUANCE_KEY, Account.Kind.HOUSE: HOUSE_KEY}[kind]
    account, _ = Account.objects.get_or_create(key=key, defaults={"kind": kind})
    return account


HOUSE_FLOAT_KEY = "house:float"


def house_account() -> Account:
    """The house: lends bots their chips and takes them back (bots win and lose
    against it). It gets ``HOUSE_FLOAT`` chips from issuance once, when it is
    first used; after that issuance never funds a bot."""
    house = system_account(Account.Kind.HOUSE)
    if (
        settings.HOUSE_FLOAT > 0
        and not LedgerTransaction.objects.filter(idempotency_key=HOUSE_FLOAT_KEY).exists()
    ):
        transfer(
            source=system_account(Account.Kind.ISSUANCE),
            destination=house,
            amount=settings.HOUSE_FLOAT,
            key=HOUSE_FLOAT_KEY,
            kind=Kind.HOUSE_FLOAT,
            reason="house float",
        )
        house.refresh_from_db()
    return house


def house_lock() -> Account:
    """The house's row, locked until the end of the caller's transaction (which
    must be open). Every bot's loan locks it anyway: taken first, it makes
    requests that grow the bot pool wait for each other."""
    return Account.objects.select_for_update().get(pk=house_account().pk)


@retried
def bot_lend(*, bot: User, amount: int, key: str, reason: str = "") -> PostResult:
    """Lend a bot chips from the house (InsufficientChips when the house is short)."""
    return transfer(
        source=house_account(),
        destination=account_for_user(user=bot),
        amount=amount,
        key=key,
        kind=Kind.BOT_LOAN,
        reason=reason or "bot chips",
    )


@retried
def bot_repay(*, bot: User, key: str, reason: str = "") -> int:
    """Everything a bot holds goes back to the house; returns the amount."""
    account, house = lock_accounts([account_for_user(user=bot).pk, house_account().pk])
    amount = account.balance - account.held
    if amount > 0:
        transfer(
            source=account,
            destination=house,
            amount=amount,
            key=key,
            kind=Kind.BOT_RETURN,
            reason=reason or "bot chips back",
        )
    return max(amount, 0)


def lock_accounts(pks: Sequence[int]) -> list[Account]:
    """These accounts, locked in primary-key order in one statement (the one
    order of docs/architecture.md "Lock order"), returned in the order asked."""
    locked = {
        a.pk: a for a in Account.objects.filter(pk__in=pks).order_by("pk").select_for_update()
    }
    if len(locked) != len(set(pks)):
        raise UnknownAccount()
    return [locked[pk] for pk in pks]


def account_for_user(*, user: User) -> Account:
    account, _ = Account.objects.get_or_create(
        key=f"user:{user.pk}", defaults={"kind": Account.Kind.USER, "user": user}
    )
    return account


def prize_pool_account(*, key: str) -> Account:
    """A prize pool's account (kind ``prize_pool``, no owner), made on first use."""
    account, _ = Account.objects.get_or_create(key=key, defaults={"kind": Account.Kind.PRIZE_POOL})
    return account


def _fingerprint(kind: str, amounts: Mapping[int, int], hand_id: int | None) -> str:
    payload = {"kind": kind, "amounts": sorted(amounts.items()), "hand": hand_id}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _existing(key: str, fingerprint: str) -> LedgerTransaction | None:
    found = LedgerTransaction.objects.filter(idempotency_key=key).first()
    if found is not None and found.fingerprint != fingerprint:
        raise IdempotencyConflict()
    return found


@retried
def ledger_post(
    *,
    key: str,
    kind: str,
    postings: Sequence[tuple[Account | int, int]],
    reason: str = "",
    created_by: User | None = None,
    hand_id: int | None = None,
    release_held: Mapping[int, int] | None = None,
) -> PostResult:
    """Record one balanced transaction, exactly once per ``key``.

    ``postings`` are (account, signed amount) pairs summing to zero. The same
    key with the same payload returns the first transaction; with a different
    payload it raises :class:`IdempotencyConflict`. ``release_held`` lowers
    accounts' held chips in the same step (paying from a hold).
    """
    amounts: dict[int, int] = {}
    for account, amount in postings:
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise InvalidAmount()
        account_id = account if isinstance(account, int) else account.pk
        amounts[account_id] = amounts.get(account_id, 0) + amount
    amounts = {a: v for a, v in amounts.items() if v != 0}
    if not amounts:
        raise InvalidAmount()
    if sum(amounts.values()) != 0:
        raise UnbalancedTransaction()
    fingerprint = _fingerprint(kind, amounts, hand_id)
    found = _existing(key, fingerprint)
    if found is not None:
        return PostResult(found, created=False)
    try:
        with transaction.atomic():
            txn = LedgerTransaction.objects.create(
                idempotency_key=key,
                kind=kind,
                reason=reason,
                created_by=created_by,
                hand_id=hand_id,
                fingerprint=fingerprint,
            )
    except IntegrityError:
        # A concurrent post with the same key committed first.
        found = _existing(key, fingerprint)
        if found is None:
            raise
        return PostResult(found, created=False)

    release = dict(release_held or {})
    locked = list(Account.objects.filter(pk__in=amounts).order_by("pk").select_for_update())
    if len(locked) != len(amounts):
        raise UnknownAccount()
    entries = []
    owners: dict[int, tuple[int, int]] = {}
    for account in locked:
        amount = amounts[account.pk]
        freed = release.get(account.pk, 0)
        if account.is_closed:
            raise AccountClosed()
        new_balance = account.balance + amount
        new_held = account.held - freed
        if account.kind != Account.Kind.ISSUANCE and new_balance < new_held:
            raise InsufficientChips(
                needed=-amount, available=account.balance - account.held + freed
            )
        entries.append(
            LedgerEntry(transaction=txn, account=account, amount=amount, balance_after=new_balance)
        )
        if account.user_id is not None and account.kind == Account.Kind.USER:
            owners[account.user_id] = (new_balance, new_balance - new_held)
    _move_balances([(a.pk, amounts[a.pk], release.get(a.pk, 0)) for a in locked])
    LedgerEntry.objects.bulk_create(entries)
    if owners:
        # Their open pages show the new balance (after commit, best effort).
        notify.send_on_commit(
            [
                (
                    notify.user_group(user_id),
                    {"type": "wallet.balance", "balance": balance, "available": available},
                )
                for user_id, (balance, available) in owners.items()
            ]
        )
    return PostResult(txn, created=True)


def _move_balances(changes: Sequence[tuple[int, int, int]]) -> None:
    """Each (account id, amount, freed): the balance moved by ``amount`` and
    the held chips lowered by ``freed``, as ``F()`` updates would; the accounts
    are locked by the caller. One statement on PostgreSQL."""
    if connection.vendor != "postgresql":
        for pk, amount, freed in changes:
            Account.objects.filter(pk=pk).update(
                balance=F("balance") + amount, held=F("held") - freed
            )
        return
    sql.move_balances(changes)


def transfer(
    *,
    source: Account,
    destination: Account,
    amount: int,
    key: str,
    kind: str = Kind.TRANSFER,
    reason: str = "",
    created_by: User | None = None,
    hand_id: int | None = None,
) -> PostResult:
    amount = _check_amount(amount)
    return ledger_post(
        key=key,
        kind=kind,
        postings=[(source, -amount), (destination, amount)],
        reason=reason,
        created_by=created_by,
        hand_id=hand_id,
    )


def chips_grant(
    *, user: User, amount: int, key: str, kind: str = Kind.GRANT, reason: str = ""
) -> PostResult:
    """Chips from the issuance account (the only one that may go negative)."""
    return transfer(
        source=system_account(Account.Kind.ISSUANCE),
        destination=account_for_user(user=user),
        amount=amount,
        key=key,
        kind=kind,
        reason=reason,
    )


@transaction.atomic
def player_signup(*, username: str, display_name: str, password: str) -> User:
    """A new player: the user (``user_register``: its names and password
    checked), a wallet and the sign-up grant, in one transaction (nothing
    created when any of them is refused)."""
    user = user_register(username=username, display_name=display_name, password=password)
    account_for_user(user=user)
    signup_grant(user=user)
    return user


@transaction.atomic
def bot_signup(*, username: str, display_name: str) -> User:
    """A bot account (``bot_create``) with its wallet. It starts with no chips:
    the house lends them when it sits (issue 13)."""
    user = bot_create(username=username, display_name=display_name)
    account_for_user(user=user)
    return user


def signup_grant(*, user: User) -> PostResult:
    return chips_grant(
        user=user, amount=settings.SIGNUP_GRANT, key=f"signup:{user.pk}", kind=Kind.SIGNUP_GRANT
    )


def bonus_day(now: datetime | None = None) -> str:
    moment = now or timezone.now()
    return moment.astimezone(ZoneInfo(settings.BONUS_TIME_ZONE)).date().isoformat()


@retried
def daily_bonus_claim(*, user: User, now: datetime | None = None) -> PostResult:
    """Once per calendar day in Asia/Ho_Chi_Minh; the key makes it once even under races."""
    key = f"bonus:{user.pk}:{bonus_day(now)}"
    if LedgerTransaction.objects.filter(idempotency_key=key).exists():
        raise BonusAlreadyClaimed()
    result = chips_grant(user=user, amount=settings.DAILY_BONUS, key=key, kind=Kind.DAILY_BONUS)
    if not result.created:
        raise BonusAlreadyClaimed()
    return result


def _locked_hold(hold: Hold) -> Hold:
    locked = Hold.objects.select_for_update().get(pk=hold.pk)
    if locked.status != Hold.Status.PENDING:
        raise HoldNotPending()
    return locked


@retried
def hold_create(
    *, account: Account, amount: int, key: str, expires_at: datetime, reason: str = ""
) -> Hold:
    """Set chips aside: they stay in the account but cannot be spent elsewhere."""
    amount = _check_amount(amount)
    found = Hold.objects.filter(key=key).first()
    if found is not None:
        if found.account_id != account.pk or found.amount != amount:
            raise IdempotencyConflict()
        return found
    locked = Account.objects.select_for_update().filter(pk=account.pk).first()
    if locked is None:
        raise UnknownAccount()
    if locked.is_closed:
        raise AccountClosed()
    if locked.kind != Account.Kind.ISSUANCE and locked.available < amount:
        raise InsufficientChips(needed=amount, available=locked.available)
    Account.objects.filter(pk=locked.pk).update(held=F("held") + amount)
    return Hold.objects.create(
        key=key, account=locked, amount=amount, expires_at=expires_at, reason=reason
    )


@retried
def hold_post(
    *, hold: Hold, destination: Account, amount: int | None = None, reason: str = ""
) -> PostResult:
    """Pay ``amount`` (at most the held amount; all of it by default) from a hold;
    the rest is released."""
    locked = _locked_hold(hold)
    paid = locked.amount if amount is None else _check_amount(amount)
    if paid > locked.amount:
        raise InsufficientChips(needed=paid, available=locked.amount)
    result = ledger_post(
        key=f"hold:{locked.key}:post",
        kind=Kind.HOLD_POST,
        postings=[(locked.account_id, -paid), (destination, paid)],
        reason=reason or locked.reason,
        release_held={locked.account_id: locked.amount},
    )
    Hold.objects.filter(pk=locked.pk).update(
        status=Hold.Status.POSTED, transaction=result.transaction
    )
    return result


def _release(hold: Hold, status: str) -> None:
    Account.objects.filter(pk=hold.account_id).update(held=F("held") - hold.amount)
    Hold.objects.filter(pk=hold.pk).update(status=status)


@retried
def hold_void(*, hold: Hold) -> None:
    _release(_locked_hold(hold), Hold.Status.VOIDED)


def holds_lock(hold_ids: Sequence[int]) -> None:
    """These holds' rows, locked in primary-key order: a hold's row before its
    account's, as every path takes them (docs/architecture.md "Lock order").
    Call it inside a transaction."""
    list(Hold.objects.filter(pk__in=sorted(set(hold_ids))).order_by("pk").select_for_update())


def holds_void(hold_ids: Sequence[int]) -> dict[int, int]:
    """``hold_void`` for every hold of ``hold_ids`` still pending: ``{hold id:
    amount}`` of those voided (a hold that is not pending is left alone). For a
    table's settlement, in two statements on PostgreSQL: the holds' accounts
    locked in primary-key order, then the holds voided and the accounts' held
    chips released together. Call it inside a transaction."""
    ids = sorted(set(hold_ids))
    if not ids:
        return {}
    if connection.vendor != "postgresql":
        voided = {}
        for hold in Hold.objects.filter(pk__in=ids, status=Hold.Status.PENDING).order_by("pk"):
            hold_void(hold=hold)
            voided[hold.pk] = hold.amount
        return voided
    holds_lock(ids)
    sql.lock_accounts_of_holds(ids)
    return dict(sql.void_pending(ids))


@dataclass(frozen=True)
class HoldUpTo:
    """A hold of up to ``most`` chips of a user's wallet (``holds_up_to``)."""

    user_id: int
    most: int
    key: str


def holds_up_to(wanted: Sequence[HoldUpTo], *, expires_at: datetime, reason: str) -> dict[int, int]:
    """For each user, hold what their wallet has available, up to ``most``
    (nothing when that is 0): ``{user id: hold id}`` of the holds made. What
    ``hold_create`` does for each (a closed account with chips to hold raises
    ``AccountClosed``), for a table's settlement: on PostgreSQL in two
    statements, the accounts locked in primary-key order, then the holds
    inserted and the held chips raised together. A user without an account
    has nothing to hold. Call it inside a transaction."""
    by_key = {f"user:{w.user_id}": w for w in wanted}
    if len(by_key) != len(wanted):
        raise ValueError("one hold per user")
    if not wanted:
        return {}
    if connection.vendor != "postgresql":
        held: dict[int, int] = {}
        for account in Account.objects.filter(key__in=by_key).order_by("pk"):
            w = by_key[account.key]
            amount = min(w.most, account.available)
            if amount > 0:
                held[w.user_id] = hold_create(
                    account=account, amount=amount, key=w.key, expires_at=expires_at, reason=reason
                ).pk
        return held
    holds: list[tuple[int, int, str]] = []  # (account id, amount, key)
    users: dict[int, int] = {}
    for pk, key, available, closed in sql.lock_by_key(list(by_key)):
        w = by_key[key]
        amount = min(w.most, available)
        if amount <= 0:
            continue
        if closed:
            raise AccountClosed()
        holds.append((pk, amount, w.key))
        users[pk] = w.user_id
    if not holds:
        return {}
    made = sql.insert_holds(holds, reason=reason, expires_at=expires_at, now=timezone.now())
    return {users[account_id]: pk for pk, account_id in made}


def _hold_expire(hold_id: int, moment: datetime) -> bool:
    hold = Hold.objects.select_for_update().get(pk=hold_id)
    if hold.status != Hold.Status.PENDING or hold.expires_at > moment:
        return False
    _release(hold, Hold.Status.EXPIRED)
    return True


def holds_expire(*, now: datetime | None = None) -> int:
    """Release every pending hold past its expiry, each in its own transaction:
    one whose release fails is rolled back and logged with its id, and the
    others are released. Returns how many were."""
    moment = now or timezone.now()
    due = Hold.objects.filter(status=Hold.Status.PENDING, expires_at__lte=moment).order_by("pk")
    return each_on_its_own(
        "expiring hold",
        list(due.values_list("pk", flat=True)),
        lambda pk: _hold_expire(pk, moment),
        logger=logger,
    )


def seat_account_key(seat_key: str) -> str:
    return f"seat:{seat_key}"


@retried
def seat_buy_in(*, user: User, seat_key: str, amount: int, key: str) -> Account:
    """Move a Hold'em buy-in from the player's wallet to the seat's escrow account."""
    amount = _check_amount(amount)
    seat, _ = Account.objects.get_or_create(
        key=seat_account_key(seat_key), defaults={"kind": Account.Kind.SEAT, "user": user}
    )
    wallet = account_for_user(user=user)
    seat, wallet = lock_accounts([seat.pk, wallet.pk])
    if seat.user_id != user.pk:
        if seat.balance != 0:
            raise SeatOccupied()
        Account.objects.filter(pk=seat.pk).update(user=user, is_closed=False)
    elif seat.is_closed:
        Account.objects.filter(pk=seat.pk).update(is_closed=False)
    transfer(
        source=wallet,
        destination=seat,
        amount=amount,
        key=key,
        kind=Kind.BUY_IN,
    )
    seat.refresh_from_db()
    return seat


@retried
def seat_cash_out(*, seat_key: str, key: str) -> int:
    """Return everything on the seat's escrow to its owner; returns the amount."""
    found = Account.objects.filter(key=seat_account_key(seat_key), kind=Account.Kind.SEAT).first()
    if found is None or found.user is None:
        raise UnknownAccount()
    owner = account_for_user(user=found.user)
    seat, owner = lock_accounts([found.pk, owner.pk])
    if seat.user_id != found.user_id:
        raise UnknownAccount()  # (its owner changed while we waited: not theirs to cash out)
    if seat.balance > 0:
        transfer(
            source=seat,
            destination=owner,
            amount=seat.balance,
            key=key,
            kind=Kind.CASH_OUT,
        )
    return seat.balance


@retried
def admin_adjust(*, user: User, amount: int, reason: str, staff_user: User, key: str) -> PostResult:
    """A staff correction: a new transaction against issuance, never an edit."""
    if not staff_user.is_staff:
        raise PermissionDenied()
    if not reason or not reason.strip():
        raise ReasonRequired()
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise InvalidAmount()
    issuance = system_account(Account.Kind.ISSUANCE)
    player = account_for_user(user=user)
    return ledger_post(
        key=key,
        kind=Kind.ADJUSTMENT,
        postings=[(issuance, -amount), (player, amount)],
        reason=reason.strip(),
        created_by=staff_user,
    )
