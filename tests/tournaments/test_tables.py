"""A tournament's table (issue 31): the Sit & Go's players seated with
tournament chips, the game's own rules and services, the stake rising with the
levels, players out at zero, the places and the pool paid once; bots filling
a Sit & Go that waited; nobody sitting down or leaving; an absent player played
for by the time-outs. The money check after each test checks every pool."""

from __future__ import annotations

from typing import Any

import pytest

from games import services as table_services
from games.models import Departure, Hand, Seat, Table
from tournaments import levels, services
from tournaments.errors import TournamentRunning, TournamentSeat
from tournaments.models import Entry, Tournament, TournamentTable

from ..registry import GAMES
from .helpers import balance, house, pool

pytestmark = pytest.mark.django_db

SNG_GAMES = [(game, seats) for game, sizes in services.sit_and_go_games() for seats in sizes]


def filled(make_user, game: str, seats: int, **extra) -> tuple[Tournament, Table, Any]:
    """A Sit & Go of ``game``, one person registered, the rest bots: started."""
    tournament = services.tournament_create(
        game=game, seats=seats, buy_in=100, fee=10, allow_bots=True, bots_after_seconds=0,
        starting_chips=300, level_seconds=60, **extra,
    )  # fmt: skip
    lan = make_user()
    services.tournament_register(tournament_id=tournament.pk, user=lan)
    assert services.tournament_fill_with_bots(tournament_id=tournament.pk) == seats - 1
    tournament.refresh_from_db()
    table = TournamentTable.objects.get(tournament=tournament).table
    return tournament, table, lan


def play_out(tables, tournament: Tournament, table: Table, limit: int = 3000) -> int:
    """Bots play, the person's clock runs out each turn (played for), the
    levels rise with the time: until the tournament is over. Returns the hands."""
    for _ in range(limit):
        tables.drain()
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.RUNNING:
            break
        tables.clock.advance(seconds=5)
        tables.fire(table)
    else:
        raise AssertionError("the tournament did not end")
    return Hand.objects.filter(table=table).count()


@pytest.mark.parametrize(("game", "seats"), SNG_GAMES)
def test_a_whole_sit_and_go_with_bots_pays_the_pool_once(tables, make_user, game, seats):
    before_house = house()
    tournament, table, lan = filled(make_user, game, seats)
    assert tournament.status == Tournament.Status.RUNNING
    placed = list(Seat.objects.filter(table=table).order_by("position"))
    assert len(placed) == seats
    assert all(s.stack == 300 for s in placed)
    assert sum(s.is_bot for s in placed) == seats - 1
    assert Entry.objects.filter(tournament=tournament, is_bot=True).count() == seats - 1
    lan_before = balance(lan)

    hands = play_out(tables, tournament, table)

    tournament.refresh_from_db()
    table.refresh_from_db()
    entries = list(Entry.objects.filter(tournament=tournament).order_by("place", "rank"))
    assert tournament.status == Tournament.Status.FINISHED
    assert table.status == Table.Status.CLOSED
    assert not Seat.objects.filter(table=table).exists()
    assert next(e.place for e in entries) == 1
    assert all(e.status == Entry.Status.FINISHED for e in entries)
    assert sum(e.prize or 0 for e in entries) == 100 * seats  # every prize paid once
    assert pool(tournament) == 0
    mine = next(e for e in entries if e.player_id == lan.pk)
    assert balance(lan) == lan_before + (mine.prize or 0)
    # The bots' prizes went back to the house that lent them their entries;
    # the house keeps the fees (each bot's fee was its own loan: repaid as lost).
    bots_won = sum(e.prize or 0 for e in entries if e.is_bot)
    lent = (seats - 1) * 110
    assert house() == before_house - lent + 10 * seats + bots_won
    # the stake rose with the levels: the last deal's was a later level's
    schedule = levels.loads(tournament.levels)
    level = levels.Level(**table.carry["level"])
    assert level in schedule
    assert level.number > 1
    assert table.stake == level.stake > schedule[0].stake
    if level.big_blind:  # (Hold'em: the level's blinds and ante, dealt by the engine)
        last = Hand.objects.filter(table=table).latest("number")
        assert (last.setup["blinds"], last.setup["ante"]) == (
            [level.small_blind, level.big_blind],
            level.ante,
        )
    print(f"{game}/{seats}: {hands} hands, level {level.number}, stake {table.stake}")
    # the person was told why their seat went: out, or the table closed on their win
    gone = Departure.objects.get(table=table, user=lan).reason
    assert gone == (Departure.Reason.CLOSED if mine.place == 1 else Departure.Reason.OUT)


def test_nobody_sits_down_or_leaves_and_a_running_table_does_not_close(tables, make_user):
    game, seats = SNG_GAMES[0]
    _tournament, table, lan = filled(make_user, game, seats)
    minh = make_user()
    with pytest.raises(TournamentSeat):
        table_services.table_sit(table_id=table.pk, user=minh)
    with pytest.raises(TournamentSeat):
        table_services.table_leave(table_id=table.pk, user=lan)
    with pytest.raises(TournamentRunning):
        table_services.table_close(table_id=table.pk, by=None, reason="tidy")
    assert Seat.objects.filter(table=table).count() == seats
    table.refresh_from_db()
    assert table.status != Table.Status.CLOSED


def test_cancelling_a_running_sit_and_go_refunds_every_entry_and_closes_its_table(
    tables, make_user, django_capture_on_commit_callbacks
):
    game, seats = SNG_GAMES[0]
    tournament, table, lan = filled(make_user, game, seats)
    lan_before, house_before = balance(lan), house()
    tables.drain()

    with django_capture_on_commit_callbacks(execute=True):  # (its tables close after it)
        services.tournament_cancel(tournament_id=tournament.pk, reason="test")

    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert balance(lan) == lan_before + 110
    # the house pays back the fees and gets back what it lent the bots
    assert house() == house_before - 10 * seats + 110 * (seats - 1)


def test_the_tournament_table_is_not_in_the_lobby_but_its_players_see_it(tables, make_user):
    from games.selectors import lobby_tables

    game, seats = SNG_GAMES[0]
    _tournament, table, lan = filled(make_user, game, seats)
    assert table.pk not in {t["id"] for t in lobby_tables(user=make_user())}
    assert table.pk in {t["id"] for t in lobby_tables(user=lan)}


def test_bots_wait_for_a_person_and_for_their_time(tables, make_user):
    tournament = services.tournament_create(
        game=GAMES[0], seats=dict(services.sit_and_go_games())[GAMES[0]][0], buy_in=50,
        allow_bots=True, bots_after_seconds=120,
    )  # fmt: skip
    assert services.tournament_fill_with_bots(tournament_id=tournament.pk) == 0  # nobody yet
    services.tournament_register(tournament_id=tournament.pk, user=make_user())
    assert services.tournament_fill_with_bots(tournament_id=tournament.pk) == 0  # too soon
    tables.clock.advance(seconds=121)
    assert services.tournament_fill_with_bots(tournament_id=tournament.pk) > 0
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING


def test_beat_opens_the_house_sit_and_gos_once_and_fills_those_due_with_bots(
    tables, make_user, settings
):
    from tournaments import tasks

    settings.HOUSE_SIT_AND_GOS = ["100"]
    settings.HOUSE_SIT_AND_GO_BOTS_AFTER_S = 60
    settings.DAILY_TOURNAMENT_AT = ""
    quiet = {"started": 0, "seated": 0, "scheduled": 0}
    sizes = [(game, seats) for game, seats in SNG_GAMES]

    assert tasks.sit_and_gos() == {"filled": 0, "opened": len(sizes), **quiet}
    assert tasks.sit_and_gos() == {"filled": 0, "opened": 0, **quiet}  # (one of each stays open)
    house_ones = Tournament.objects.filter(created_by=None, status="registering")
    assert sorted(house_ones.values_list("game", "seats")) == sorted(sizes)
    assert all(t.fee == 10 and t.allow_bots for t in house_ones)

    first = house_ones.order_by("pk").first()
    assert first is not None
    services.tournament_register(tournament_id=first.pk, user=make_user())
    tables.clock.advance(seconds=61)
    assert services.bots_due() == [first.pk]
    # filled, and its place taken again
    assert tasks.sit_and_gos() == {"filled": 1, "opened": 1, **quiet}
    first.refresh_from_db()
    assert first.status == Tournament.Status.RUNNING
