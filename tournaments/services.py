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

from collections.abc import Sequence
from typing import Any

from django.db.models import Max

from accounts.models import User
from games import clock
from games.errors import AccountInactive
from games.plugins import PLUGINS, plugin_for
from kernel.errors import PermissionDenied
from kernel.retry import retried
from wallet import selectors as wallet_selectors
from wallet import services as wallet
from wallet.models import Account, LedgerTransaction

from . import levels, payouts
from .errors import (
    AlreadyRegistered,
    BadTournament,
    NotPlaying,
    NotRegistered,
    TournamentFull,
    TournamentNotFound,
    TournamentOver,
    TournamentStarted,
)
from .models import Entry, Tournament

Kind = LedgerTransaction.Kind
Status = Tournament.Status
#: Entries that hold a place (paid in, not unregistered).
IN = (Entry.Status.REGISTERED, Entry.Status.PLAYING, Entry.Status.FINISHED)
#: The numbers a tournament may have (the API's and the admin's ranges).
BUY_IN_MAX = 10**9
STARTING_CHIPS = (100, 10**7)
LEVEL_SECONDS = (30, 3600)
LEVEL_COUNT = 30
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
    allowed = dict(sit_and_go_games())
    if game not in allowed:
        raise BadTournament(why=game)
    if seats not in allowed[game]:
        raise BadTournament(why=f"seats {seats}")
    _require_range("buy_in", buy_in, 1, BUY_IN_MAX)
    _require_range("fee", fee, 0, buy_in)
    _require_range("starting_chips", starting_chips, *STARTING_CHIPS)
    _require_range("level_seconds", level_seconds, *LEVEL_SECONDS)
    _require_range("bots_after_seconds", bots_after_seconds, 0, 24 * 3600)
    kind, schedule = schedule_for(game, starting_chips=starting_chips, level_seconds=level_seconds)
    tournament = Tournament.objects.create(
        game=game,
        seats=seats,
        buy_in=buy_in,
        fee=fee,
        created_by=by,
        allow_bots=allow_bots,
        bots_after_seconds=bots_after_seconds,
        starting_chips=starting_chips,
        level_kind=kind,
        levels=levels.dumps(schedule),
    )
    wallet.prize_pool_account(key=tournament.pool_key)
    return tournament


def _lock(tournament_id: int) -> Tournament:
    found = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if found is None:
        raise TournamentNotFound()
    return found


def _lock_player(user: User) -> None:
    """The player's row first (NO KEY: see games.services.seats._require_active);
    a banned account may not register."""
    if not User.objects.select_for_update(no_key=True).filter(pk=user.pk, is_active=True).exists():
        raise AccountInactive()


def _pool(tournament: Tournament) -> Account:
    return wallet.prize_pool_account(key=tournament.pool_key)


def _entry_key(entry: Entry) -> str:
    return f"tournament:{entry.tournament_id}:entry:{entry.pk}"


@retried
def tournament_register(*, tournament_id: int, user: User) -> Entry:
    """Take a place: the buy-in and the fee go from the wallet to the pool
    (``insufficient_chips`` when the wallet has not got them). The last place
    taken starts the Sit & Go."""
    if user.is_bot:
        raise PermissionDenied()  # (bots are seated by the fill, never register)
    _lock_player(user)
    tournament = _lock(tournament_id)
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
    if count + 1 == tournament.seats:
        _start(tournament)
        entry.refresh_from_db()
    return entry


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
    return entry


def _start(tournament: Tournament) -> None:
    """Every place is taken: the entries play, the fees go to the house.
    (Issue 31, next step: the tables are opened here, with tournament chips.)"""
    entries = Entry.objects.filter(tournament=tournament, status=Entry.Status.REGISTERED)
    count = entries.update(status=Entry.Status.PLAYING)
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


@retried
def players_out(*, tournament_id: int, user_ids: Sequence[int]) -> Tournament:
    """These players are at zero tournament chips, out together (one hand): they
    share the best place left for them (``tournaments.payouts``), in the order
    given for the odd chips of a shared prize (the caller's rule: more chips
    before the hand first, then the earlier registration). When one player is
    left they win, and the pool is paid (``tournament_pay``)."""
    tournament = _lock(tournament_id)
    if tournament.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentOver()
    if tournament.status != Status.RUNNING:
        raise NotPlaying()
    playing = {
        e.player_id: e
        for e in Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING)
    }
    if not user_ids or len(set(user_ids)) != len(user_ids) or not set(user_ids) <= set(playing):
        raise NotPlaying()
    place = len(playing) - len(user_ids) + 1
    ranked = Entry.objects.filter(tournament=tournament).aggregate(worst=Max("rank"))["worst"]
    # the order of going out (inside a shared place: the order given)
    rank = (ranked or 0) + 1
    for user_id in user_ids:
        entry = playing.pop(user_id)
        entry.status, entry.place, entry.rank = Entry.Status.FINISHED, place, rank
        entry.save(update_fields=["status", "place", "rank"])
        rank += 1
    if len(playing) == 1:
        (winner,) = playing.values()
        winner.status, winner.place, winner.rank = Entry.Status.FINISHED, 1, rank
        winner.save(update_fields=["status", "place", "rank"])
    if not playing or len(playing) == 1:
        _pay(tournament)
    return tournament


def finishing_groups(tournament: Tournament) -> list[list[Entry]]:
    """The finished entries by place, best first; inside a shared place in the
    order given when they went out (who gets a tie's odd chips first)."""
    groups: dict[int, list[Entry]] = {}
    finished = Entry.objects.filter(tournament=tournament, status=Entry.Status.FINISHED)
    for entry in finished.order_by("place", "rank"):
        groups.setdefault(entry.place or 0, []).append(entry)
    return [groups[place] for place in sorted(groups)]


def _accounts(entries: Sequence[Entry]) -> dict[int, int]:
    """The entrants' wallet accounts (each has one: they paid in from it), by
    player, in one statement."""
    return wallet_selectors.user_account_ids(e.player_id for e in entries)


def _pay(tournament: Tournament) -> None:
    """Pay the pool by place, once: ``buy_in`` x entrants, exactly."""
    groups = finishing_groups(tournament)
    entrants = sum(len(g) for g in groups)
    pool = tournament.buy_in * entrants
    won = payouts.split_tied(
        payouts.prizes(pool, entrants), [[e.pk for e in group] for group in groups]
    )
    entries = [entry for group in groups for entry in group]
    accounts = _accounts(entries)
    postings: list[tuple[Account | int, int]] = [(_pool(tournament), -pool)]
    for entry in entries:
        if won[entry.pk] > 0:
            postings.append((accounts[entry.player_id], won[entry.pk]))
        entry.prize = won[entry.pk]
    Entry.objects.bulk_update(entries, ["prize"])
    wallet.ledger_post(
        key=f"tournament:{tournament.pk}:prizes",
        kind=Kind.TOURNAMENT_PRIZE,
        postings=postings,
        reason=f"tournament {tournament.pk}: prizes",
    )
    tournament.status = Status.FINISHED
    tournament.ended_at = clock.now()
    tournament.save(update_fields=["status", "ended_at"])


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
    Entry.objects.filter(pk__in=[e.pk for e in entries]).update(
        status=Entry.Status.REFUNDED, place=None, rank=None
    )
    tournament.status = Status.CANCELLED
    tournament.cancel_reason = reason
    tournament.ended_at = clock.now()
    tournament.save(update_fields=["status", "cancel_reason", "ended_at"])
    return tournament


def level_in_play(tournament: Tournament) -> tuple[levels.Level, float | None] | None:
    """The level a running tournament plays now and the seconds until the next
    one (None: the last level holds); None before the start and once over.
    (The tables read it at each deal: the next step of issue 31.)"""
    if tournament.status != Status.RUNNING or tournament.started_at is None:
        return None
    elapsed = (clock.now() - tournament.started_at).total_seconds()
    schedule = levels.loads(tournament.levels)
    return levels.level_at(schedule, elapsed), levels.next_level_in(schedule, elapsed)


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
