"""A scheduled tournament (issue 31 deliverable 2): registration before the
start, a start by beat at its time (again safe), several tables balanced,
broken and merged down to a final table as players go out, late registration
through its first levels, the pool paid once; too few players: cancelled and
refunded. The money check after each test checks every pool."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from games import clock
from games.models import Departure, Seat, Table
from tournaments import services, tasks
from tournaments import tables as tables_module
from tournaments.models import Entry, Tournament, TournamentTable

from .helpers import balance, pool

pytestmark = pytest.mark.django_db


def scheduled(game: str = "tienlen", **extra: Any) -> Tournament:
    return services.tournament_schedule(
        game=game, starts_at=clock.now() + timedelta(seconds=60), buy_in=100, fee=10,
        starting_chips=300, level_seconds=60, allow_bots=True, **extra,
    )  # fmt: skip


def open_tables(tournament: Tournament) -> list[int]:
    return list(
        TournamentTable.objects.filter(tournament=tournament)
        .exclude(table__status=Table.Status.CLOSED)
        .values_list("table_id", flat=True)
    )


def test_beat_starts_it_at_its_time_at_balanced_tables_once(tables, make_user, settings):
    settings.DAILY_TOURNAMENT_AT = ""
    tournament = scheduled()
    lan = make_user()
    services.tournament_register(tournament_id=tournament.pk, user=lan)
    assert services.tournament_add_bots(tournament_id=tournament.pk, count=13) == 13

    assert tasks.sit_and_gos()["started"] == 0  # not yet
    tables.clock.advance(seconds=61)
    assert tasks.sit_and_gos()["started"] == 1
    assert tasks.sit_and_gos()["started"] == 0  # (started once)

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    counts = [Seat.objects.filter(table_id=t).count() for t in open_tables(tournament)]
    assert sorted(counts) == [3, 3, 4, 4]  # 14 players, four to a table, balanced
    assert all(s.stack == 300 for s in Seat.objects.filter(table_id__in=open_tables(tournament)))


def play_out(tables, tournament: Tournament, limit: int = 6000) -> tuple[int, int]:
    """Bots play, people's clocks run out, the levels rise: to the end.
    Returns the most tables open at once and the most seats at one table."""
    most_tables = most_seats = 0
    for _ in range(limit):
        tables.drain()
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.RUNNING:
            return most_tables, most_seats
        live = open_tables(tournament)
        most_tables = max(most_tables, len(live))
        for table_id in live:
            most_seats = max(most_seats, Seat.objects.filter(table_id=table_id).count())
        tables.clock.advance(seconds=3)
        for table_id in live:
            tables.fire(table_id)
        services.seat_players(tournament.pk)  # (as beat does)
    raise AssertionError("the tournament did not end")


@pytest.mark.parametrize("game", [game for game, _sizes in services.sit_and_go_games()])
def test_a_scheduled_tournament_merges_its_tables_down_to_the_final_one_and_pays_once(
    tables, make_user, django_capture_on_commit_callbacks, game
):
    tournament = scheduled(game, late_levels=2)
    people = [make_user() for _ in range(2)]
    services.tournament_register(tournament_id=tournament.pk, user=people[0])
    services.tournament_add_bots(tournament_id=tournament.pk, count=8)
    tables.clock.advance(seconds=61)
    assert services.tournament_start(tournament_id=tournament.pk)
    size = tournament.table_size
    assert size is not None

    # late: the second person registers in the first level, and sits at once
    # (at the table with the fewest players; were every table full, they would
    # wait for a seat to free)
    before = balance(people[1])
    with django_capture_on_commit_callbacks(execute=True):
        late = services.tournament_register(tournament_id=tournament.pk, user=people[1])
    late.refresh_from_db()
    assert late.status == Entry.Status.PLAYING
    assert late.moving_chips is None
    assert balance(people[1]) == before - 110
    assert Seat.objects.get(user=people[1]).stack == 300

    most_tables, most_seats = play_out(tables, tournament)

    tournament.refresh_from_db()
    entries = list(Entry.objects.filter(tournament=tournament))
    assert tournament.status == Tournament.Status.FINISHED
    assert len(entries) == 10
    assert sorted(e.rank for e in entries if e.rank) == list(range(1, 11))
    assert sum(e.prize or 0 for e in entries) == 100 * 10
    assert pool(tournament) == 0
    assert open_tables(tournament) == []
    assert most_tables == -(-9 // size)  # (10 with the late entry: never more tables)
    assert most_seats <= size
    assert TournamentTable.objects.filter(tournament=tournament).count() == most_tables
    # every table but the final one broke up, its players moved on
    reasons = sorted(
        Table.objects.filter(tournament_table__tournament=tournament).values_list(
            "closed_reason", flat=True
        )
    )
    assert reasons == sorted(
        [str(tables_module.OVER)] + [str(tables_module.BROKEN)] * (most_tables - 1)
    )
    # players moved as the tables broke (a bot's seat leaves no departure: the people's do)
    moved = Departure.objects.filter(reason=Departure.Reason.MOVED).count()
    print(f"{game}: {most_tables} tables of {size}, people moved {moved}")


def test_late_registration_closes_after_its_levels_and_too_few_players_cancel(
    tables, make_user, settings
):
    settings.DAILY_TOURNAMENT_AT = ""
    tournament = scheduled(late_levels=1)
    lan, minh, an = make_user(), make_user(), make_user()
    services.tournament_register(tournament_id=tournament.pk, user=lan)
    services.tournament_register(tournament_id=tournament.pk, user=minh)
    tables.clock.advance(seconds=61)
    tasks.sit_and_gos()
    tables.clock.advance(seconds=61)  # level 2
    with pytest.raises(services.TournamentStarted):
        services.tournament_register(tournament_id=tournament.pk, user=an)

    lonely = scheduled()
    services.tournament_register(tournament_id=lonely.pk, user=an)
    before = balance(an)
    tables.clock.advance(seconds=61)
    assert services.tournament_start(tournament_id=lonely.pk)
    lonely.refresh_from_db()
    assert lonely.status == Tournament.Status.CANCELLED
    assert balance(an) == before + 110


def test_beat_schedules_the_daily_tournament_of_every_game_once(tables, settings):
    settings.DAILY_TOURNAMENT_AT = "20:00"
    settings.HOUSE_SIT_AND_GOS = []
    first = tasks.sit_and_gos()["scheduled"]
    assert first == len(services.sit_and_go_games())
    assert tasks.sit_and_gos()["scheduled"] == 0
    daily = Tournament.objects.filter(kind=Tournament.Kind.SCHEDULED)
    assert all(t.starts_at and t.starts_at > clock.now() for t in daily)
    starts = {t.starts_at for t in daily if t.starts_at is not None}
    assert len(starts) == 1  # (one time for every game: 20:00 in Hồ Chí Minh City)
    local = starts.pop().astimezone(ZoneInfo(settings.BONUS_TIME_ZONE))
    assert (local.hour, local.minute) == (20, 0)


def test_late_entries_with_every_table_full_get_a_table_of_their_own(
    tables, make_user, django_capture_on_commit_callbacks
):
    tournament = scheduled("tienlen", late_levels=2)
    services.tournament_register(tournament_id=tournament.pk, user=make_user())
    services.tournament_add_bots(tournament_id=tournament.pk, count=7)
    tables.clock.advance(seconds=61)
    services.tournament_start(tournament_id=tournament.pk)
    assert Seat.objects.filter(table_id__in=open_tables(tournament)).count() == 8
    assert len(open_tables(tournament)) == 2  # both full

    first, second = make_user(), make_user()
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_register(tournament_id=tournament.pk, user=first)
    assert Entry.objects.get(player=first).moving_chips == 300  # waits: no seat anywhere
    with django_capture_on_commit_callbacks(execute=True):
        services.tournament_register(tournament_id=tournament.pk, user=second)

    assert len(open_tables(tournament)) == 3
    mine = Seat.objects.get(user=first)
    assert mine.stack == 300
    assert Seat.objects.get(user=second).table_id == mine.table_id
    assert not Entry.objects.filter(moving_chips__isnull=False).exists()
