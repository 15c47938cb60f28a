"""The users' admin page: the moderators' main tool (ban, mute, adjust)."""

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.contenttypes.models import ContentType
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from vipgame.accounts.models import User
from wallet.models import Account

from . import services as moderation
from .adminkit import reason_action
from .forms import MuteForm


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = (
        "username",
        "display_name",
        "is_active",
        "muted_until",
        "is_staff",
        "is_bot",
        "date_joined",
    )
    list_filter = ("is_active", "is_staff", "is_bot")
    search_fields = ("username", "display_name", "email")
    fieldsets = (
        *BaseUserAdmin.fieldsets,  # type: ignore[misc]
        (
            _("Card room"),
            {
                "fields": (
                    "display_name",
                    "is_bot",
                    "wallet_link",
                    "muted_until",
                    "muted_reason",
                    "moderation_links",
                )
            },
        ),
    )
    # Bans and mutes go through the audited actions, never a checkbox.
    readonly_fields = (
        "is_active",
        "wallet_link",
        "muted_until",
        "muted_reason",
        "moderation_links",
    )
    actions = ["ban", "unban", "mute", "unmute"]

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

    @admin.display(description=_("Moderation"))
    def moderation_links(self, obj: User) -> str:
        if obj.pk is None:
            return "-"
        user_type = ContentType.objects.get_for_model(User).pk
        audit = reverse("admin:moderation_auditentry_changelist")
        sightings = reverse("admin:moderation_sighting_changelist")
        hands = reverse("admin:games_hand_changelist")
        return format_html(
            '<a href="{}?target_type__id__exact={}&target_id={}">{}</a> · '
            '<a href="{}?user__id__exact={}">{}</a> · '
            '<a href="{}?q={}">{}</a>',
            audit,
            user_type,
            obj.pk,
            _("Audit log"),
            sightings,
            obj.pk,
            _("Addresses and devices"),
            hands,
            obj.username,
            _("Hands"),
        )

    def _staff(self, request: HttpRequest) -> User:
        staff: User = request.user  # type: ignore[assignment]
        return staff

    @admin.action(description=_("Ban selected users"), permissions=["change"])
    def ban(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        staff = self._staff(request)
        return reason_action(
            self,
            request,
            queryset,
            title=_("Ban users"),
            submit=_("Ban"),
            done=_("%(count)d users banned."),
            perform=lambda user, data: moderation.user_ban(
                by=staff, user=user, reason=data["reason"]
            ),
        )

    @admin.action(description=_("Unban selected users"), permissions=["change"])
    def unban(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        staff = self._staff(request)
        return reason_action(
            self,
            request,
            queryset,
            title=_("Unban users"),
            submit=_("Unban"),
            done=_("%(count)d users unbanned."),
            perform=lambda user, data: moderation.user_unban(
                by=staff, user=user, reason=data["reason"]
            ),
        )

    @admin.action(description=_("Mute selected users in chat"), permissions=["change"])
    def mute(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        staff = self._staff(request)
        return reason_action(
            self,
            request,
            queryset,
            title=_("Mute users in chat"),
            submit=_("Mute"),
            done=_("%(count)d users muted."),
            form_class=MuteForm,
            perform=lambda user, data: moderation.user_mute(
                by=staff, user=user, minutes=data["minutes"], reason=data["reason"]
            ),
        )

    @admin.action(description=_("Unmute selected users"), permissions=["change"])
    def unmute(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        staff = self._staff(request)
        return reason_action(
            self,
            request,
            queryset,
            title=_("Unmute users"),
            submit=_("Unmute"),
            done=_("%(count)d users unmuted."),
            perform=lambda user, data: moderation.user_unmute(
                by=staff, user=user, reason=data["reason"]
            ),
        )
