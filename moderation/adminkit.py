"""Admin building blocks shared by every app's admin: read-only pages, actions
that ask for a reason first, links between admin pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html

from kernel.errors import ServiceError

from .forms import ReasonForm


class ReadOnlyAdmin(admin.ModelAdmin):
    """Ledger rows are never added, edited or deleted by hand."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


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


class DefaultedFilter(admin.SimpleListFilter):
    """A list filter whose first choice (no parameter: ``default_label``) is
    what the page shows when opened, e.g. live tables or the waiting queue."""

    default_label: Any = ""

    def choices(self, changelist: Any) -> Any:
        current = self.value() or ""
        lookups = list(self.lookups(changelist.model_admin, None) or [])  # type: ignore[arg-type]
        for value, label in [("", self.default_label), *lookups]:
            yield {
                "selected": current == value,
                "query_string": changelist.get_query_string(
                    {self.parameter_name: value} if value else {}, [self.parameter_name]
                ),
                "display": label,
            }
