from typing import Any

from django.http import HttpRequest

from wallet.models import Account


def header(request: HttpRequest) -> dict[str, Any]:
    """The balance shown in every page's header."""
    if not request.user.is_authenticated:
        return {}
    balance = (
        Account.objects.filter(kind=Account.Kind.USER, user=request.user)
        .values_list("balance", flat=True)
        .first()
    )
    return {"header_balance": balance}
