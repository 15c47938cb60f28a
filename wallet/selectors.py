from collections.abc import Iterable

from django.db.models import QuerySet

from accounts.models import User

from .models import Account, Hold, LedgerEntry, LedgerTransaction


def user_account(user: User) -> Account | None:
    return Account.objects.filter(kind=Account.Kind.USER, user=user).first()


def user_account_ids(user_ids: Iterable[int]) -> dict[int, int]:
    """The wallet accounts of these players, user id -> account id, in one
    statement (a player without a wallet yet is left out)."""
    return dict(
        Account.objects.filter(kind=Account.Kind.USER, user_id__in=set(user_ids)).values_list(
            "user_id", "pk"
        )
    )


def spendable_with_hold(user: User, hold_id: int | None) -> int:
    """What a settlement can take from the user: their free chips and the
    pending hold ``hold_id`` (a seat's), read without locking."""
    account = user_account(user)
    held = Hold.objects.filter(pk=hold_id or 0, status=Hold.Status.PENDING)
    return (0 if account is None else account.available) + sum(
        held.values_list("amount", flat=True)
    )


def ledger_for_user(user: User) -> QuerySet[LedgerEntry]:
    """The player's wallet entries, newest first, with what each was for."""
    return (
        LedgerEntry.objects.filter(account__kind=Account.Kind.USER, account__user=user)
        .select_related("transaction")
        .order_by("-id")
    )


def bonus_claimed_today(user: User) -> bool:
    from .services import bonus_day

    key = f"bonus:{user.pk}:{bonus_day()}"
    return LedgerTransaction.objects.filter(idempotency_key=key).exists()
