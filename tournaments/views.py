"""The tournament page (``/tournaments/<id>/``): its settings, levels, prizes
by place and entries (places and prizes once over), and the way to its table
while it runs. Read-only; registering is the lobby's tournaments tab and the
API's (static/js/tournaments.js)."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from . import levels, services
from .models import Entry, Tournament


def _levels(tournament: Tournament) -> list[dict[str, Any]]:
    return [
        {**level.as_dict(), "minutes": level.seconds / 60}
        for level in levels.loads(tournament.levels)
    ]


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = Tournament.objects.filter(pk=tournament_id).prefetch_related("tables").first()
    if tournament is None:
        raise Http404()
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .exclude(status=Entry.Status.UNREGISTERED)
        .select_related("player")
        .order_by("registered_at", "pk")
    )
    over = tournament.status == Tournament.Status.FINISHED
    if over:  # the results: by place, then the order they went out in
        entries.sort(key=lambda e: (e.place or 10**6, -(e.rank or 0)))
    user = request.user if request.user.is_authenticated else None
    mine = user is not None and any(
        e.player_id == user.pk and e.status in services.IN for e in entries
    )
    now = services.level_in_play(tournament)
    # (a scheduled tournament's: those still open; a Sit & Go's one, open or closed)
    table_ids = [t.table_id for t in tournament.tables.all()]
    if len(table_ids) > 1:
        table_ids = list(
            tournament.tables.exclude(table__status="closed").values_list("table_id", flat=True)
        )
    sit_and_go = tournament.kind == Tournament.Kind.SIT_AND_GO
    name = _("Sit & Go #%(id)s") if sit_and_go else _("Tournament #%(id)s")
    return render(
        request,
        "tournaments/tournament.html",
        {
            "tournament": tournament,
            "entries": entries,
            "over": over,
            "mine": mine,
            "taken": sum(e.status in services.IN for e in entries),
            "prizes": list(
                enumerate(
                    services.prizes_by_place(
                        tournament, sum(e.status in services.IN for e in entries)
                    ),
                    1,
                )
            ),
            "levels": _levels(tournament),
            "blinds": tournament.level_kind == Tournament.Levels.BLINDS,
            "level": now[0] if now else None,
            "next_in": None if now is None or now[1] is None else int(now[1]),
            "table_ids": table_ids,
            "name": name % {"id": tournament.pk},
            "running": tournament.status == Tournament.Status.RUNNING,
        },
    )
