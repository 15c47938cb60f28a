"""Moderation's own pages: the audit log, sightings, integrity reports and the
queue of reported chat lines."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.models import ChatMessage, ChatReport
from moderation import services as moderation
from moderation.adminkit import (
    DefaultedFilter,
    ReadOnlyAdmin,
    admin_link,
    hands_link,
    reason_action,
)
from moderation.forms import IntegrityForm, MuteForm
from moderation.models import AuditEntry, IntegrityReport, Sighting
from moderation.selectors import shared_sightings, suspicious_pairs

admin.site.site_header = _("VIPGAME administration")
admin.site.site_title = _("VIPGAME admin")
admin.site.index_title = _("Card room administration")


def _pretty(value: object) -> str:
    return format_html("<pre>{}</pre>", json.dumps(value, indent=2, ensure_ascii=False))


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "actor", "action", "target", "reason")
    list_filter = ("action", "target_type")
    search_fields = ("target_label", "reason", "actor__username")
    list_select_related = ("actor", "target_type")
    date_hierarchy = "created_at"
    fields = (
        "created_at",
        "actor",
        "action",
        "target",
        "reason",
        "before_json",
        "after_json",
    )
    readonly_fields = fields

    @admin.display(description=_("target"))
    def target(self, obj: AuditEntry) -> str:
        model = obj.target_type.model_class()
        found = None if model is None else model._default_manager.filter(pk=obj.target_id).first()
        return admin_link(found) if found is not None else obj.target_label

    @admin.display(description=_("before"))
    def before_json(self, obj: AuditEntry) -> str:
        return _pretty(obj.before)

    @admin.display(description=_("after"))
    def after_json(self, obj: AuditEntry) -> str:
        return _pretty(obj.after)


@admin.register(Sighting)
class SightingAdmin(ReadOnlyAdmin):
    list_display = ("user", "ip", "device", "first_seen", "last_seen")
    search_fields = ("user__username", "user__display_name", "ip", "device")
    list_select_related = ("user",)
    date_hierarchy = "last_seen"


@admin.register(IntegrityReport)
class IntegrityReportAdmin(ReadOnlyAdmin):
    """The integrity report: suspicious pairs, shared addresses and devices."""

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = IntegrityForm(request.GET or None)
        thresholds = form.thresholds()
        pairs = [
            (row, hands_link([row.sender.pk, row.receiver.pk], row.hands))
            for row in suspicious_pairs(thresholds=thresholds)
        ]
        shared = [
            (row, hands_link(row.user_ids, row.hands_together))
            for row in shared_sightings(days=thresholds.days)
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": _("Integrity report"),
            "opts": self.model._meta,
            "form": form,
            "thresholds": thresholds,
            "share_percent": round(thresholds.min_share * 100),
            "pairs": pairs,
            "shared": shared,
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/moderation/integrity.html", context)


class ReportStateFilter(DefaultedFilter):
    """The queue: lines waiting for a moderator, unless asked otherwise."""

    title = _("status")
    parameter_name = "state"
    default_label = _("Waiting")

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [
            (ChatReport.Status.DISMISSED, ChatReport.Status.DISMISSED.label),
            (ChatReport.Status.MUTED, ChatReport.Status.MUTED.label),
            ("all", _("All")),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if value == "all":
            return queryset
        return queryset.filter(status=value or ChatReport.Status.OPEN)


CONTEXT_LINES = 5


@admin.register(ChatReport)
class ChatReportAdmin(ReadOnlyAdmin):
    """Reported chat lines, oldest first: dismiss, or mute the author (both
    with a reason, both in the audit log)."""

    list_display = (
        "first_reported_at",
        "line",
        "author",
        "table",
        "flag_count",
        "categories",
        "status",
    )
    list_filter = (ReportStateFilter,)
    search_fields = ("message__text", "message__user__username", "message__user__display_name")
    list_select_related = ("message__user", "message__table")
    actions = ["dismiss", "mute_author"]
    fields = (
        "status",
        "line",
        "author",
        "table",
        "conversation",
        "reporters",
        "resolved_by",
        "resolved_at",
        "resolution",
        "audit",
    )
    readonly_fields = fields

    @admin.display(description=_("chat line"))
    def line(self, obj: ChatReport) -> str:
        return format_html("<q>{}</q>", obj.message.text)

    @admin.display(description=_("author"), ordering="message__user__username")
    def author(self, obj: ChatReport) -> str:
        user = obj.message.user
        muted = moderation.is_muted(user)
        return format_html(
            '<a href="{}">{}</a> ({}){}',
            reverse("admin:accounts_user_change", args=[user.pk]),
            user.shown_name,
            user.username,
            format_html(" — {}", _("muted")) if muted else "",
        )

    @admin.display(description=_("table"))
    def table(self, obj: ChatReport) -> str:
        return admin_link(obj.message.table)

    @admin.display(description=_("why"))
    def categories(self, obj: ChatReport) -> str:
        labels = sorted({flag.get_category_display() for flag in obj.flags.all()})
        return ", ".join(str(label) for label in labels)

    @admin.display(description=_("conversation"))
    def conversation(self, obj: ChatReport) -> str:
        """The lines around the reported one at its table."""
        around = ChatMessage.objects.filter(table_id=obj.message.table_id).select_related("user")
        before = list(around.filter(pk__lt=obj.message_id).order_by("-pk")[:CONTEXT_LINES])
        after = list(around.filter(pk__gt=obj.message_id).order_by("pk")[:CONTEXT_LINES])
        return render_to_string(
            "admin/moderation/chat_context.html",
            {"lines": [*reversed(before), obj.message, *after], "reported": obj.message_id},
        )

    @admin.display(description=_("reported by"))
    def reporters(self, obj: ChatReport) -> str:
        return render_to_string(
            "admin/moderation/chat_flags.html",
            {"flags": obj.flags.select_related("reporter").order_by("pk")},
        )

    @admin.display(description=_("audit log"))
    def audit(self, obj: ChatReport) -> str:
        from django.contrib.contenttypes.models import ContentType

        report_type = ContentType.objects.get_for_model(ChatReport).pk
        return format_html(
            '<a href="{}?target_type__id__exact={}&target_id={}">{}</a>',
            reverse("admin:moderation_auditentry_changelist"),
            report_type,
            obj.pk,
            _("Audit log"),
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatReport]:
        return super().get_queryset(request).prefetch_related("flags")

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_staff) and request.user.has_perm("games.view_chatreport")

    def _staff(self, request: HttpRequest) -> User:
        staff: User = request.user  # type: ignore[assignment]
        return staff

    @admin.action(description=_("Dismiss the selected reports"), permissions=["moderate"])
    def dismiss(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        staff = self._staff(request)
        return reason_action(
            self,
            request,
            queryset,
            title=_("Dismiss reports"),
            submit=_("Dismiss"),
            done=_("%(count)d reports dismissed."),
            perform=lambda report, data: moderation.chat_report_dismiss(
                by=staff, report_id=report.pk, reason=data["reason"]
            ),
        )

    @admin.action(description=_("Mute the authors of the selected lines"), permissions=["moderate"])
    def mute_author(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        staff = self._staff(request)
        return reason_action(
            self,
            request,
            queryset,
            title=_("Mute the authors in chat"),
            submit=_("Mute"),
            done=_("%(count)d reports upheld: authors muted."),
            form_class=MuteForm,
            perform=lambda report, data: moderation.chat_report_mute(
                by=staff, report_id=report.pk, minutes=data["minutes"], reason=data["reason"]
            ),
        )
