"""Tables, hands and chat in the admin: read-only; the only change is the
audited force-close (``moderation.services.table_force_close``)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games.models import ChatMessage, Hand, HandEvent, Seat, Table
from games.plugins import plugin_for
from moderation.adminkit import DefaultedFilter, ReadOnlyAdmin, admin_link, reason_action
from moderation.selectors import hand_inspection, hands_together
from moderation.services import table_force_close


class LiveFilter(DefaultedFilter):
    """Live tables unless asked otherwise."""

    title = _("state")
    parameter_name = "state"
    default_label = _("Live")

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("closed", _("Closed")), ("all", _("All"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "all":
            return queryset
        if self.value() == "closed":
            return queryset.filter(status=Table.Status.CLOSED)
        return queryset.exclude(status=Table.Status.CLOSED)


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "name",
        "game",
        "stake",
        "players",
        "status",
        "hand_number",
        "hand_count",
        "created_at",
    )
    list_filter = (LiveFilter, "game", "status", "is_private")
    search_fields = ("name", "seats__user__username", "seats__user__display_name")
    list_select_related = ("current_hand", "owner")
    readonly_fields = ("game_settings",)
    actions = ["force_close"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Table]:
        seats = Seat.objects.select_related("user").order_by("position")
        return super().get_queryset(request).prefetch_related(Prefetch("seats", queryset=seats))

    @admin.display(description=_("Players"))
    def players(self, obj: Table) -> str:
        return ", ".join(
            f"{s.position}: {s.user.shown_name}{' (bot)' if s.is_bot else ''}"
            for s in obj.seats.all()
        )

    @admin.display(description=_("Game settings"))
    def game_settings(self, obj: Table) -> str:
        """The table's knobs (its game plugin's), the ones it was not given at their default."""
        plugin = plugin_for(obj.game)
        rules = plugin.ruleset(obj)
        lines = []
        for name, knob in plugin.knobs.items():
            if knob.rule:
                value = obj.settings.get(name, getattr(rules, name, None))
            else:
                value = plugin.setting(obj, name)
            lines.append(f"{name}: {json.dumps(value, default=str, ensure_ascii=False)}")
        return "\n".join(lines)

    @admin.display(description=_("Hands played"), ordering="hands_played")
    def hand_count(self, obj: Table) -> int:
        return obj.hands_played

    @admin.display(description=_("current hand"))
    def hand_number(self, obj: Table) -> str:
        hand = obj.current_hand
        if hand is None:
            return "-"
        url = reverse("admin:games_hand_inspect", args=[hand.pk])
        return format_html('<a href="{}">{}</a>', url, hand.number)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_staff) and request.user.has_perm("games.view_table")

    @admin.action(description=_("Force-close selected tables"), permissions=["moderate"])
    def force_close(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        staff: User = request.user  # type: ignore[assignment]
        return reason_action(
            self,
            request,
            queryset,
            title=_("Force-close tables"),
            submit=_("Close the tables"),
            done=_("%(count)d tables closed."),
            perform=lambda table, data: table_force_close(
                by=staff, table_id=table.pk, reason=data["reason"]
            ),
        )


HIDDEN_UNTIL_THE_END = _("hidden until the hand ends")


class EventInline(admin.TabularInline):
    model = HandEvent
    fields = ("seq", "table_version", "type", "visibility", "player", "data", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    @admin.display(description=_("data"))
    def data(self, obj: HandEvent) -> str:
        """A player's own events (their cards) stay hidden while the hand is in play."""
        if obj.visibility != HandEvent.Visibility.EVERYONE and obj.hand.ended_at is None:
            return str(HIDDEN_UNTIL_THE_END)
        return json.dumps(obj.payload, ensure_ascii=False)

    def get_queryset(self, request: HttpRequest) -> QuerySet[HandEvent]:
        return super().get_queryset(request).select_related("hand")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class TogetherFilter(admin.SimpleListFilter):
    """``?together=3,5``: hands that at least two of these users played together."""

    title = _("played together")
    parameter_name = "together"

    def user_ids(self) -> list[int]:
        raw = self.value() or ""
        return sorted({int(p) for p in raw.split(",") if p.strip().isdigit()})[:50]

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        ids = self.user_ids()
        if len(ids) < 2:
            return []
        names = ", ".join(str(u) for u in User.objects.filter(pk__in=ids).order_by("pk"))
        return [(",".join(map(str, ids)), names)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        ids = self.user_ids()
        if self.value() is None:
            return queryset
        return queryset.filter(pk__in=hands_together(ids)) if len(ids) >= 2 else queryset.none()


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "table",
        "number",
        "game",
        "started_at",
        "ended_at",
        "settled",
        "voided",
        "inspect",
    )
    list_filter = (TogetherFilter, "game", "settled", "voided")
    search_fields = ("participants__user__username", "=table__id")
    list_select_related = ("table",)
    date_hierarchy = "started_at"
    inlines = [EventInline]
    # The engine state holds every card; the server seed is shown only once
    # the hand has ended (revealed_seed): never a live hand's, to anyone.
    exclude = ("state", "setup", "server_seed")
    readonly_fields = ("revealed_seed",)

    @admin.display(description=_("server seed"))
    def revealed_seed(self, obj: Hand) -> str:
        return obj.server_seed if obj.ended_at is not None else str(HIDDEN_UNTIL_THE_END)

    @admin.display(description=_("inspect"))
    def inspect(self, obj: Hand) -> str:
        url = reverse("admin:games_hand_inspect", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("Inspect"))

    def get_urls(self) -> list[Any]:
        extra = [
            path(
                "<int:pk>/inspect/",
                self.admin_site.admin_view(self.inspect_view),
                name="games_hand_inspect",
            )
        ]
        return extra + super().get_urls()

    def inspect_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        hand = get_object_or_404(Hand.objects.select_related("table"), pk=pk)
        info = hand_inspection(hand=hand)
        context = {
            **self.admin_site.each_context(request),
            **info,
            "title": _("Hand %(number)s at table %(table)s")
            % {"number": hand.number, "table": hand.table_id},
            "opts": self.model._meta,
            "table_link": admin_link(hand.table),
            "settlement_link": admin_link(info["settlement"]),
            "result_json": json.dumps(hand.result, indent=2, ensure_ascii=False),
            "event_rows": [(e, json.dumps(e.payload, ensure_ascii=False)) for e in info["events"]],
        }
        return TemplateResponse(request, "admin/games/hand_inspect.html", context)


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdmin):
    # The model's fields have no verbose names (a migration of games, owned
    # elsewhere): the columns and the page are labelled here.
    list_display = ("sent_at", "table_link", "author", "line")
    fields = ("sent_at", "table_link", "author", "line")
    readonly_fields = fields
    search_fields = ("text", "user__username", "user__display_name", "=table__id")
    list_select_related = ("table", "user")
    date_hierarchy = "created_at"

    @admin.display(description=_("time"), ordering="created_at")
    def sent_at(self, obj: ChatMessage) -> Any:
        return obj.created_at

    @admin.display(description=_("table"), ordering="table")
    def table_link(self, obj: ChatMessage) -> str:
        return admin_link(obj.table)

    @admin.display(description=_("author"), ordering="user__username")
    def author(self, obj: ChatMessage) -> str:
        return admin_link(obj.user)

    @admin.display(description=_("chat line"), ordering="text")
    def line(self, obj: ChatMessage) -> str:
        return obj.text
