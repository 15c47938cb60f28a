from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from vipgame.accounts.models import User
from vipgame.errors import ServiceError
from vipgame.moderation.services import balance_adjust

from .forms import AdjustBalanceForm
from .models import Account, Hold, LedgerEntry, LedgerTransaction


class ReadOnlyAdmin(admin.ModelAdmin):
    """Ledger rows are never added, edited or deleted by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class EntryInline(admin.TabularInline):
    model = LedgerEntry
    fields = ("account", "amount", "balance_after")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("key", "kind", "user", "balance", "held", "is_closed", "adjust_link")
    list_filter = ("kind", "is_closed")
    search_fields = ("key", "user__username", "user__display_name")
    readonly_fields = ("kind", "key", "user", "balance", "held", "is_closed", "created_at")

    @admin.display(description=_("Adjust"))
    def adjust_link(self, obj: Account) -> str:
        if obj.kind != Account.Kind.USER:
            return ""
        url = reverse("admin:wallet_account_adjust", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("Adjust balance"))

    def get_urls(self) -> list[Any]:
        extra = [
            path(
                "<int:pk>/adjust/",
                self.admin_site.admin_view(self.adjust_view),
                name="wallet_account_adjust",
            )
        ]
        return extra + super().get_urls()

    def adjust_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        account = get_object_or_404(Account, pk=pk, kind=Account.Kind.USER)
        if not request.user.has_perm("wallet.view_account"):
            return redirect("admin:index")
        form = AdjustBalanceForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            staff: User = request.user  # type: ignore[assignment]
            assert account.user is not None
            try:
                balance_adjust(
                    by=staff,
                    user=account.user,
                    amount=form.cleaned_data["amount"],
                    reason=form.cleaned_data["reason"],
                    key=form.cleaned_data["key"],
                )
            except ServiceError as err:
                form.add_error(None, err.message)
            else:
                messages.success(request, _("Balance adjusted."))
                return redirect("admin:wallet_account_changelist")
        context = {
            **self.admin_site.each_context(request),
            "title": _("Adjust balance of %(owner)s") % {"owner": account.user},
            "account": account,
            "form": form,
            "opts": self.model._meta,
        }
        return render(request, "admin/wallet/adjust.html", context)


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "reason", "created_by", "hand_id")
    list_filter = ("kind",)
    search_fields = ("idempotency_key", "reason", "entries__account__key")
    readonly_fields = (
        "idempotency_key",
        "kind",
        "reason",
        "created_by",
        "hand_id",
        "fingerprint",
        "created_at",
    )
    inlines = [EntryInline]
    date_hierarchy = "created_at"


@admin.register(Hold)
class HoldAdmin(ReadOnlyAdmin):
    list_display = ("key", "account", "amount", "status", "expires_at")
    list_filter = ("status",)
    readonly_fields = (
        "key",
        "account",
        "amount",
        "status",
        "reason",
        "expires_at",
        "transaction",
        "created_at",
    )
