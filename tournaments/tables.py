"""A tournament's tables: its players seated with tournament chips, played
with the game's own rules and services (``games``), the stake rising with the
levels, and the players who reach zero chips out (``services.players_out``).

The money model (``TournamentStacks``, registered as ``"tournament"`` when the
app is ready; ``Table.money``): the chips are the seats' own (``Seat.stack``),
never the wallet's and never the ledger's. A hand's payments, worked out by the
game's plugin as at any table (capped by what each player has), move them
between the seats; the prize pool, not these chips, is the money
(``tournaments.services``).

The seats are the tournament's (``holds_seats``): nobody sits down or leaves,
nobody is freed for being away or unready, and every seat with chips is dealt
in; a player who is away is played for by the rules' time-outs (fold, pass,
the auto-arrangement), the stakes and blinds still charged, and takes over at
once on coming back.

Lock order: the table's row (its unit of work), then the tournament's
(``players_out``), then the wallet accounts (the prizes).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import clock
from games import services as table_services
from games.errors import NotEnoughChips
from games.models import Departure, Hand, Seat, Table
from games.plugins.money import MoneyModel, Settled, Work, register
from games.rules.game import Outcome
from games.services.seats import free_seat
from games.services.work import TableWork

from . import levels
from .errors import TournamentRunning, TournamentSeat
from .models import Entry, Tournament, TournamentTable
from .results import players_out

MONEY = "tournament"
#: Why its table closed (kept in the site's language, as every closing reason).
OVER = _("The tournament is over.")
BROKEN = _("The table was broken up: its players moved to the tournament's other tables.")


def level_now(tournament: Tournament) -> tuple[levels.Level, float | None]:
    """The level the tournament plays now (the first before its start) and
    the seconds until the next one (None: the last level holds, or no start)."""
    schedule = levels.loads(tournament.levels)
    if tournament.started_at is None:
        return schedule[0], None
    elapsed = (clock.now() - tournament.started_at).total_seconds()
    return levels.level_at(schedule, elapsed), levels.next_level_in(schedule, elapsed)


def _tournament(table: Table) -> Tournament:
    return Tournament.objects.get(tables__table_id=table.pk)


class TournamentStacks(MoneyModel):
    chips_source = "seat"
    holds_seats = True
    listed = False

    def may_sit(self, work: Work, user: User) -> None:
        raise TournamentSeat()

    def sit(self, work: Work, user: User, position: int, buy_in: int | None) -> None:
        raise TournamentSeat()

    def may_leave(self, work: Work, seat: Seat) -> None:
        raise TournamentSeat()

    def ready(self, work: Work, seat: Seat) -> None:
        if not seat.stack:
            raise NotEnoughChips(needed=1)

    def short(self, work: Work, seat: Seat) -> bool:
        return not seat.stack

    def stacks(self, work: Work, positions: Sequence[int]) -> list[int]:
        stacks = {s.position: s.stack or 0 for s in work.seats}
        return [stacks[p] for p in positions]

    def bot_needs(self, table: Table) -> tuple[int, int | None]:
        raise TournamentSeat()  # (no bot fills a tournament's table: its entrants sit)

    def before_deal(self, work: Work) -> None:
        level, _next_in = level_now(_tournament(work.table))
        shown = level.as_dict()
        if work.table.stake != level.stake or work.table.carry.get("level") != shown:
            work.update_table(stake=level.stake, carry={**work.table.carry, "level": shown})

    def settle(self, work: Work, hand: Hand) -> Settled:
        seats = {s.position: s for s in work.seats}
        players = [seats[p["position"]] for p in hand.players]
        before = [s.stack or 0 for s in players]
        engine = work.plugin.engine
        outcome: Outcome = engine.outcome(engine.loads(hand.state))
        moves, net = work.plugin.transfers(work.table, outcome, before)
        after = list(before)
        for move in moves:
            after[move.payer] -= move.chips
            after[move.payee] += move.chips
        if any(a < 0 for a in after) or sum(after) != sum(before):
            raise AssertionError(f"hand {hand.pk}: tournament chips {before} -> {after}")
        changed = []
        for seat, chips, was in zip(players, after, before, strict=True):
            if chips != was:
                seat.stack = chips
                changed.append(seat)
        Seat.objects.bulk_update(changed, ["stack"])  # (one statement)
        work.chips_moved()
        # (before the hand, by player: who goes out first in a shared place)
        return Settled(net, {str(s.user_id): b for s, b in zip(players, before, strict=True)})

    def after_settle(self, work: Work, settled: Settled) -> None:
        out = [s for s in work.seats if not s.stack]
        table = work.table
        tournament = _tournament(table)
        if tournament.status != Tournament.Status.RUNNING:
            return  # (cancelled: its table is closing, nobody goes out)
        if not out:
            balance(_table_work(work), tournament)
            return
        order = dict(
            Entry.objects.filter(
                tournament=tournament, player_id__in=[s.user_id for s in out]
            ).values_list("player_id", "pk")
        )
        # More chips before the hand first, then the earlier registration.
        out.sort(key=lambda s: (-settled.after.get(str(s.user_id), 0), order.get(s.user_id, 0)))
        for seat in out:
            free_seat(_table_work(work), seat, Departure.Reason.OUT)
        tournament = players_out(tournament_id=tournament.pk, user_ids=[s.user_id for s in out])
        if tournament.status == Tournament.Status.FINISHED:
            close(_table_work(work), tournament)
        else:
            balance(_table_work(work), tournament)

    def free(self, work: Work, seat: Seat) -> None:
        """A tournament's chips leave with nobody: the seat frees at zero, or
        when the table closes once the tournament is over or cancelled. A
        seat with chips while it runs is refused (``tournament_running``:
        a moderator cancels the tournament, which closes its tables)."""
        if seat.stack and _tournament(work.table).status == Tournament.Status.RUNNING:
            raise TournamentRunning()


def _site_words(words: Any, **params: Any) -> str:
    """In the site's language (what is stored: a table's name, a closing's reason)."""
    with translation.override(settings.LANGUAGE_CODE):
        return str(words) % params if params else str(words)


def _table_work(work: Work) -> TableWork:
    assert isinstance(work, TableWork)
    return work


def close(work: TableWork, tournament: Tournament) -> None:
    """The tournament is over: the winner's seat freed, the table closed
    (inside the settling unit of work)."""
    for seat in list(work.seats):
        free_seat(work, seat, Departure.Reason.CLOSED)
    reason = _site_words(OVER) if tournament.status == Tournament.Status.FINISHED else ""
    work.update_table(status=Table.Status.CLOSED, closed_reason=reason[:200])
    work.clear_clock()


register(MONEY, TournamentStacks())


def open_tables(tournament: Tournament, entries: Sequence[Entry]) -> list[Table]:
    """The tournament's tables at its start: as few as hold its players
    (``table_size`` each; a Sit & Go: one), the players drawn
    (``secrets.SystemRandom``) and dealt round them so that no two tables
    differ by more than one; each seated with the starting chips, ready; the
    first hands deal as soon as the tables can (the seeds' wait first)."""
    size = tournament.table_size or tournament.seats
    count = max(1, math.ceil(len(entries) / size))
    order = list(entries)
    secrets.SystemRandom().shuffle(order)  # the seat draw
    groups = [order[i::count] for i in range(count)]
    return [_open_table(tournament, group, size) for group in groups]


def _open_table(tournament: Tournament, entries: Sequence[Entry], size: int) -> Table:
    level = levels.loads(tournament.levels)[0]
    number = TournamentTable.objects.filter(tournament=tournament).count() + 1
    name = _site_words(_("Tournament #%(id)s"), id=tournament.pk)
    if tournament.table_size:
        name = _site_words(
            _("Tournament #%(id)s, table %(number)s"), id=tournament.pk, number=number
        )
    table = table_services.table_create(
        owner=None,
        game=tournament.game,
        stake=level.stake,
        seat_count=size,
        name=name[:60],
        money=MONEY,
        turn_seconds=settings.TOURNAMENT_TURN_SECONDS,
        summary_seconds=settings.TOURNAMENT_SUMMARY_SECONDS,
    )
    TournamentTable.objects.create(tournament=tournament, table=table)
    players: list[tuple[Any, int]] = [
        (e.player, tournament.starting_chips if e.moving_chips is None else e.moving_chips)
        for e in entries
    ]
    table_services.table_seat_players(table_id=table.pk, players=players)
    return table


# -- moving players: the tables balanced, broken and merged ------------------------


def _seat_counts(tournament: Tournament) -> dict[int, int]:
    """The players seated at each of its open tables (one statement)."""
    counts = dict(
        TournamentTable.objects.filter(tournament=tournament)
        .exclude(table__status=Table.Status.CLOSED)
        .annotate(players=Count("table__seats"))
        .values_list("table_id", "players")
    )
    return {table_id: int(players) for table_id, players in counts.items()}


def balance(work: TableWork, tournament: Tournament) -> None:
    """After a hand at this table (locked, between hands): when the tournament
    has more tables than its players need (``table_size`` each), the table
    with the fewest players breaks (ties: the newest) and its players move;
    a table left with one player breaks too; else a table with two more
    players than the smallest gives one, drawn by lot. A player who moves
    keeps their chips (``Entry.moving_chips`` until seated) and is seated at
    the table with the fewest players, from its next hand
    (``seat_moving``). So the tables thin out evenly and merge, down to the
    final table. (Only this table's players move: each table moves its own,
    between its own hands.)"""
    counts = _seat_counts(tournament)
    here = work.table.pk
    if len(counts) <= 1 or here not in counts:
        return
    counts[here] = len(work.seats)
    size = tournament.table_size or tournament.seats
    moving = Entry.objects.filter(tournament=tournament, moving_chips__isnull=False).count()
    needed = math.ceil((sum(counts.values()) + moving) / size)
    smallest = min(counts, key=lambda t: (counts[t], -t))
    breaks = counts[here] < 2 or (len(counts) > needed and here == smallest)
    if breaks:
        movers = list(work.seats)
    elif counts[here] - min(counts.values()) >= 2:
        movers = [secrets.choice(work.seats)]
    else:
        return
    entries = {
        e.player_id: e
        for e in Entry.objects.filter(
            tournament=tournament, player_id__in=[s.user_id for s in movers]
        )
    }
    for seat in movers:
        entries[seat.user_id].moving_chips = seat.stack or 0
    Entry.objects.bulk_update(entries.values(), ["moving_chips"])
    for seat in movers:
        seat.stack = 0  # (its chips go with the entry: ``free`` has none to refuse)
        free_seat(work, seat, Departure.Reason.MOVED)
    work.chips_moved()
    if breaks:
        work.update_table(status=Table.Status.CLOSED, closed_reason=_site_words(BROKEN)[:200])
        work.clear_clock()
    seat_moving(tournament, away_from=here)


def seat_moving(tournament: Tournament, *, away_from: int | None = None) -> int:
    """Seat the players between tables (moved, or registered late), each at
    the open table with the fewest players that has a free seat (never
    ``away_from``, the table they left), from its next hand. An entry
    another process is seating is skipped (its row locked). When every table
    is full, two or more waiting players get a new table of their own; one
    alone waits for the next call (the beat task's, or the next hand's) and
    a seat to free. Returns the players seated."""
    seated = 0
    size = tournament.table_size or tournament.seats
    waiting = (
        Entry.objects.filter(tournament=tournament, moving_chips__isnull=False)
        .select_related("player")
        .order_by("pk")
        .select_for_update(skip_locked=True, of=("self",))
    )
    unseated = []
    counts = {t: n for t, n in _seat_counts(tournament).items() if t != away_from}
    for entry in waiting:
        free = [t for t, n in counts.items() if n < size]
        if not free:
            unseated.append(entry)
            continue
        target = min(free, key=lambda t: (counts[t], t))
        table_services.table_seat_player(
            table_id=target, user=entry.player, chips=entry.moving_chips or 0
        )
        counts[target] += 1
        entry.moving_chips = None
        entry.save(update_fields=["moving_chips"])
        seated += 1
    if len(unseated) >= 2:
        # Every table full (late entries): a new table for them; the balancing
        # after each hand evens it out with the others.
        for group in [unseated[i : i + size] for i in range(0, len(unseated), size)]:
            if len(group) < 2:
                break
            _open_table(tournament, group, size)
            Entry.objects.filter(pk__in=[e.pk for e in group]).update(moving_chips=None)
            seated += len(group)
    return seated
