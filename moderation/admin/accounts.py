"""The users' admin page: the moderators' main tool. A player's page opens
with what a moderator needs (ban, mute, the wallet, the last hands and chat
lines); permissions are folded and deleting is at the bottom, apart."""

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from kernel.errors import ServiceError
from kernel.numbers import chips
from moderation import services as moderation
from moderation.adminkit import reason_action
from moderation.forms import MuteForm, ReasonForm
from moderation.selectors import user_overview
from wallet.models import Account

# One user's moderation actions (the buttons of the panel): form, service, done message.
ONE_USER_ACTIONS: dict[str, tuple[Any, type[ReasonForm], Callable[..., object], Any]] = {
    "ban": (
        _("Ban %(name)s"),
        ReasonForm,
        lambda by, user, data: moderation.user_ban(by=by, user=user, reason=data["reason"]),
        _("%(name)s is banned."),
    ),
    "unban": (
        _("Unban %(name)s"),
        ReasonForm,
        lambda by, user, data: moderation.user_unban(by=by, user=user, reason=data["reason"]),
        _("%(name)s can log in again."),
    ),
    "mute": (
        _("Mute %(name)s in chat"),
        MuteForm,
        lambda by, user, data: moderation.user_mute(
            by=by, user=user, minutes=data["minutes"], reason=data["reason"]
        ),
        _("%(name)s is muted in chat."),
    ),
    "unmute": (
        _("Unmute %(name)s"),
        ReasonForm,
        lambda by, user, data: moderation.user_unmute(by=by, user=user, reason=data["reason"]),
        _("%(name)s may chat again."),
    ),
}


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
    change_form_template = "admin/accounts/user/change_form.html"
    fieldsets = (
        (None, {"fields": ("username", "display_name", "is_bot")}),
        (
            _("Card room"),
            {"fields": ("wallet_link", "muted_until", "muted_reason", "moderation_links")},
        ),
        (_("Personal info"), {"fields": ("first_name", "last_name", "email", "password")}),
        (
            _("Permissions"),
            {
                "classes": ("collapse",),
                "fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions"),
            },
        ),
        (_("Important dates"), {"classes": ("collapse",), "fields": ("last_login", "date_joined")}),
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
            chips(account.balance),
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

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        user = self.get_object(request, object_id)
        context = {**(extra_context or {}), "show_delete": False}
        if user is not None:
            context["overview"] = user_overview(user=user)
            context["muted"] = moderation.is_muted(user)
            context["can_moderate"] = self.has_change_permission(request, user)
        return super().change_view(request, object_id, form_url, context)

    def get_urls(self) -> list[Any]:
        extra = [
            path(
                "<int:pk>/moderate/<str:what>/",
                self.admin_site.admin_view(self.moderate_view),
                name="accounts_user_moderate",
            )
        ]
        return extra + super().get_urls()

    def moderate_view(self, request: HttpRequest, pk: int, what: str) -> HttpResponse:
        """One user's ban, unban, mute or unmute: a reason first, then the
        audited service; a refusal is shown on the page and changes nothing."""
        if what not in ONE_USER_ACTIONS:
            raise Http404
        user = get_object_or_404(User, pk=pk)
        if not self.has_change_permission(request, user):
            raise PermissionDenied
        title, form_class, perform, done = ONE_USER_ACTIONS[what]
        name = {"name": f"{user.shown_name} ({user.username})"}
        change_url = reverse("admin:accounts_user_change", args=[user.pk])
        form = form_class(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                perform(self._staff(request), user, form.cleaned_data)
            except ServiceError as err:
                self.message_user(request, err.message, messages.ERROR)
            else:
                self.message_user(request, done % name, messages.SUCCESS)
                return HttpResponseRedirect(change_url)
        context = {
            **self.admin_site.each_context(request),
            "title": title % name,
            "opts": self.model._meta,
            "original": user,
            "form": form,
            "submit": title % name,
            "change_url": change_url,
        }
        return TemplateResponse(request, "admin/moderation/user_action.html", context)

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
