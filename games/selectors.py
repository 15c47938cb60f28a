"""Reads that need care: what a given viewer may see of a table."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Count, F, Q

from games import publish
from games.adapters import adapter_for
from games.errors import PrivateTable, TableNotFound
from games.models import ChatMessage, Hand, HandEvent, HandPlayer, Seat, Table
from vipgame.accounts.models import User


def can_view(table: Table, user: User | None, invite_code: str, seated: bool) -> bool:
    if not table.is_private or seated:
        return True
    if user is not None and (user.is_staff or table.owner_id == user.pk):
        return True
    return bool(invite_code) and invite_code == table.invite_code


@transaction.atomic
def table_state(
    *, table_id: int, user: User | None, invite_code: str = "", since: int | None = None
) -> dict[str, Any]:
    """The ``state`` message for this viewer, with the events it missed since
    version ``since`` (only those of the current hand; older gaps get the full
    state alone)."""
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise TableNotFound()
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    viewer = None
    if user is not None and user.is_authenticated:
        viewer = next((s for s in seats if s.user_id == user.pk), None)
    if not can_view(table, user, invite_code, viewer is not None):
        raise PrivateTable()
    hand = None if table.current_hand_id is None else Hand.objects.get(pk=table.current_hand_id)
    engine = adapter_for(table.game).engine
    state = None if hand is None else engine.loads(hand.state)
    events: list[HandEvent] = []
    if hand is not None and since is not None and since < table.version:
        events = list(HandEvent.objects.filter(hand=hand, table_version__gt=since).order_by("seq"))
    chips = publish.seat_chips(table, seats)
    payload = publish.state_payload(table, seats, chips, hand, state, viewer, events)
    payload["resync"] = since is not None
    return payload


def lobby_tables(*, game: str | None = None) -> list[dict[str, Any]]:
    tables = Table.objects.exclude(status=Table.Status.CLOSED).filter(is_private=False)
    if game:
        tables = tables.filter(game=game)
    seats: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(table__in=tables):
        seats.setdefault(seat.table_id, []).append(seat)
    return [
        publish.lobby_entry(t, seats.get(t.pk, [])) for t in tables.order_by("game", "stake", "pk")
    ]


def seated_position(*, table_id: int, user: User) -> int | None:
    return (
        Seat.objects.filter(table_id=table_id, user=user).values_list("position", flat=True).first()
    )


def hands_for_user(*, user: User, game: str | None = None) -> Any:
    """Finished hands the player was dealt into, newest first."""
    hands = Hand.objects.filter(ended_at__isnull=False, participants__user=user)
    if game:
        hands = hands.filter(game=game)
    return hands.select_related("table").order_by("-ended_at", "-pk")


def player_of(hand: Hand, user: User) -> int | None:
    return HandPlayer.objects.filter(hand=hand, user=user).values_list("index", flat=True).first()


def hand_replay(*, hand: Hand, user: User) -> dict[str, Any]:
    """A finished hand's events as this user was allowed to see them at the table:
    public events and their own private ones; staff see every event. The seeds
    are shown once the hand is over."""
    if not hand.finished:
        raise PrivateTable()
    player = player_of(hand, user)
    events = HandEvent.objects.filter(hand=hand).order_by("seq")
    if user.is_staff:
        visible = [{**publish.event_json(e), "to": e.player} for e in events]
    else:
        visible = publish.visible_events(events, player)
    return {
        "hand": hand.pk,
        "table": hand.table_id,
        "game": hand.game,
        "number": hand.number,
        "players": hand.players,
        "you": player,
        "started_at": publish.epoch_ms(hand.started_at),
        "ended_at": publish.epoch_ms(hand.ended_at),
        "events": visible,
        "result": hand.result,
        "fairness": {
            "commitment": hand.commitment,
            "server_seed": hand.server_seed,
            "hand_id": hand.fair_id,
            "client_seeds": hand.client_seeds,
        },
    }


def open_table_for(*, game: str, stake: int, bots_only: bool = False) -> Table | None:
    """A public open table of this game and stake with a free seat (quick join), the
    fullest first; with ``bots_only``, one of the "play now" tables nobody is at."""
    seated = Count("seats")
    humans = Count("seats", filter=Q(seats__is_bot=False))
    tables = (
        Table.objects.filter(game=game, stake=stake, is_private=False)
        .exclude(status=Table.Status.CLOSED)
        .annotate(taken=seated, humans=humans)
        .filter(taken__lt=F("seat_count"))
    )
    if bots_only:
        tables = tables.filter(fill_with_bots=True, humans=0)
    return tables.order_by("-humans", "-taken", "pk").first()


def recent_chat(*, table: Table, limit: int = 30) -> list[dict[str, Any]]:
    messages = ChatMessage.objects.filter(table=table).select_related("user").order_by("-pk")
    return [
        {
            "type": "chat",
            "id": m.pk,
            "user_id": m.user_id,
            "name": m.user.shown_name,
            "text": m.text,
            "at": publish.epoch_ms(m.created_at),
        }
        for m in reversed(messages[:limit])
    ]


def hand_nets(*, user: User, hands: Any) -> dict[int, int | None]:
    """What this player won or lost in each of these hands (chips; None until settled)."""
    return dict(
        HandPlayer.objects.filter(user=user, hand__in=list(hands)).values_list("hand_id", "net")
    )
