"""Tournaments in the admin: read-only, their entries and their audit log; the
only change is the audited cancel (``moderation.services.tournament_cancel``:
every entry refunded exactly)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.contenttypes.models import ContentType
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from moderation.adminkit import ReadOnlyAdmin, reason_action
from moderation.models import AuditEntry
from moderation.services import tournament_cancel
from tournaments.models import Entry, Tournament
from wallet.services import prize_pool_account


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("player", "is_bot", "status", "registered_at", "place", "prize")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("registered_at", "pk")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "game", "seats", "buy_in", "fee", "status", "created_at")
    list_filter = ("status", "game", "kind")
    search_fields = ("entries__player__username", "entries__player__display_name")
    readonly_fields = ("pool", "audit")
    inlines = [EntryInline]
    actions = ["cancel"]

    @admin.display(description=_("prize pool"))
    def pool(self, obj: Tournament) -> int:
        return prize_pool_account(key=obj.pool_key).balance

    @admin.display(description=_("audit log"))
    def audit(self, obj: Tournament) -> str:
        entries = AuditEntry.objects.filter(
            target_type=ContentType.objects.get_for_model(Tournament), target_id=obj.pk
        ).select_related("actor")
        rows = format_html_join(
            "",
            "<li>{} {}: {} ({})</li>",
            ((e.created_at, e.actor.shown_name, e.get_action_display(), e.reason) for e in entries),
        )
        link = reverse("admin:moderation_auditentry_changelist")
        return format_html(
            '<ul>{}</ul><a href="{}?target_type__id__exact={}&target_id={}">{}</a>',
            rows,
            link,
            ContentType.objects.get_for_model(Tournament).pk,
            obj.pk,
            _("Audit log"),
        )

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_staff) and request.user.has_perm("tournaments.view_tournament")

    @admin.action(
        description=_("Cancel selected tournaments (refund every entry)"), permissions=["moderate"]
    )
    def cancel(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> HttpResponse | None:
        staff: User = request.user  # type: ignore[assignment]
        return reason_action(
            self,
            request,
            queryset,
            title=_("Cancel tournaments"),
            submit=_("Cancel them and refund every entry"),
            done=_("%(count)d tournaments cancelled."),
            perform=lambda tournament, data: tournament_cancel(
                by=staff, tournament_id=tournament.pk, reason=data["reason"]
            ),
        )
