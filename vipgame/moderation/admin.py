from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from vipgame.errors import ServiceError
from wallet.admin import ReadOnlyAdmin

from .forms import IntegrityForm, ReasonForm
from .models import AuditEntry, IntegrityReport, Sighting
from .selectors import shared_sightings, suspicious_pairs


def reason_action(
    modeladmin: admin.ModelAdmin[Any],
    request: HttpRequest,
    queryset: QuerySet[Any],
    *,
    title: Any,
    submit: Any,
    done: Any,
    perform: Callable[[Any, dict[str, Any]], object],
    form_class: type[ReasonForm] = ReasonForm,
) -> HttpResponse | None:
    """An admin action that first asks for a reason (an intermediate page),
    then calls the service once per selected object. Refusals are shown per
    object; an empty reason re-shows the page and changes nothing."""
    if "apply" in request.POST:
        form = form_class(request.POST)
        if form.is_valid():
            count = 0
            for obj in queryset:
                try:
                    perform(obj, form.cleaned_data)
                except ServiceError as err:
                    modeladmin.message_user(request, f"{obj}: {err.message}", messages.ERROR)
                else:
                    count += 1
            if count:
                modeladmin.message_user(request, done % {"count": count}, messages.SUCCESS)
            return None
    else:
        form = form_class()
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "submit": submit,
        "form": form,
        "queryset": queryset,
        "action": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "opts": modeladmin.model._meta,
    }
    return TemplateResponse(request, "admin/moderation/reason_form.html", context)


def admin_link(obj: Model | None) -> str:
    if obj is None:
        return "-"
    try:
        url = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])
    except NoReverseMatch:
        return str(obj)
    return format_html('<a href="{}">{}</a>', url, obj)


def hands_link(user_ids: list[int], label: object) -> str:
    url = reverse("admin:games_hand_changelist") + "?together=" + ",".join(map(str, user_ids))
    return format_html('<a href="{}">{}</a>', url, label)


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
