from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from wallet.models import Account

from .models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "display_name", "is_active", "is_staff", "is_bot", "date_joined")
    list_filter = ("is_active", "is_staff", "is_bot")
    search_fields = ("username", "display_name", "email")
    fieldsets = (
        *BaseUserAdmin.fieldsets,  # type: ignore[misc]
        (_("Card room"), {"fields": ("display_name", "is_bot", "wallet_link")}),
    )
    readonly_fields = ("wallet_link",)
    actions = ["deactivate"]

    @admin.display(description=_("Wallet"))
    def wallet_link(self, obj: User) -> str:
        account = Account.objects.filter(kind=Account.Kind.USER, user=obj).first()
        if account is None:
            return "-"
        return format_html(
            '{} <a href="{}">{}</a>',
            account.balance,
            reverse("admin:wallet_account_adjust", args=[account.pk]),
            _("Adjust balance"),
        )

    @admin.action(description=_("Deactivate selected users"))
    def deactivate(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        count = queryset.exclude(pk=request.user.pk).update(is_active=False)
        messages.success(request, _("%(count)d users deactivated.") % {"count": count})
