"""Wallet API: balance, the ledger page by page, the daily bonus."""

from __future__ import annotations

from typing import Any

import django_filters
from django.conf import settings
from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from kernel.api.filters import StrictFilterSet
from kernel.api.idempotency import idempotent
from kernel.api.pagination import Cursor
from kernel.api.schema import errors
from wallet.models import LedgerEntry, LedgerTransaction
from wallet.selectors import bonus_claimed_today, ledger_for_user, user_account
from wallet.services import bonus_day, daily_bonus_claim


class BonusOut(serializers.Serializer[dict[str, Any]]):
    amount = serializers.IntegerField(help_text="Chips the daily bonus gives.")
    day = serializers.DateField(help_text="Today in Asia/Ho_Chi_Minh (the bonus day).")
    claimed = serializers.BooleanField(help_text="Already claimed today.")


class WalletOut(serializers.Serializer[dict[str, Any]]):
    balance = serializers.IntegerField(help_text="Chips in the wallet.")
    held = serializers.IntegerField(help_text="Chips held for tables in play.")
    available = serializers.IntegerField(help_text="balance - held")
    daily_bonus = BonusOut()


class EntryOut(serializers.ModelSerializer[LedgerEntry]):
    transaction = serializers.IntegerField(source="transaction_id")
    at = serializers.DateTimeField(source="transaction.created_at")
    kind = serializers.ChoiceField(
        source="transaction.kind", choices=LedgerTransaction.Kind.choices
    )
    what = serializers.CharField(
        source="transaction.get_kind_display", help_text="The kind, in the request's language."
    )
    hand = serializers.IntegerField(source="transaction.hand_id", allow_null=True)
    reason = serializers.CharField(source="transaction.reason")

    class Meta:
        model = LedgerEntry
        fields = (
            "id",
            "transaction",
            "at",
            "kind",
            "what",
            "amount",
            "balance_after",
            "hand",
            "reason",
        )
        read_only_fields = fields


class LedgerFilter(StrictFilterSet):
    kind = django_filters.ChoiceFilter(
        field_name="transaction__kind", choices=LedgerTransaction.Kind.choices
    )

    class Meta:
        model = LedgerEntry
        fields = ["kind"]


def wallet_summary(user: User) -> dict[str, Any]:
    account = user_account(user)
    return {
        "balance": account.balance if account else 0,
        "held": account.held if account else 0,
        "available": account.available if account else 0,
        "daily_bonus": {
            "amount": settings.DAILY_BONUS,
            "day": bonus_day(),
            "claimed": bonus_claimed_today(user),
        },
    }


class WalletView(APIView):
    @extend_schema(
        operation_id="wallet",
        summary="My chips",
        responses={200: WalletOut, **errors(401)},
    )
    def get(self, request: Request) -> Response:
        return Response(WalletOut(wallet_summary(request.user)).data)  # type: ignore[arg-type]


class LedgerPages(Cursor):
    ordering = "-id"  # newest first (ledger_for_user's order)
    position = int


class LedgerView(generics.ListAPIView[LedgerEntry]):
    queryset = LedgerEntry.objects.none()  # for the schema; the rows are the caller's
    serializer_class = EntryOut
    filterset_class = LedgerFilter
    pagination_class = LedgerPages

    def get_queryset(self) -> QuerySet[LedgerEntry]:
        return ledger_for_user(self.request.user)  # type: ignore[arg-type]

    @extend_schema(
        operation_id="wallet_ledger",
        summary="My wallet's history, newest first",
        description=(
            "Every chip movement with what it was (`kind`, `what`, `hand`, `reason`). "
            "Paginated by cursor: follow `next` (a `page` parameter is `invalid`)."
        ),
        responses={200: EntryOut(many=True), **errors(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class BonusClaimOut(WalletOut):
    claimed_amount = serializers.IntegerField(help_text="Chips just added.")


class BonusView(APIView):
    @extend_schema(
        operation_id="wallet_bonus_claim",
        summary="Claim the daily bonus",
        description="Once per calendar day in Asia/Ho_Chi_Minh.",
        request=None,
        responses={
            201: BonusClaimOut,
            **errors(401, 403, 429, 503, conflict=["bonus_already_claimed"]),
        },
    )
    @idempotent
    def post(self, request: Request) -> Response:
        user: User = request.user  # type: ignore[assignment]
        result = daily_bonus_claim(user=user)
        claimed = result.transaction.entries.get(account__user=user).amount
        body = BonusClaimOut({**wallet_summary(user), "claimed_amount": claimed}).data
        return Response(body, status=status.HTTP_201_CREATED)
