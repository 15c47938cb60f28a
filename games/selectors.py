"""Reads that need care: what a given viewer may see of a table."""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from itertools import accumulate
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Prefetch, Q, QuerySet, Sum
from django.utils import timezone

from accounts.avatars import avatar_url, default_avatar
from accounts.models import User, public_name
from games import clock, publish, sql, thinking
from games.errors import (
    HandNotFinished,
    HandNotFound,
    HandNotReplayable,
    NotInHand,
    NotSeated,
    PhhUnavailable,
    PlayerNotFound,
    PrivateTable,
    TableNotFound,
)
from games.models import (
    ChatMessage,
    Departure,
    Hand,
    HandEvent,
    HandPlayer,
    Invitation,
    Seat,
    Table,
)
from games.plugins import plugin_for
from games.plugins.money import money_for
from games.rules import fairness
from games.rules.cards import cards_str
from games.rules.errors import RulesError
from games.rules.game import Event
from games.rules.replay import ReplayStep, replay
from wallet.models import Account, Hold

logger = logging.getLogger(__name__)


def can_view(table: Table, user: User | None, invite_code: str, seated: bool) -> bool:
    """Whether ``user`` may open the table: anyone a public one; a private one
    whoever sits there, its owner, staff, the holder of its invite code, and
    a player invited to it (``Invitation``: who opened it with the code once)."""
    if not table.is_private or seated:
        return True
    if user is not None and (user.is_staff or table.owner_id == user.pk):
        return True
    if invite_code and invite_code == table.invite_code:
        return True
    return user is not None and user.is_authenticated and is_invited(table.pk, user)


def is_invited(table_id: int, user: User) -> bool:
    return Invitation.objects.filter(table_id=table_id, user_id=user.pk).exists()


def listed_for(user: User | None) -> Q:
    """The tables a lobby shows this viewer: the public ones, and the private
    ones they own, sit at or were invited to (never anyone else's). A table
    playing with another money model than its game's (a tournament's) is
    listed only to its players: the tournament's own pages show it."""
    listed = Q(is_private=False, money="")
    if user is not None and user.is_authenticated:
        listed |= (
            Q(owner_id=user.pk)
            | Q(pk__in=Invitation.objects.filter(user_id=user.pk).values("table_id"))
            | Q(pk__in=Seat.objects.filter(user_id=user.pk).values("table_id"))
        )
    return listed


def snapshot() -> transaction.Atomic:
    """A read-only transaction that sees one moment of the database and takes
    no lock: PostgreSQL's REPEATABLE READ (a reader never waits for a move and
    never sees half of one). SQLite (``make run``) serialises anyway."""
    return _Snapshot()


class _Snapshot(transaction.Atomic):
    def __init__(self) -> None:
        super().__init__(using=None, savepoint=True, durable=False)

    def __enter__(self) -> None:
        outermost = not connection.in_atomic_block
        super().__enter__()
        if outermost and connection.vendor == "postgresql":
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            except BaseException:
                # Python calls no __exit__ for an __enter__ that raised: left
                # to itself, the transaction just begun would stay open on this
                # thread's connection, and once that connection is gone every
                # later use of it would fail ("Cannot open a new connection in
                # an atomic block": a Daphne's thread answered nothing else
                # after PgBouncer lost its server in the kill drill).
                self.__exit__(*sys.exc_info())
                raise


def table_state(
    *, table_id: int, user: User | None, invite_code: str = "", since: int | None = None
) -> dict[str, Any]:
    """The ``state`` message for this viewer, with the events it missed since
    version ``since`` (only those of the current hand; older gaps get the full
    state alone). Read from one snapshot without a lock: it never waits for a
    move."""
    with snapshot():
        return _table_state(table_id, user, invite_code, since)


def _table_state(
    table_id: int, user: User | None, invite_code: str, since: int | None
) -> dict[str, Any]:
    # (the table and hand rows by prepared statements, not the ORM: every
    # socket reads this when it connects)
    table = sql.read_table(table_id)
    if table is None:
        raise TableNotFound()
    seats = list(publish.seats_with_chips(table))
    viewer = None
    if user is not None and user.is_authenticated:
        viewer = next((s for s in seats if s.user_id == user.pk), None)
    if not can_view(table, user, invite_code, viewer is not None):
        raise PrivateTable()
    hand = None if table.current_hand_id is None else sql.read_hand(table.current_hand_id)
    engine = plugin_for(table.game).engine
    state = None if hand is None else engine.loads(hand.state)
    events: list[HandEvent] = []
    if hand is not None and since is not None and since < table.version:
        events = list(HandEvent.objects.filter(hand=hand, table_version__gt=since).order_by("seq"))
    chips = publish.seat_chips(table, seats)
    payload = publish.state_payload(table, seats, chips, hand, state, viewer, events)
    payload["resync"] = since is not None
    if viewer is None and user is not None and user.is_authenticated:
        departure = Departure.objects.filter(table=table, user=user).first()
        if departure is not None:
            payload["removed"] = publish.removed_info(departure.reason, departure.at)
    return payload


def leave_cost(*, table_id: int, user: User) -> dict[str, Any] | None:
    """What leaving the table now costs the user, in chips, as the game's rules
    tell it from what the user may see (docs/protocol.md "Leaving"); None when
    it costs nothing (between hands, a hand already left, folded or all in).
    ``not_seated`` when the user does not sit there."""
    with snapshot():
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise TableNotFound()
        seat = Seat.objects.filter(table=table, user=user).first()
        if seat is None:
            raise NotSeated()
        hand = None if table.current_hand_id is None else Hand.objects.get(pk=table.current_hand_id)
        player = None if hand is None else publish.player_of_user(hand, user.pk)
        if hand is None or hand.finished or player is None or seat.leaving:
            return None
        plugin = plugin_for(table.game)
        balance = money_for(table).spendable(user, seat)
        return plugin.leave_cost(table, plugin.engine.loads(hand.state), player, balance)


def lobby_tables(*, game: str | None = None, user: User | None = None) -> list[dict[str, Any]]:
    """The lobby socket's and page's first list (``publish.lobby_entry`` each):
    the open tables ``listed_for`` the viewer."""
    tables = Table.objects.exclude(status=Table.Status.CLOSED).filter(listed_for(user))
    if game:
        tables = tables.filter(game=game)
    seats: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(table__in=tables).select_related("user"):
        seats.setdefault(seat.table_id, []).append(seat)
    return [
        publish.lobby_entry(t, seats.get(t.pk, [])) for t in tables.order_by("game", "stake", "pk")
    ]


def my_lobby_entries(*, user: User) -> list[dict[str, Any]]:
    """The player's tables (``my_tables``) as the lobby socket's entries
    (``publish.lobby_entry``) with why each is listed (``seat``, ``owned``,
    ``invited``): the browser's "your tables"."""
    return [
        {
            **publish.lobby_entry(mine.table, list(mine.table.seats.all())),
            "seat": mine.seat,
            "owned": mine.owned,
            "invited": mine.invited,
        }
        for mine in my_tables(user=user)
    ]


def table_version(*, table_id: int) -> int | None:
    return sql.table_version(table_id)


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


def hand_history(*, user: User) -> QuerySet[HandPlayer]:
    """The player's finished hands (one row per hand, with their result), newest first."""
    return (
        HandPlayer.objects.filter(user=user, hand__ended_at__isnull=False)
        .select_related("hand", "hand__table")
        .order_by("-hand__ended_at", "-hand_id")
    )


def viewable_hand(*, hand_id: int, user: User) -> tuple[Hand, int | None]:
    """A finished hand and the viewer's player index in it (None if not dealt in).

    Players of the hand and staff may look at any hand; anyone else only at
    hands of public tables (what a spectator could have watched).
    """
    hand = Hand.objects.select_related("table").filter(pk=hand_id).first()
    if hand is None:
        raise HandNotFound()
    player = player_of(hand, user)
    if player is None and not user.is_staff and hand.table.is_private:
        raise PrivateTable()
    if not hand.finished:
        raise HandNotFinished()
    return hand, player


def hand_detail(*, hand_id: int, user: User) -> dict[str, Any]:
    """A finished hand with its result (the one shape of docs/protocol.md:
    each player's net and every payment the rules made, in units of ``unit``
    chips before anyone's cap, and the chips that really moved)."""
    hand, player = viewable_hand(hand_id=hand_id, user=user)
    return {
        "id": hand.pk,
        "table": hand.table_id,
        "game": hand.game,
        "number": hand.number,
        "stake": hand.stake or hand.table.stake,
        "started_at": hand.started_at,
        "ended_at": hand.ended_at,
        "settled": hand.settled,
        "voided": hand.voided,
        "you": player,
        "players": publish.hand_players(hand),
        "result": hand.result,
    }


def hand_replay(*, hand_id: int, user: User) -> dict[str, Any]:
    """A finished hand's events as this user was allowed to see them at the table.

    * its players: the public events and their own private ones (their cards);
      others' cards only where the table showed them (a showdown, a Mậu Binh
      reveal, the cards left at the end of Tiến Lên);
    * anyone else (public tables only, see ``viewable_hand``): the public events;
    * staff: every event, each marked with the player it went to
      (``private_to``; null: everyone), and the whole deck.

    The seed, the client seeds and the commitment are shown (the hand is over).
    """
    hand, player = viewable_hand(hand_id=hand_id, user=user)
    events = HandEvent.objects.filter(hand=hand).order_by("seq")
    if user.is_staff:
        visible = [{**publish.event_json(e), "private_to": e.player} for e in events]
    else:
        visible = publish.visible_events(events, player)
    replay: dict[str, Any] = {
        "hand": hand.pk,
        "table": hand.table_id,
        "game": hand.game,
        "number": hand.number,
        "players": publish.hand_players(hand),
        "you": player,
        "started_at": publish.epoch_ms(hand.started_at),
        "ended_at": publish.epoch_ms(hand.ended_at),
        "voided": hand.voided,
        "events": visible,
        "result": hand.result,
        "fairness": {
            "commitment": hand.commitment,
            "server_seed": hand.server_seed,
            "hand_id": hand.fair_id,
            "client_seeds": hand.client_seeds,
            "seed_sources": hand.seed_sources,
        },
    }
    if user.is_staff:
        seed = bytes.fromhex(hand.server_seed)
        replay["deck"] = cards_str(fairness.deal_deck(seed, hand.fair_id, hand.client_seeds))
    return replay


def hand_replayed(hand: Hand) -> tuple[list[HandEvent], list[ReplayStep]]:
    """A finished hand's event rows and every state it went through: dealt
    again from its seeds, each recorded change (a move, a time-out, a player
    leaving) applied again through the rules (``games.rules.replay``).
    ``HandNotReplayable`` if the rules do not make exactly the recorded events
    (a record is then refused rather than shown wrong)."""
    plugin = plugin_for(hand.game)
    rows = list(HandEvent.objects.filter(hand=hand).order_by("seq"))
    # The service's own first event (the hand's number and commitment), then the engine's.
    if not rows or rows[0].type != "hand_started":
        raise HandNotReplayable()
    recorded = [
        Event(e.type, e.payload, e.player if e.visibility == HandEvent.Visibility.SEAT else None)
        for e in rows[1:]
    ]
    deck = fairness.deal_deck(bytes.fromhex(hand.server_seed), hand.fair_id, hand.client_seeds)
    ruleset = plugin.ruleset(hand.table)
    try:
        steps = replay(plugin.engine, ruleset, deck, len(hand.players), hand.setup, recorded)
    except RulesError:
        logger.warning("hand %s does not replay through its rules", hand.pk)
        raise HandNotReplayable() from None
    return rows, steps


def hand_steps(*, hand_id: int, user: User) -> dict[str, Any]:
    """A finished hand step by step, each step a picture of the table as this
    user saw it then (the same viewers as ``hand_replay``): after the deal and
    after each change, the events it made that the viewer may see, the
    viewer's view of the state (a player's own, anyone else's a spectator's)
    and whose move it was. The result comes with the last step only."""
    hand, player = viewable_hand(hand_id=hand_id, user=user)
    engine = plugin_for(hand.game).engine
    rows, replayed = hand_replayed(hand)
    # Step k made rows[ends[k] : ends[k + 1]] (the deal also the service's first).
    ends = list(accumulate((len(s.events) for s in replayed), initial=1))
    steps: list[dict[str, Any]] = []
    for k, step in enumerate(replayed):
        status = engine.status(step.state)
        steps.append(
            {
                "events": publish.visible_events(rows[ends[k] if k else 0 : ends[k + 1]], player),
                "view": engine.view(step.state, player),
                "actors": [] if status.finished else list(status.actors),
                "finished": status.finished,
                "result": None,
            }
        )
    steps[-1]["result"] = hand.result
    return {
        "hand": hand.pk,
        "table": hand.table_id,
        "game": hand.game,
        "number": hand.number,
        "stake": hand.stake or hand.table.stake,
        "players": publish.hand_players(hand),
        "you": player,
        "voided": hand.voided,
        "steps": steps,
    }


def open_table_for(*, game: str, stake: int, bots_only: bool = False) -> Table | None:
    """A public open table of this game and stake with a free seat (quick join), the
    fullest first; with ``bots_only``, one of the "play now" tables nobody is at."""
    seated = Count("seats")
    humans = Count("seats", filter=Q(seats__is_bot=False))
    tables = (
        Table.objects.filter(game=game, stake=stake, is_private=False, money="")
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


def hand_nets(*, user: User, hands: Any) -> dict[int, tuple[int | None, int]]:
    """What this player won or lost in each of these hands (chips; None until
    settled), and how many of their clocks ran out in it (played for them)."""
    rows = HandPlayer.objects.filter(user=user, hand__in=list(hands)).values_list(
        "hand_id", "net", "timeouts"
    )
    return {hand_id: (net, timeouts) for hand_id, net, timeouts in rows}


def hand_phh(*, hand_id: int, user: User) -> dict[str, Any]:
    """A finished hand in its game's exchange format (Hold'em: PHH, the only
    one) for one of its players: their own hole cards, others' only if shown
    at the showdown (folded and unshown hands are ``????``). Staff get every
    hole card."""
    hand, player = viewable_hand(hand_id=hand_id, user=user)
    if player is None and not user.is_staff:
        raise NotInHand()
    plugin = plugin_for(hand.game)
    text = None
    if not hand.voided:
        text = plugin.hand_export(
            hand, plugin.engine.loads(hand.state), player, reveal_all=user.is_staff
        )
    if text is None:
        raise PhhUnavailable()
    return {"hand": hand.pk, "complete": user.is_staff, "phh": text}


def open_tables(user: User | None = None) -> QuerySet[Table]:
    """The open tables ``listed_for`` the viewer (the lobby), with their seat
    counts and seated players (``lobby_rows``)."""
    tables = Table.objects.exclude(status=Table.Status.CLOSED).filter(listed_for(user))
    return lobby_rows(tables).order_by("game", "stake", "pk")


def lobby_rows(tables: QuerySet[Table]) -> QuerySet[Table]:
    """Tables as the API's lobby entries read them: their seat counts
    (``taken``, ``humans``, ``free_seats``) and seats with their players."""
    seats = Seat.objects.select_related("user").order_by("position")
    return (
        tables.annotate(taken=Count("seats"), humans=Count("seats", filter=Q(seats__is_bot=False)))
        .annotate(free_seats=F("seat_count") - F("taken"))
        .prefetch_related(Prefetch("seats", queryset=seats))
    )


@dataclass(frozen=True)
class MyTable:
    """One of a player's tables (``my_tables``) and why it is listed: ``seat``
    (theirs there: its position, whether they were dealt into the hand in
    play, whether they are leaving; None if they do not sit there), ``owned``,
    ``invited`` (``Invitation``)."""

    table: Table
    seat: dict[str, Any] | None
    owned: bool
    invited: bool


def my_tables(*, user: User) -> list[MyTable]:
    """The open tables the player sits at, owns or was invited to
    (``GET /api/v1/me/tables``), each a lobby row (``lobby_rows``) with why it
    is listed. Tables they sit at first, then those they own, then the others;
    the newest first in each."""
    still_open = ~Q(table__status=Table.Status.CLOSED)
    seats = {s.table_id: s for s in Seat.objects.filter(still_open, user=user)}
    invited = set(
        Invitation.objects.filter(still_open, user=user).values_list("table_id", flat=True)
    )
    rows = lobby_rows(
        Table.objects.exclude(status=Table.Status.CLOSED).filter(
            Q(pk__in=list(seats)) | Q(owner_id=user.pk) | Q(pk__in=list(invited))
        )
    )
    tables = sorted(rows, key=lambda t: (t.pk not in seats, t.owner_id != user.pk, -t.pk))
    held = _chips_held(list(seats.values()), {t.pk: t for t in tables})
    hands = [t.current_hand_id for t in tables if t.pk in seats and t.current_hand_id]
    in_play = dict(
        Hand.objects.filter(pk__in=hands, ended_at__isnull=True).values_list("pk", "players")
    )
    mine = []
    for table in tables:
        seat = seats.get(table.pk)
        dealt = in_play.get(table.current_hand_id or 0, [])
        mine.append(
            MyTable(
                table=table,
                seat=None
                if seat is None
                else {
                    "position": seat.position,
                    "in_hand": any(p["user_id"] == user.pk for p in dealt),
                    "leaving": seat.leaving,
                    "leave_after_hand": seat.leave_after_hand,
                    "chips": held.get(seat.pk, 0),
                },
                owned=table.owner_id == user.pk,
                invited=table.pk in invited,
            )
        )
    return mine


def _chips_held(seats: list[Seat], tables: dict[int, Table]) -> dict[int, int]:
    """What each of a player's seats holds of their chips (seat id -> chips):
    its stack where chips sit on the seat (Poker's escrow, ``seat:<table>:
    <position>``), else the wallet hold that backs it (Mậu Binh, Tiến Lên).
    Two statements for any number of seats."""
    source = {
        s.pk: money_for(tables[s.table_id]).chips_source for s in seats if s.table_id in tables
    }
    escrow = {
        f"seat:{s.table_id}:{s.position}": s.pk for s in seats if source.get(s.pk) == "escrow"
    }
    holds = {
        s.hold_id: s.pk for s in seats if s.hold_id is not None and source.get(s.pk) == "wallet"
    }
    chips = {
        escrow[key]: balance
        for key, balance in Account.objects.filter(key__in=escrow).values_list("key", "balance")
    }
    chips.update(
        {s.pk: s.stack for s in seats if source.get(s.pk) == "seat" and s.stack is not None}
    )
    for hold_id, amount in Hold.objects.filter(
        pk__in=holds, status=Hold.Status.PENDING
    ).values_list("pk", "amount"):
        chips[holds[hold_id]] = amount
    return chips


def week_start(now: datetime | None = None) -> datetime:
    """Monday 00:00 of this week in Asia/Ho_Chi_Minh."""
    zone = ZoneInfo(settings.BONUS_TIME_ZONE)
    today = (now or timezone.now()).astimezone(zone).date()
    return datetime.combine(today - timedelta(days=today.weekday()), time.min, tzinfo=zone)


def leaderboard(
    *, game: str, period: str, limit: int = 50, now: datetime | None = None
) -> dict[str, Any]:
    """People (never bots, nor deactivated accounts) by net chips won in settled
    hands of one game, this week (from Monday 00:00 Asia/Ho_Chi_Minh) or all
    time. Equal nets share a rank."""
    since = week_start(now) if period == "week" else None
    rows = HandPlayer.objects.filter(
        hand__game=game,
        hand__voided=False,
        net__isnull=False,
        user__is_bot=False,
        user__is_active=True,
    )
    if since is not None:
        rows = rows.filter(hand__ended_at__gte=since)
    totals = (
        rows.values("user_id", "user__display_name", "user__avatar")
        .annotate(won=Sum("net"), hands=Count("id"))
        .order_by("-won", "user_id")[:limit]
    )
    entries: list[dict[str, Any]] = []
    for i, row in enumerate(totals):
        rank = entries[-1]["rank"] if entries and entries[-1]["net"] == row["won"] else i + 1
        entries.append(
            {
                "rank": rank,
                "user_id": row["user_id"],
                "name": public_name(row["user__display_name"], row["user_id"]),
                "avatar": row["user__avatar"] or default_avatar(row["user_id"]),
                "net": row["won"],
                "hands": row["hands"],
            }
        )
    return {"game": game, "period": period, "since": since, "entries": entries}


def card_visible(*, user_id: int, viewer: User | None = None) -> QuerySet[User]:
    """The player whose card a viewer may see (one row or none): someone the
    viewer could meet at a table or in the leaderboard (docs/security.md, "Names
    and player cards"). Never a staff account, a deactivated one or one without
    a display name; otherwise only a player with a settled hand (the all-time
    leaderboard's rule), one seated at an open public table, the viewer
    themselves, or one seated at a table where the viewer sits."""
    seen = Q(
        pk__in=HandPlayer.objects.filter(
            user_id=user_id, hand__voided=False, net__isnull=False
        ).values("user_id")
    ) | Q(
        pk__in=Seat.objects.filter(user_id=user_id, table__is_private=False)
        .exclude(table__status=Table.Status.CLOSED)
        .values("user_id")
    )
    if viewer is not None and viewer.is_authenticated:
        beside = Seat.objects.filter(user_id=user_id, table__seats__user_id=viewer.pk)
        seen |= Q(pk=viewer.pk) | Q(pk__in=beside.values("user_id"))
    return (
        User.objects.filter(pk=user_id, is_active=True, is_staff=False, is_superuser=False)
        .exclude(display_name="")
        .filter(seen)
    )


def player_profile(
    *, user_id: int, viewer: User | None = None, now: datetime | None = None
) -> dict[str, Any]:
    """What a seat's card shows of its player: name, avatar, settled hands played
    (voided ones do not count) and net chips won in those ended this week.
    ``player_not_found`` for a player ``card_visible`` hides, as for a missing id."""
    user = card_visible(user_id=user_id, viewer=viewer).first()
    if user is None:
        raise PlayerNotFound()
    since = week_start(now)
    played = HandPlayer.objects.filter(user=user, hand__voided=False, net__isnull=False)
    totals = played.aggregate(
        hands=Count("id"), week=Sum("net", filter=Q(hand__ended_at__gte=since), default=0)
    )
    return {
        "id": user.pk,
        "name": user.display_name,
        "avatar": user.avatar_key,
        "avatar_url": avatar_url(user.avatar_key),
        "bot": user.is_bot,
        "hands": totals["hands"],
        "net_week": totals["week"],
        "since": since,
    }


def fairness_check(
    *, server_seed: str, hand_id: str, client_seeds: list[str], commitment: str | None
) -> dict[str, Any]:
    """The deck a seed deals for a hand (docs/fairness.md) and whether the seed
    matches a commitment published before the hand."""
    seed = bytes.fromhex(server_seed)
    computed = fairness.commitment(seed)
    return {
        "deck": cards_str(fairness.deal_deck(seed, hand_id, client_seeds)),
        "commitment": computed,
        "matches": None if commitment is None else computed == commitment.lower(),
    }


# -- the sweeper's reads (games.tasks.sweeper) -------------------------------


def idle_tables() -> list[int]:
    """Open tables where nothing happened for ``TABLE_IDLE_MINUTES`` (no hand
    in play)."""
    minutes = settings.TABLE_IDLE_MINUTES
    if minutes <= 0:
        return []
    limit = clock.now() - timedelta(minutes=minutes)
    return list(
        # (a table of an app's money model, a tournament's, is the app's to close)
        Table.objects.filter(
            status=Table.Status.WAITING, active_at__lte=limit, money=""
        ).values_list("pk", flat=True)
    )


def tables_without_people(*, table_id: int | None = None) -> list[int]:
    """Tables between hands whose bots wait for nobody: bots seated, and no
    person present for ``BOT_RELEASE_SECONDS``. A person is present while
    seated with a socket open (``Seat.connected``: connected and heard from
    within ``Seat.PRESENCE_TIMEOUT_S``); a table with no person seated, or
    with none connected, is without people since the last of: a person's seat
    last seen (or taken, for one never seen), a person leaving (``Departure``),
    a bot seated (whoever asked for it has that long to sit or come back).
    Bots' own moves do not count (they bump ``active_at``, not these)."""
    now = clock.now()
    since = now - timedelta(seconds=settings.BOT_RELEASE_SECONDS)
    present = now - timedelta(seconds=Seat.PRESENCE_TIMEOUT_S)
    seats = Seat.objects.filter(table=OuterRef("pk"))
    people = seats.filter(is_bot=False)
    tables = Table.objects.filter(status__in=(Table.Status.WAITING, Table.Status.SUMMARY))
    if table_id is not None:
        tables = tables.filter(pk=table_id)
    return list(
        tables.filter(Exists(seats.filter(is_bot=True)))
        .exclude(Exists(people.filter(connections__gt=0, last_seen__gte=present)))
        .exclude(Exists(people.filter(Q(last_seen__gt=since) | Q(joined_at__gt=since))))
        .exclude(Exists(seats.filter(is_bot=True, joined_at__gt=since)))
        .exclude(Exists(Departure.objects.filter(table=OuterRef("pk"), at__gt=since)))
        .values_list("pk", flat=True)
    )


def sweep(*, grace_ms: int = 1000) -> list[tuple[int, int]]:
    """Clocks that are overdue (a lost or late timer task): (table, clock version)."""
    limit = clock.now() - timedelta(milliseconds=grace_ms)
    return list(
        Table.objects.filter(deadline__lte=limit)
        .exclude(status=Table.Status.CLOSED)
        .values_list("pk", "clock_version")
    )


def bots_unready() -> list[tuple[int, int]]:
    """(table, position) of bots not ready at a table between hands: their
    ready-up task was lost (a broker outage, a worker killed)."""
    return list(
        Seat.objects.filter(
            is_bot=True, ready=False, leaving=False, table__status=Table.Status.WAITING
        ).values_list("table_id", "position")
    )


def bot_tables_stalled(*, after_ms: int = 4000) -> list[int]:
    """Playing tables with a bot seat whose clock has run a while without a move."""
    limit = clock.now() - timedelta(milliseconds=after_ms)
    return list(
        Table.objects.filter(
            Q(status=Table.Status.PLAYING) & Q(clock_started_at__lte=limit) & Q(seats__is_bot=True)
        )
        .distinct()
        .values_list("pk", flat=True)
    )


def table_bots_due(*, after_ms: int = 4000) -> list[tuple[int, int, int]]:
    """(table, hand, position) of bots whose move is overdue (a lost task):
    ``after_ms`` past the end of their think time (games.thinking)."""
    now = clock.now()
    due = []
    for table in Table.objects.filter(pk__in=bot_tables_stalled(after_ms=after_ms)).select_related(
        "current_hand"
    ):
        hand = table.current_hand
        if hand is None or hand.ended_at is not None or table.clock_started_at is None:
            continue
        plugin = plugin_for(table.game)
        try:
            state = plugin.engine.loads(hand.state)
            actors = plugin.engine.status(state).actors
        except Exception:
            # One table whose state cannot be read must not stop the others.
            logger.exception("table %s: hand %s cannot be read", table.pk, hand.pk)
            continue
        bots = set(Seat.objects.filter(table=table, is_bot=True).values_list("position", flat=True))
        waited_ms = (now - table.clock_started_at).total_seconds() * 1000
        due += [
            (table.pk, hand.pk, hand.players[i]["position"])
            for i in actors
            if hand.players[i]["position"] in bots
            and waited_ms >= thinking.think_ms(plugin, table, hand, state, i) + after_ms
        ]
    return due


def unsettled_hands(*, older_than_ms: int = 2000) -> list[int]:
    """Finished hands still waiting for their settlement task."""
    limit = clock.now() - timedelta(milliseconds=older_than_ms)
    return list(
        Hand.objects.filter(settled=False, ended_at__lte=limit).values_list("pk", flat=True)
    )
