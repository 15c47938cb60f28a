"""Shared by the tournament tests: balances and a full Sit & Go."""

from __future__ import annotations

from wallet.models import Account
from wallet.services import house_account


def balance(user) -> int:
    return Account.objects.get(key=f"user:{user.pk}").balance


def house() -> int:
    """The house's balance (its float given first, as on its first use)."""
    return house_account().balance


def pool(tournament) -> int:
    found = Account.objects.filter(key=tournament.pool_key).first()
    return found.balance if found else 0
