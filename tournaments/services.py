"""The only code that changes a tournament, one transaction per call.

Money (docs/wallet.md, the ledger's one write path ``wallet.services.ledger_post``):

* **register**: the buy-in and the entry fee, from the player's wallet to the
  tournament's prize pool (one transaction, ``tournament:<id>:entry:<entry>``);
* **unregister** (before the start): both back, exactly (``...:refund``);
* **start** (when the last place is taken): the fees, from the pool to the
  house (``tournament:<id>:fees``). They wait in the pool until then so that an
  unregistration or a cancellation before the start is paid back from the
  pool alone, never from the house's chips;
* **the end**: the pool (the buy-ins, exactly ``buy_in`` x entrants) paid by
  place (``tournaments.payouts``), once (``tournament:<id>:prizes``);
* **cancel** (a moderator's): every entry gets its buy-in and fee back, the
  buy-ins from the pool and, after the start, the fees from the house, in one
  transaction (``tournament:<id>:cancel``).

So the pool's balance is always Σ (buy-in + fee) of the entries while it
registers, ``buy_in`` x entrants while it runs, and 0 once it is over
(``tests/tables.py`` checks it after every money-checked test).

Lock order (docs/architecture.md "Lock order"): the acting player's user row
(``FOR NO KEY UPDATE``), then the tournament's row, then the wallet accounts
(``ledger_post``: in primary-key order).
"""

from __future__ import annotations

import functools
import logging
import secrets
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts.bots import bot_name
from accounts.models import User
from games import clock
from games import services as table_services
from games.errors import AccountInactive, NoBotAvailable
from games.models import Seat, Table
from games.plugins import PLUGINS, plugin_for
from kernel.errors import PermissionDenied
from kernel.ops.isolation import put_off_while_the_database_is_away
from kernel.retry import retried
from wallet import services as wallet
from wallet.models import Account, LedgerTransaction

from . import levels, payouts, tables
from .errors import (
    AlreadyRegistered,
    BadTournament,
    NotPlaying,
    NotRegistered,
    TooManyTournaments,
    TournamentFull,
    TournamentNotFound,
    TournamentOver,
    TournamentStarted,
)
from .models import Entry, Tournament, TournamentTable
from .results import (
    _accounts,
    _bots_repaid,
    _entry_key,
    _lock,
    _pool,
    announce,
    finishing_groups,
    players_out,
)

logger = logging.getLogger(__name__)

__all__ = [
    "AlreadyRegistered",
    "BadTournament",
    "NotPlaying",
    "NotRegistered",
    "TournamentFull",
    "TournamentNotFound",
    "TournamentOver",
    "TournamentStarted",
    "bots_due",
    "daily_tournaments",
    "finishing_groups",
    "house_sit_and_gos",
    "late_registration_open",
    "level_in_play",
    "moving_in",
    "picture",
    "players_out",
    "prizes_by_place",
    "seat_players",
    "start_due",
    "tournament_add_bots",
    "tournament_cancel",
    "tournament_create",
    "tournament_create_and_register",
    "tournament_fill_with_bots",
    "tournament_register",
    "tournament_schedule",
    "tournament_start",
    "tournament_unregister",
]

Kind = LedgerTransaction.Kind
Status = Tournament.Status
#: Entries that hold a place (paid in, not unregistered).
IN = (Entry.Status.REGISTERED, Entry.Status.PLAYING, Entry.Status.FINISHED)
#: The numbers a tournament may have (the API's and the admin's ranges).
BUY_IN_MAX = 10**9
STARTING_CHIPS = (100, 10**7)
LEVEL_SECONDS = (30, 3600)
LEVEL_COUNT = 30
MAX_ENTRANTS = 10_000
#: Why a scheduled tournament with fewer than two players at its start is cancelled.
TOO_FEW = _("Fewer than two players had registered at its start.")
#: Tiến Lên and Mậu Binh: the first stake is about this share of the starting chips.
STAKES_IN_STARTING_CHIPS = 150


def sit_and_go_games() -> list[tuple[str, tuple[int, ...]]]:
    """(game, table sizes) of every game with Sit & Gos, in the lobby's order."""
    return [(p.game, tuple(p.tournament_seats)) for p in PLUGINS.values() if p.tournament_seats]


def schedule_for(
    game: str, *, starting_chips: int, level_seconds: int, count: int = LEVEL_COUNT
) -> tuple[str, tuple[levels.Level, ...]]:
    """The game's level kind and the schedule a new tournament of it keeps."""
    kind = next((k for k in levels.KINDS if k == plugin_for(game).tournament_levels), None)
    if kind is None:
        raise BadTournament(why=f"levels {plugin_for(game).tournament_levels}")
    return kind, levels.schedule(
        kind,
        starting_chips=starting_chips,
        seconds=level_seconds,
        count=count,
        first_stake=max(1, starting_chips // STAKES_IN_STARTING_CHIPS),
    )


def _require_range(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadTournament(why=f"{name} {low}-{high}")
    return value


@retried
def tournament_create(
    *,
    game: str,
    seats: int,
    buy_in: int,
    fee: int = 0,
    by: User | None = None,
    allow_bots: bool = False,
    bots_after_seconds: int = 300,
    starting_chips: int = 1500,
    level_seconds: int = 300,
) -> Tournament:
    """A Sit & Go open for registration (``by``: its creator; None: the house's).
    Refused (``bad_tournament``) for a game without Sit & Gos, a table size the
    game does not offer, or a number out of range."""
    sizes = _game_sizes(game)
    if seats not in sizes:
        raise BadTournament(why=f"seats {seats}")
    _require_range("bots_after_seconds", bots_after_seconds, 0, 24 * 3600)
    return _open(
        game=game, buy_in=buy_in, fee=fee, starting_chips=starting_chips,
        level_seconds=level_seconds, seats=seats, created_by=by, allow_bots=allow_bots,
        bots_after_seconds=bots_after_seconds,
    )  # fmt: skip


def _game_sizes(game: str) -> tuple[int, ...]:
    """The table sizes of a game with tournaments (``bad_tournament`` for another)."""
    sizes = dict(sit_and_go_games()).get(game)
    if sizes is None:
        raise BadTournament(why=game)
    return sizes


def _open(
    *, game: str, buy_in: int, fee: int, starting_chips: int, level_seconds: int, **fields: Any
) -> Tournament:
    """A tournament open for registration, its numbers checked (``bad_tournament``),
    its level schedule fixed, its prize pool's account made, the lobby told."""
    _require_range("buy_in", buy_in, 1, BUY_IN_MAX)
    _require_range("fee", fee, 0, buy_in)
    _require_range("starting_chips", starting_chips, *STARTING_CHIPS)
    _require_range("level_seconds", level_seconds, *LEVEL_SECONDS)
    kind, schedule = schedule_for(game, starting_chips=starting_chips, level_seconds=level_seconds)
    tournament = Tournament.objects.create(
        game=game,
        buy_in=buy_in,
        fee=fee,
        starting_chips=starting_chips,
        level_kind=kind,
        levels=levels.dumps(schedule),
        created_at=clock.now(),
        **fields,
    )
    wallet.prize_pool_account(key=tournament.pool_key)
    announce(tournament)
    return tournament


def _lock_player(user: User) -> None:
    """The player's row first (NO KEY: see games.services.seats._require_active);
    a banned account may not register."""
    if not User.objects.select_for_update(no_key=True).filter(pk=user.pk, is_active=True).exists():
        raise AccountInactive()


@retried
def tournament_register(*, tournament_id: int, user: User) -> Entry:
    """Take a place: the buy-in and the fee go from the wallet to the pool
    (``insufficient_chips`` when the wallet has not got them). The last place
    taken starts the Sit & Go."""
    if user.is_bot:
        raise PermissionDenied()  # (bots are seated by the fill, never register)
    _lock_player(user)
    tournament = _lock(tournament_id)
    if late_registration_open(tournament):
        return _register_late(tournament, user)
    _require_registering(tournament)
    taken = Entry.objects.filter(tournament=tournament, status__in=IN)
    if taken.filter(player=user).exists():
        raise AlreadyRegistered()
    count = taken.count()
    if count >= tournament.seats:
        raise TournamentFull()
    entry = Entry.objects.create(tournament=tournament, player=user)
    paid = tournament.buy_in + tournament.fee
    wallet.ledger_post(
        key=_entry_key(entry),
        kind=Kind.TOURNAMENT_ENTRY,
        postings=[(wallet.account_for_user(user=user), -paid), (_pool(tournament), paid)],
        reason=f"tournament {tournament.pk}",
    )
    if count + 1 == tournament.seats and tournament.kind == Tournament.Kind.SIT_AND_GO:
        _start(tournament)
        entry.refresh_from_db()
    announce(tournament)
    return entry


def late_registration_open(tournament: Tournament) -> bool:
    """A scheduled tournament that started takes late entries through its
    first ``late_levels`` levels."""
    if tournament.kind != Tournament.Kind.SCHEDULED or tournament.status != Status.RUNNING:
        return False
    now = level_in_play(tournament)
    return now is not None and now[0].number <= tournament.late_levels


def _register_late(tournament: Tournament, user: User) -> Entry:
    """An entry after the start: the buy-in to the pool and the fee to the
    house at once, the player playing with the starting chips, seated at the
    table with the fewest players once this commits (``tables.seat_moving``)."""
    taken = Entry.objects.filter(tournament=tournament, status__in=IN)
    if taken.filter(player=user).exists():
        raise AlreadyRegistered()
    if taken.count() >= tournament.seats:
        raise TournamentFull()
    entry = Entry.objects.create(
        tournament=tournament,
        player=user,
        status=Entry.Status.PLAYING,
        moving_chips=tournament.starting_chips,
    )
    postings: list[tuple[Account | int, int]] = [
        (wallet.account_for_user(user=user), -(tournament.buy_in + tournament.fee)),
        (_pool(tournament), tournament.buy_in),
    ]
    if tournament.fee:
        postings.append((wallet.house_account(), tournament.fee))
    wallet.ledger_post(
        key=_entry_key(entry),
        kind=Kind.TOURNAMENT_ENTRY,
        postings=postings,
        reason=f"tournament {tournament.pk}: late entry",
    )
    transaction.on_commit(functools.partial(_seat_after_entry, tournament.pk), robust=True)
    announce(tournament)
    return entry


def moving_in() -> list[int]:
    """The running tournaments with players between tables."""
    return list(
        Entry.objects.filter(tournament__status=Status.RUNNING, moving_chips__isnull=False)
        .values_list("tournament_id", flat=True)
        .distinct()
    )


@put_off_while_the_database_is_away(0, logger=logger)
def _seat_after_entry(tournament_id: int) -> int:
    """A late entrant seated once the entry has committed. With the database
    away at that moment (a restart, a fail-over) it is a warning, not an
    error: beat seats whoever is between tables seconds later
    (``tournaments.tasks.sit_and_gos``: ``moving_in``)."""
    return seat_players(tournament_id)


@retried
def seat_players(tournament_id: int) -> int:
    """Seat the players of a running tournament who are between tables
    (``tables.seat_moving``): after a late entry, and from beat."""
    tournament = Tournament.objects.filter(pk=tournament_id, status=Status.RUNNING).first()
    return 0 if tournament is None else tables.seat_moving(tournament)


def tournament_schedule(
    *,
    game: str,
    starts_at: datetime,
    buy_in: int,
    fee: int = 0,
    max_entrants: int = 1000,
    late_levels: int = 3,
    starting_chips: int = 3000,
    level_seconds: int = 300,
    allow_bots: bool = False,
) -> Tournament:
    """A scheduled tournament (the house's): registration open until
    ``starts_at`` and through its first ``late_levels`` levels after; it
    starts at ``starts_at`` (beat: ``start_due``) at as many tables of the
    game's largest tournament size as its players need, which are balanced,
    broken and merged as they thin out, down to a final table
    (``tournaments.tables.balance``)."""
    sizes = _game_sizes(game)
    if starts_at <= clock.now():
        raise BadTournament(why="starts_at")
    _require_range("max_entrants", max_entrants, 2, MAX_ENTRANTS)
    _require_range("late_levels", late_levels, 0, LEVEL_COUNT)
    return _open(
        game=game, buy_in=buy_in, fee=fee, starting_chips=starting_chips,
        level_seconds=level_seconds, kind=Tournament.Kind.SCHEDULED, seats=max_entrants,
        table_size=max(sizes), late_levels=late_levels, starts_at=starts_at,
        allow_bots=allow_bots,
    )  # fmt: skip


def start_due() -> list[int]:
    """The scheduled tournaments whose start has come (``tournament_start``)."""
    return list(
        Tournament.objects.filter(
            kind=Tournament.Kind.SCHEDULED, status=Status.REGISTERING, starts_at__lte=clock.now()
        ).values_list("pk", flat=True)
    )


@retried
def tournament_start(*, tournament_id: int) -> bool:
    """Start a scheduled tournament whose time has come: its tables open; with
    fewer than two players it is cancelled instead (every entry refunded).
    Safe to run again (beat runs it until it has started): False when there
    is nothing to do."""
    tournament = _lock(tournament_id)
    if tournament.status != Status.REGISTERING or tournament.starts_at is None:
        return False
    if tournament.starts_at > clock.now():
        return False
    if Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED).count() < 2:
        with translation.override(settings.LANGUAGE_CODE):
            reason = str(TOO_FEW)
        tournament_cancel(tournament_id=tournament.pk, reason=reason)
        return True
    _start(tournament)
    return True


def daily_tournaments() -> list[Tournament]:
    """The next daily tournament of every game with tournaments, at
    ``DAILY_TOURNAMENT_AT`` (local time, ``BONUS_TIME_ZONE``), scheduled when
    missing (empty setting: none)."""
    if not settings.DAILY_TOURNAMENT_AT:
        return []
    hour, minute = (int(x) for x in settings.DAILY_TOURNAMENT_AT.split(":"))
    zone = ZoneInfo(settings.BONUS_TIME_ZONE)
    now = clock.now()
    local = now.astimezone(zone)
    at = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if at <= local:
        at += timedelta(days=1)
    made = []
    for game, _sizes in sit_and_go_games():
        pending = Tournament.objects.filter(
            kind=Tournament.Kind.SCHEDULED, game=game, created_by=None,
            status__in=(Status.REGISTERING, Status.RUNNING), starts_at__gt=now - timedelta(days=1),
        )  # fmt: skip
        if pending.exists():
            continue
        buy_in = settings.DAILY_TOURNAMENT_BUY_IN
        made.append(
            tournament_schedule(
                game=game,
                starts_at=at,
                buy_in=buy_in,
                fee=buy_in * settings.HOUSE_SIT_AND_GO_FEE_PERCENT // 100,
                level_seconds=settings.DAILY_TOURNAMENT_LEVEL_S,
            )
        )
    return made


def _require_registering(tournament: Tournament) -> None:
    if tournament.status == Status.RUNNING:
        raise TournamentStarted()
    if tournament.status != Status.REGISTERING:
        raise TournamentOver()


@retried
def tournament_unregister(*, tournament_id: int, user: User) -> Entry:
    """Give the place back before the start: the buy-in and the fee, exactly."""
    _lock_player(user)
    tournament = _lock(tournament_id)
    _require_registering(tournament)  # (over or started first: nobody can leave then)
    entry = Entry.objects.filter(tournament=tournament, player=user, status__in=IN).first()
    if entry is None:
        raise NotRegistered()
    paid = tournament.buy_in + tournament.fee
    wallet.ledger_post(
        key=f"{_entry_key(entry)}:refund",
        kind=Kind.TOURNAMENT_REFUND,
        postings=[(_pool(tournament), -paid), (wallet.account_for_user(user=user), paid)],
        reason=f"tournament {tournament.pk}: unregistered",
    )
    entry.status = Entry.Status.UNREGISTERED
    entry.save(update_fields=["status"])
    announce(tournament)
    return entry


@retried
def tournament_fill_with_bots(*, tournament_id: int) -> int:
    """Bots take the empty places of a Sit & Go whose creator allows it
    (``allow_bots``), once it has waited ``bots_after_seconds`` since it opened
    with at least one person registered (bots wait for a person). The house
    lends each bot its buy-in and fee, and the bot pays in as a player does
    (its entry marked ``is_bot``); the last place taken starts it. A bot's
    prize goes back to the house when the tournament ends (``_pay``). Returns
    the bots added (0: not due, or no bot free: ``no_bot_available``)."""
    tournament = _lock(tournament_id)
    if tournament.status != Status.REGISTERING or not tournament.allow_bots:
        return 0
    if tournament.kind != Tournament.Kind.SIT_AND_GO:
        return 0
    if clock.now() < tournament.created_at + timedelta(seconds=tournament.bots_after_seconds):
        return 0
    taken = Entry.objects.filter(tournament=tournament, status__in=IN).count()
    if taken == 0 or taken >= tournament.seats:
        return 0
    added = _add_bots(tournament, tournament.seats - taken)
    _start(tournament)
    return added


@retried
def tournament_add_bots(*, tournament_id: int, count: int) -> int:
    """Bots take ``count`` places of a tournament that allows them and still
    registers (staff's, or a benchmark's: a scheduled tournament's field),
    each lent its buy-in and fee by the house as in a Sit & Go's fill;
    never its last place (a Sit & Go starts by its fill). Returns the bots
    added."""
    tournament = _lock(tournament_id)
    if tournament.status != Status.REGISTERING or not tournament.allow_bots:
        raise (
            TournamentStarted()
            if tournament.status == Status.RUNNING
            else BadTournament(why="allow_bots")
        )
    taken = Entry.objects.filter(tournament=tournament, status__in=IN).count()
    _require_range("count", count, 1, tournament.seats - taken - 1)
    added = _add_bots(tournament, count)
    announce(tournament)
    return added


def _add_bots(tournament: Tournament, count: int) -> int:
    paid = tournament.buy_in + tournament.fee
    added = 0
    for _place in range(count):
        bot = _free_bot()
        entry = Entry.objects.create(tournament=tournament, player=bot, is_bot=True)
        wallet.bot_lend(
            bot=bot, amount=paid, key=f"{_entry_key(entry)}:loan",
            reason=f"tournament {tournament.pk}",
        )  # fmt: skip
        wallet.ledger_post(
            key=_entry_key(entry),
            kind=Kind.TOURNAMENT_ENTRY,
            postings=[(wallet.account_for_user(user=bot), -paid), (_pool(tournament), paid)],
            reason=f"tournament {tournament.pk}",
        )
        added += 1
    return added


def bots_due() -> list[int]:
    """The Sit & Gos bots may fill now (``tournament_fill_with_bots``, which
    checks again under the tournament's lock): registering, bots allowed,
    their wait over, someone registered."""
    now = clock.now()
    waiting = Tournament.objects.filter(
        status=Status.REGISTERING, kind=Tournament.Kind.SIT_AND_GO, allow_bots=True
    ).filter(entries__status=Entry.Status.REGISTERED)
    return sorted(
        {
            pk
            for pk, created, wait in waiting.values_list("pk", "created_at", "bots_after_seconds")
            if created + timedelta(seconds=wait) <= now
        }
    )


def house_sit_and_gos() -> list[Tournament]:
    """Open the house's Sit & Gos that are missing: one registering for every
    game, table size and buy-in of ``HOUSE_SIT_AND_GOS`` (its fee
    ``HOUSE_SIT_AND_GO_FEE_PERCENT`` of the buy-in; bots may fill it after
    ``HOUSE_SIT_AND_GO_BOTS_AFTER_S``, 0: never). Returns those opened."""
    buy_ins = [int(b) for b in settings.HOUSE_SIT_AND_GOS]
    open_now = set(
        Tournament.objects.filter(
            status=Status.REGISTERING, kind=Tournament.Kind.SIT_AND_GO, created_by=None
        ).values_list("game", "seats", "buy_in")
    )
    wait = settings.HOUSE_SIT_AND_GO_BOTS_AFTER_S
    opened = []
    for game, sizes in sit_and_go_games():
        for seats in sizes:
            for buy_in in buy_ins:
                if (game, seats, buy_in) in open_now:
                    continue
                opened.append(
                    tournament_create(
                        game=game,
                        seats=seats,
                        buy_in=buy_in,
                        fee=buy_in * settings.HOUSE_SIT_AND_GO_FEE_PERCENT // 100,
                        allow_bots=wait > 0,
                        bots_after_seconds=wait,
                        level_seconds=settings.HOUSE_SIT_AND_GO_LEVEL_S,
                    )
                )
    return opened


def _free_bot() -> User:
    """A pool bot seated nowhere and in no tournament that is on, or a new
    one while the pool has room (``BOT_POOL_SIZE``), else ``no_bot_available``."""
    busy_seats = Seat.objects.values("user")
    busy_entries = Entry.objects.filter(
        status__in=(Entry.Status.REGISTERED, Entry.Status.PLAYING)
    ).values("player")
    bot = (
        User.objects.filter(is_bot=True, is_active=True)
        .exclude(pk__in=busy_seats)
        .exclude(pk__in=busy_entries)
        .order_by("pk")
        .select_for_update(skip_locked=True)
        .first()
    )
    if bot is not None:
        return bot
    count = User.objects.filter(is_bot=True).count()
    if count >= settings.BOT_POOL_SIZE:
        raise NoBotAvailable()
    return wallet.bot_signup(
        username=f"bot-{count + 1}-{secrets.token_hex(3)}", display_name=bot_name(count)
    )


def _start(tournament: Tournament) -> None:
    """Every place is taken: the entries play, the fees go to the house, and
    its table opens with every entrant seated (``tournaments.tables``)."""
    entries = list(
        Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
        .select_related("player")
        .order_by("pk")
    )
    count = Entry.objects.filter(pk__in=[e.pk for e in entries]).update(status=Entry.Status.PLAYING)
    if tournament.fee > 0:
        fees = tournament.fee * count
        wallet.ledger_post(
            key=f"tournament:{tournament.pk}:fees",
            kind=Kind.TOURNAMENT_FEE,
            postings=[(_pool(tournament), -fees), (wallet.house_account(), fees)],
            reason=f"tournament {tournament.pk}: entry fees",
        )
    tournament.status = Status.RUNNING
    tournament.started_at = clock.now()
    tournament.save(update_fields=["status", "started_at"])
    tables.open_tables(tournament, entries)
    announce(tournament)


@retried
def tournament_cancel(*, tournament_id: int, reason: str) -> Tournament:
    """Call it off (moderation's audited ``tournament_cancel`` calls this):
    every entry gets its buy-in and fee back exactly, in one transaction,
    whether it had started or not. Finished or cancelled: ``tournament_over``."""
    tournament = _lock(tournament_id)
    if tournament.status not in (Status.REGISTERING, Status.RUNNING):
        raise TournamentOver()
    entries = list(Entry.objects.filter(tournament=tournament, status__in=IN).order_by("pk"))
    if entries:
        paid = tournament.buy_in + tournament.fee
        accounts = _accounts(entries)
        postings: list[tuple[Account | int, int]] = [
            (accounts[entry.player_id], paid) for entry in entries
        ]
        if tournament.status == Status.RUNNING and tournament.fee > 0:
            postings.append((_pool(tournament), -tournament.buy_in * len(entries)))
            postings.append((wallet.house_account(), -tournament.fee * len(entries)))
        else:
            postings.append((_pool(tournament), -paid * len(entries)))
        wallet.ledger_post(
            key=f"tournament:{tournament.pk}:cancel",
            kind=Kind.TOURNAMENT_REFUND,
            postings=postings,
            reason=f"tournament {tournament.pk} cancelled: {reason}",
        )
        _bots_repaid(tournament, entries)
    Entry.objects.filter(pk__in=[e.pk for e in entries]).update(
        status=Entry.Status.REFUNDED, place=None, rank=None
    )
    announce(tournament)
    tournament.status = Status.CANCELLED
    tournament.cancel_reason = reason
    tournament.ended_at = clock.now()
    tournament.save(update_fields=["status", "cancel_reason", "ended_at"])
    # Its tables close after this commits, each in its own transaction (a
    # table's lock comes before the tournament's: docs/architecture.md).
    open_tables = list(
        TournamentTable.objects.filter(tournament=tournament)
        .exclude(table__status=Table.Status.CLOSED)
        .values_list("table_id", flat=True)
    )
    if open_tables:
        for table_id in open_tables:
            transaction.on_commit(functools.partial(_close_table, table_id, reason), robust=True)
    return tournament


def _close_table(table_id: int, reason: str) -> None:
    """A cancelled tournament's table closes (a hand in play voided: no
    tournament chips matter any more, the entries are refunded)."""
    table_services.table_close(table_id=table_id, by=None, reason=reason)


def prizes_by_place(tournament: Tournament, entrants: int | None = None) -> list[int]:
    """The prizes by place, first place first: a Sit & Go's for its full
    field, a scheduled tournament's for its entrants so far (``entrants``:
    their count when the caller has it; at least two)."""
    if tournament.kind == Tournament.Kind.SIT_AND_GO:
        count = tournament.seats
    else:
        if entrants is None:
            entrants = Entry.objects.filter(tournament=tournament, status__in=IN).count()
        count = max(2, entrants)
    return list(payouts.prizes(tournament.buy_in * count, count))


def level_in_play(tournament: Tournament) -> tuple[levels.Level, float | None] | None:
    """The level a running tournament plays now and the seconds until the next
    one (None: the last level holds); None before the start and once over.
    (Its tables read the same at each deal: ``tables.level_now``.)"""
    if tournament.status != Status.RUNNING or tournament.started_at is None:
        return None
    return tables.level_now(tournament)


def picture(tournament: Tournament) -> dict[str, Any]:
    """What the audit log keeps of a tournament before and after an action."""
    return {
        "status": tournament.status,
        "pool": wallet.prize_pool_account(key=tournament.pool_key).balance,
        "entries": [
            {"player": e.player_id, "status": e.status, "place": e.place, "prize": e.prize}
            for e in Entry.objects.filter(tournament=tournament).order_by("pk")
        ],
    }


@retried
def tournament_create_and_register(
    *,
    by: User,
    game: str,
    seats: int,
    buy_in: int,
    allow_bots: bool = False,
    bots_after_seconds: int = 300,
    starting_chips: int = 1500,
    level_seconds: int = 300,
) -> Tournament:
    """A player's own Sit & Go (no fee: only the house's Sit & Gos carry one),
    with its creator registered in the same transaction (their wallet pays
    the buy-in: ``insufficient_chips`` refuses the whole of it). A player has
    at most one of theirs registering at a time (``too_many_tournaments``).
    Lock order: the player's row first (two creations of one player wait for
    each other), then the new tournament's."""
    if by.is_bot:
        raise PermissionDenied()
    _lock_player(by)
    waiting = Tournament.objects.filter(
        created_by=by, status=Status.REGISTERING, kind=Tournament.Kind.SIT_AND_GO
    )
    if waiting.exists():
        raise TooManyTournaments()
    tournament = tournament_create(
        game=game,
        seats=seats,
        buy_in=buy_in,
        fee=0,
        by=by,
        allow_bots=allow_bots,
        bots_after_seconds=bots_after_seconds,
        starting_chips=starting_chips,
        level_seconds=level_seconds,
    )
    tournament_register(tournament_id=tournament.pk, user=by)
    tournament.refresh_from_db()
    return tournament
