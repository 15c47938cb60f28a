import secrets
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from kernel.errors import ServiceError
from kernel.numbers import chips
from moderation.adminkit import ReadOnlyAdmin, reason_action
from moderation.services import adjustment_approve, adjustment_reject, balance_adjust
from wallet.forms import AdjustBalanceForm
from wallet.models import Account, Adjustment, Hold, LedgerEntry, LedgerTransaction


def chips_column(model: type[Any], name: str) -> Any:
    """A chip count field of ``model`` shown with thousands grouped (10.000),
    like every chip count of the site, under the field's own label."""

    @admin.display(description=model._meta.get_field(name).verbose_name, ordering=name)
    def shown(obj: Any) -> str:
        return chips(getattr(obj, name))

    shown.__name__ = name
    return shown


class EntryInline(admin.TabularInline):
    model = LedgerEntry
    fields = (
        "account",
        chips_column(LedgerEntry, "amount"),
        chips_column(LedgerEntry, "balance_after"),
    )
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = (
        "key",
        "kind",
        "user",
        chips_column(Account, "balance"),
        chips_column(Account, "held"),
        "is_closed",
        "bots_result",
        "adjust_link",
    )
    list_filter = ("kind", "is_closed")
    search_fields = ("key", "user__username", "user__display_name")
    readonly_fields = (
        "kind",
        "key",
        "user",
        chips_column(Account, "balance"),
        chips_column(Account, "held"),
        "is_closed",
        "created_at",
    )
    exclude = ("balance", "held")  # shown grouped, above

    @admin.display(description=_("Adjust"))
    def adjust_link(self, obj: Account) -> str:
        if obj.kind != Account.Kind.USER:
            return ""
        url = reverse("admin:wallet_account_adjust", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("Adjust balance"))

    def get_list_display(self, request: HttpRequest) -> Any:
        shown = list(super().get_list_display(request))
        if not request.user.has_perm("wallet.adjust_balance"):
            shown.remove("adjust_link")
        return shown

    @admin.display(description=_("Bots' result (chips won by bots since the float)"))
    def bots_result(self, obj: Account) -> str:
        if obj.kind != Account.Kind.HOUSE:
            return "-"
        return chips(house_report()["bots_net"])

    def get_urls(self) -> list[Any]:
        extra = [
            path(
                "<int:pk>/adjust/",
                self.admin_site.admin_view(self.adjust_view),
                name="wallet_account_adjust",
            ),
            path(
                "house/",
                self.admin_site.admin_view(self.house_view),
                name="wallet_account_house",
            ),
        ]
        return extra + super().get_urls()

    def house_view(self, request: HttpRequest) -> HttpResponse:
        """Bots' chips in one place: the house's float, balance, what is lent
        out, what bots won or lost, and the house's latest ledger entries."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            **house_report(),
            "title": _("House and bots"),
            "opts": self.model._meta,
        }
        return render(request, "admin/wallet/house.html", context)

    def adjust_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        # A dedicated permission: viewing accounts is not enough.
        if not request.user.has_perm("wallet.adjust_balance"):
            raise PermissionDenied
        account = get_object_or_404(Account, pk=pk, kind=Account.Kind.USER)
        # One server-made nonce per opening of the form, kept in the session:
        # the posted form carries no key, and sending it twice posts once.
        nonce_key = f"adjust-nonce:{account.pk}"
        form = AdjustBalanceForm(request.POST or None)
        if request.method == "POST":
            nonce = request.session.pop(nonce_key, None)
            if not nonce:
                form.is_valid()
                form.add_error(
                    None, _("This form was already sent: open it again to make another adjustment.")
                )
            elif form.is_valid():
                staff: User = request.user  # type: ignore[assignment]
                assert account.user is not None
                try:
                    result = balance_adjust(
                        by=staff,
                        user=account.user,
                        amount=form.cleaned_data["amount"],
                        reason=form.cleaned_data["reason"],
                        key=f"adjust:{nonce}",
                    )
                except ServiceError as err:
                    request.session[nonce_key] = nonce
                    form.add_error(None, err.message)
                else:
                    if isinstance(result, Adjustment):
                        messages.warning(
                            request,
                            _(
                                "Beyond what you may post alone (%(limit)s chips to one player, "
                                "%(total)s to all, in %(hours)s hours): another staff member "
                                "must approve it."
                            )
                            % approval_limits(),
                        )
                        return redirect("admin:wallet_adjustment_changelist")
                    messages.success(request, _("Balance adjusted."))
                    return redirect("admin:wallet_account_changelist")
            else:
                request.session[nonce_key] = nonce
        else:
            request.session[nonce_key] = secrets.token_hex(16)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Adjust balance of %(owner)s") % {"owner": account.user},
            "account": account,
            "form": form,
            **approval_limits(),
            "opts": self.model._meta,
        }
        return render(request, "admin/wallet/adjust.html", context)


def approval_limits() -> dict[str, str]:
    return {
        "limit": chips(settings.ADJUST_APPROVAL_LIMIT),
        "total": chips(settings.ADJUST_APPROVAL_STAFF_LIMIT),
        "hours": str(settings.ADJUST_APPROVAL_WINDOW_HOURS),
    }


def house_report() -> dict[str, Any]:
    house = Account.objects.filter(kind=Account.Kind.HOUSE).first()
    float_ = (
        LedgerEntry.objects.filter(
            account=house, transaction__kind=LedgerTransaction.Kind.HOUSE_FLOAT
        ).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    lent = (
        Account.objects.filter(kind=Account.Kind.USER, user__is_bot=True).aggregate(
            total=Sum("balance")
        )["total"]
        or 0
    )
    lent += (
        Account.objects.filter(kind=Account.Kind.SEAT, user__is_bot=True).aggregate(
            total=Sum("balance")
        )["total"]
        or 0
    )
    balance = 0 if house is None else house.balance
    return {
        "house": house,
        "float": float_,
        "balance": balance,
        "lent": lent,
        # What bots hold now counts as theirs until it comes back.
        "bots_net": balance + lent - float_,
        "entries": []
        if house is None
        else list(
            LedgerEntry.objects.filter(account=house)
            .select_related("transaction")
            .order_by("-id")[:50]
        ),
    }


@admin.register(Adjustment)
class AdjustmentAdmin(ReadOnlyAdmin):
    """Every staff balance adjustment (needs staff and ``view_adjustment``):
    posted at once, waiting, approved or rejected; the waiting ones are
    approved or rejected here by another staff member. Each row links to the
    player's audit log."""

    list_display = (
        "id",
        "requested_at",
        "account",
        chips_column(Adjustment, "amount"),
        "reason",
        "requested_by",
        "status",
        "decided_by",
        "audit",
    )
    list_filter = ("status",)
    search_fields = ("account__key", "account__user__username", "requested_by__username", "reason")
    list_select_related = ("account", "requested_by", "decided_by")
    date_hierarchy = "requested_at"
    readonly_fields = (
        "account",
        chips_column(Adjustment, "amount"),
        "reason",
        "status",
        "requested_by",
        "requested_at",
        "decided_by",
        "decided_at",
        "decision_reason",
        "transaction",
        "audit",
    )
    exclude = ("key", "amount")
    actions = ["approve", "reject"]

    @admin.display(description=_("audit log"))
    def audit(self, obj: Adjustment) -> str:
        user_type = ContentType.objects.get_for_model(User).pk
        return format_html(
            '<a href="{}?target_type__id__exact={}&target_id={}">{}</a>',
            reverse("admin:moderation_auditentry_changelist"),
            user_type,
            obj.account.user_id,
            _("Audit log"),
        )

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_staff) and request.user.has_perm("wallet.adjust_balance")

    @admin.action(description=_("Approve selected adjustments"), permissions=["adjust"])
    def approve(self, request: HttpRequest, queryset: QuerySet[Adjustment]) -> HttpResponse | None:
        staff: User = request.user  # type: ignore[assignment]
        return reason_action(
            self,
            request,
            queryset,
            title=_("Approve adjustments"),
            submit=_("Approve"),
            done=_("%(count)d adjustments approved."),
            perform=lambda adj, data: adjustment_approve(
                by=staff, adjustment_id=adj.pk, reason=data["reason"]
            ),
        )

    @admin.action(description=_("Reject selected adjustments"), permissions=["adjust"])
    def reject(self, request: HttpRequest, queryset: QuerySet[Adjustment]) -> HttpResponse | None:
        staff: User = request.user  # type: ignore[assignment]
        return reason_action(
            self,
            request,
            queryset,
            title=_("Reject adjustments"),
            submit=_("Reject"),
            done=_("%(count)d adjustments rejected."),
            perform=lambda adj, data: adjustment_reject(
                by=staff, adjustment_id=adj.pk, reason=data["reason"]
            ),
        )


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
    list_display = ("key", "account", chips_column(Hold, "amount"), "status", "expires_at")
    list_filter = ("status",)
    readonly_fields = (
        "key",
        "account",
        chips_column(Hold, "amount"),
        "status",
        "reason",
        "expires_at",
        "transaction",
        "created_at",
    )
    exclude = ("amount",)  # shown grouped, above
