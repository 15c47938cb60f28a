from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from . import users_admin  # noqa: F401  (registers the users' admin page)
from .adminkit import ReadOnlyAdmin, admin_link, hands_link
from .forms import IntegrityForm
from .models import AuditEntry, IntegrityReport, Sighting
from .selectors import shared_sightings, suspicious_pairs


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
