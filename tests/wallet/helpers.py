from typing import Any

from django.db.models import Sum

from wallet.models import Account, Hold, LedgerEntry, LedgerTransaction


def wallet_of(user: Any) -> Account:
    """A user's wallet account."""
    return Account.objects.get(kind=Account.Kind.USER, user=user)


def snapshot() -> dict[str, object]:
    """Everything a refused operation must leave untouched."""
    return {
        "accounts": list(Account.objects.order_by("pk").values_list("pk", "balance", "held")),
        "transactions": LedgerTransaction.objects.count(),
        "entries": LedgerEntry.objects.count(),
        "holds": list(Hold.objects.order_by("pk").values_list("pk", "status")),
    }


def assert_ledger_consistent() -> None:
    """Σ balances = 0, each transaction sums to 0, each balance = Σ of its entries."""
    assert Account.objects.aggregate(total=Sum("balance"))["total"] in (0, None)
    unbalanced = (
        LedgerEntry.objects.values("transaction")
        .annotate(total=Sum("amount"))
        .exclude(total=0)
        .count()
    )
    assert unbalanced == 0
    for account in Account.objects.all():
        entries_total = account.entries.aggregate(total=Sum("amount"))["total"] or 0
        assert account.balance == entries_total, account.key
        if account.kind != Account.Kind.ISSUANCE:
            assert 0 <= account.held <= account.balance, account.key
