"""The browser pages: lobby, table pages, hand history and replays.

Thin: they read through selectors and change tables through services; the
live parts of the pages talk to the table and lobby WebSockets.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User
from games import rulebook, selectors, services
from games.errors import (
    HandNotReplayable,
    PrivateTable,
    RulesNotFound,
    TableFull,
    TableNotFound,
)
from games.forms import GAME_FIELDS, QUICK_STAKES, QuickJoinForm, TableCreateForm
from games.limits import non_default_rules
from games.models import Hand, Table
from games.plugins import PLUGINS, game_choices, plugin_for
from games.plugins.money import money_for
from kernel.errors import ServiceError
from kernel.net import client_ip

QUICK_SEATS = 4  # a table quick join opens
GAME_TABS = [(game, plugin.label) for game, plugin in PLUGINS.items()]


def _game(value: object) -> str:
    return value if isinstance(value, str) and value in PLUGINS else next(iter(PLUGINS))


def table_defaults() -> dict[str, Any]:
    """Clocks and bot think times for tables opened here (settings.TABLE_DEFAULTS)."""
    return dict(settings.TABLE_DEFAULTS)


def table_url(table: Table) -> str:
    url = reverse("table", args=[table.pk])
    if table.is_private:
        url += "?" + urlencode({"invite": table.invite_code})
    return url


def lobby(request: HttpRequest) -> HttpResponse:
    game = _game(request.GET.get("game"))
    form = TableCreateForm(initial={"game": game})
    context = _lobby_context(request, game, form)
    # ?tab=tournaments: the tournaments tab (static/js/tournaments.js) open at first
    context["view"] = "tournaments" if request.GET.get("tab") == "tournaments" else "games"
    return render(request, "games/lobby.html", context)


def _lobby_context(request: HttpRequest, game: str, form: TableCreateForm) -> dict[str, Any]:
    user = _user(request) if request.user.is_authenticated else None
    return {
        "game": game,
        "tabs": GAME_TABS,
        "form": form,
        "games": {g: plugin.facts() for g, plugin in PLUGINS.items()},
        "game_fields": GAME_FIELDS,
        # The open tables this visitor may find (their private ones too), and
        # theirs ("your tables": where they sit, what they own, invitations).
        "tables": selectors.lobby_tables(user=user),
        "mine": {
            "user": None if user is None else user.pk,
            "tables": [] if user is None else selectors.my_lobby_entries(user=user),
        },
        "quick_stakes": QUICK_STAKES,
    }


@login_required
@require_POST
def table_new(request: HttpRequest) -> HttpResponse:
    form = TableCreateForm(request.POST)
    if not form.is_valid():
        game = _game(request.POST.get("game"))
        return render(request, "games/lobby.html", _lobby_context(request, game, form), status=400)
    data = form.cleaned_data
    try:
        table = services.table_create(
            owner=_user(request),
            game=data["game"],
            stake=data["stake"],
            seat_count=data["seat_count"],
            preset=data["preset"],
            name=data["name"],
            is_private=data["is_private"],
            **form.game_fields(data["game"], data),
            **table_defaults(),
        )
    except ServiceError as err:
        form.add_error(None, err.message)
        context = _lobby_context(request, data["game"], form)
        return render(request, "games/lobby.html", context, status=400)
    return redirect(table_url(table))


def _user(request: HttpRequest) -> User:
    user: User = request.user  # type: ignore[assignment]
    return user


def _open_and_sit(request: HttpRequest, game: str, **settings_: Any) -> HttpResponse:
    """A new table and the player's seat at it, or (refused) neither."""
    try:
        with transaction.atomic():
            table = services.table_create(
                owner=_user(request), game=game, seat_count=QUICK_SEATS, **settings_,
                **table_defaults(),
            )  # fmt: skip
            services.table_sit(table_id=table.pk, user=_user(request), address=client_ip(request))
    except ServiceError as err:
        messages.error(request, err.message)
        return redirect(f"{reverse('lobby')}?game={game}")
    return redirect(table_url(table))


@login_required
@require_POST
def quick_join(request: HttpRequest) -> HttpResponse:
    form = QuickJoinForm(request.POST)
    if not form.is_valid():
        messages.error(request, str(TableFull.template))
        return redirect("lobby")
    game, stake = form.cleaned_data["game"], form.cleaned_data["stake"]
    user = _user(request)
    for _attempt in range(3):
        table = selectors.open_table_for(game=game, stake=stake)
        if table is None:
            break
        if selectors.seated_position(table_id=table.pk, user=user) is not None:
            return redirect(table_url(table))
        try:
            services.table_sit(table_id=table.pk, user=user, address=client_ip(request))
        except TableFull:
            continue
        except ServiceError as err:
            messages.error(request, err.message)
            return redirect(f"{reverse('lobby')}?game={game}")
        return redirect(table_url(table))
    return _open_and_sit(request, game, stake=stake)


@login_required
@require_http_methods(["GET", "POST"])
def play_now(request: HttpRequest, game: str) -> HttpResponse:
    """A table with bots in the empty seats, at once. GET (where the log-in page
    sends the visitor back) shows a button that posts here."""
    if game not in PLUGINS:
        raise Http404
    if request.method == "GET":
        return render(
            request, "games/play_now.html", {"game": game, "label": dict(game_choices())[game]}
        )
    try:
        table = services.table_play_now(
            user=_user(request), game=game, address=client_ip(request), **table_defaults()
        )
    except ServiceError as err:
        messages.error(request, err.message)
        return redirect(f"{reverse('lobby')}?game={game}")
    return redirect(table_url(table))


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    user = _user(request) if request.user.is_authenticated else None
    invite = request.GET.get("invite", "")
    seated = user is not None and (
        selectors.seated_position(table_id=table.pk, user=user) is not None
    )
    if not selectors.can_view(table, user, invite, seated):
        return render(request, "games/private.html", {"table": table}, status=403)
    if not seated:
        services.invite_redeem(table_id=table.pk, user=user, invite_code=invite)
    plugin = plugin_for(table.game)
    buy_in = money_for(table).buy_in_range(table)  # escrow games: the buy-in / cash-out bar
    held = money_for(table).min_balance(table)
    rules_url = reverse("table-rules", args=[table.pk])
    if invite:
        rules_url += "?" + urlencode({"invite": invite})
    can_invite = table.is_private and user is not None and (user.is_staff or table.owner == user)
    config = {
        "table": table.pk,
        "game": table.game,
        "invite": invite,
        "user": None if user is None else {"id": user.pk, "name": user.shown_name},
        "rules": plugin.client_rules(table),
        "buy_in": None if buy_in is None else list(buy_in),
        # Poker keeps a ready seat ready: no auto-ready switch.
        "keeps_ready": plugin.keeps_ready,
        "wallet_url": reverse("wallet"),
        "stake": table.stake,
        "chat": selectors.recent_chat(table=table),
        "closed_reason": table.closed_reason,
        "login": f"{reverse('login')}?{urlencode({'next': request.get_full_path()})}",
        # The drawer bar's "Rules" button: the table's own rules page.
        "rules_url": rules_url,
    }
    return render(
        request,
        "games/table.html",
        {
            "table": table,
            "config": config,
            "invite_link": request.build_absolute_uri(table_url(table)) if can_invite else "",
            # Its owner may close it (with a confirmation), as a moderator can.
            "can_close": user is not None
            and table.owner_id == user.pk
            and table.status != Table.Status.CLOSED,
            "plugin": plugin,
            # Wallet-hold games: the stakes held while one sits (None: a buy-in).
            "held_units": None if held is None else held // table.stake,
            "preset_label": plugin.preset_label(table.preset),
            "rules_url": rules_url,
            "own_rules": [
                {"name": name, "value": json.dumps(value, ensure_ascii=False)}
                for name, value in non_default_rules(table.game, table.preset, table.settings)
            ],
        },
    )


@login_required
@require_POST
def table_close(request: HttpRequest, table_id: int) -> HttpResponse:
    """The owner closes their table (the table page's button, confirmed):
    ``services.table_close_own``, as the API's close."""
    try:
        services.table_close_own(table_id=table_id, user=_user(request))
    except TableNotFound:
        raise Http404 from None
    except ServiceError as err:
        messages.error(request, err.message)
    return redirect(reverse("table", args=[table_id]))


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Net chips won per game, this week or all time (the API's leaderboard)."""
    game = _game(request.GET.get("game"))
    period = "all" if request.GET.get("period") == "all" else "week"
    board = selectors.leaderboard(game=game, period=period)
    return render(
        request,
        "games/leaderboard.html",
        {"board": board, "game": game, "period": period, "tabs": GAME_TABS},
    )


@login_required
def history(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    game = request.GET.get("game") or None
    if game is not None and game not in PLUGINS:
        game = None
    page = Paginator(selectors.hands_for_user(user=user, game=game), 20).get_page(
        request.GET.get("page")
    )
    nets = selectors.hand_nets(user=user, hands=page.object_list)
    rows = []
    for hand in page.object_list:
        net, timeouts = nets.get(hand.pk, (None, 0))
        rows.append({"hand": hand, "net": net, "timeouts": timeouts})
    return render(
        request,
        "games/history.html",
        {"page": page, "rows": rows, "game": game, "tabs": GAME_TABS},
    )


@login_required
def replay(request: HttpRequest, hand_id: int) -> HttpResponse:
    user = _user(request)
    hand = get_object_or_404(Hand.objects.select_related("table"), pk=hand_id)
    if not hand.finished or (not user.is_staff and selectors.player_of(hand, user) is None):
        raise Http404
    try:
        steps: dict[str, Any] | None = selectors.hand_steps(hand_id=hand.pk, user=user)
        unreplayable = ""
    except HandNotReplayable as refused:
        steps, unreplayable = None, refused.message
    table = hand.table
    config = {
        "rules": plugin_for(hand.game).client_rules(table),
        "stake": table.stake,
        "seat_count": table.seat_count,
    }
    return render(
        request,
        "games/replay.html",
        {
            "hand": hand,
            "replay": selectors.hand_replay(hand_id=hand.pk, user=user),
            "steps": steps,
            "unreplayable": unreplayable,
            "config": config,
            "game_module": plugin_for(hand.game).browser_module,
        },
    )


def rules_index(request: HttpRequest) -> HttpResponse:
    """The rules pages' index: every game and its presets."""
    games = [(plugin, [(code, plugin.preset_label(code)) for code, _ in plugin.presets])
             for plugin in PLUGINS.values()]  # fmt: skip
    return render(request, "rules/index.html", {"games": games})


def rules_game(request: HttpRequest, game: str) -> HttpResponse:
    """A game's rules: its first preset's (the lobby form's default)."""
    plugin = PLUGINS.get(game)
    if plugin is None:
        raise Http404
    return redirect("rules-preset", game=game, preset=plugin.presets[0][0])


def rules_preset(request: HttpRequest, game: str, preset: str) -> HttpResponse:
    try:
        book = rulebook.rules_book(game=game, preset=preset)
    except RulesNotFound:
        raise Http404 from None
    return render(request, "rules/page.html", {"book": book, **book.context()})


def table_rules(request: HttpRequest, table_id: int) -> HttpResponse:
    """A table's rules: its own differences on top, then its preset's page with
    the table's numbers. A private table's only for those who may open it."""
    user = _user(request) if request.user.is_authenticated else None
    try:
        book = rulebook.table_rules_book(
            table_id=table_id, user=user, invite_code=request.GET.get("invite", "")
        )
    except TableNotFound:
        raise Http404 from None
    except PrivateTable:
        return render(request, "games/private.html", {}, status=403)
    return render(request, "rules/page.html", {"book": book, **book.context()})
