"""Tournament services (issue 31): registration, the start when full, places
and prizes, cancellation; every chip through the ledger, exactly (the money
check after each test also checks every prize pool: tests/tables.py)."""

from __future__ import annotations

from typing import Any

import pytest

from games.plugins import PLUGINS
from kernel.errors import PermissionDenied
from tournaments import services
from tournaments.models import Entry, Tournament
from wallet.errors import InsufficientChips
from wallet.models import LedgerTransaction
from wallet.services import admin_adjust

from .helpers import balance, house, pool

pytestmark = pytest.mark.django_db


def sit_and_go(game="holdem", seats=6, buy_in=100, fee=10, **extra):
    return services.tournament_create(game=game, seats=seats, buy_in=buy_in, fee=fee, **extra)


def test_registering_pays_buy_in_and_fee_into_the_pool_and_unregistering_pays_them_back(
    make_user,
):
    lan = make_user()
    tournament = sit_and_go()
    before = balance(lan)

    entry = services.tournament_register(tournament_id=tournament.pk, user=lan)

    assert entry.status == Entry.Status.REGISTERED
    assert (balance(lan), pool(tournament)) == (before - 110, 110)

    services.tournament_unregister(tournament_id=tournament.pk, user=lan)

    assert (balance(lan), pool(tournament)) == (before, 0)
    entry.refresh_from_db()
    assert entry.status == Entry.Status.UNREGISTERED
    again = services.tournament_register(tournament_id=tournament.pk, user=lan)
    assert again.pk != entry.pk  # a new entry, its own ledger keys
    assert balance(lan) == before - 110


def test_refusals_before_the_start(make_user):
    lan, minh = make_user(), make_user()
    tournament = sit_and_go()
    services.tournament_register(tournament_id=tournament.pk, user=lan)

    with pytest.raises(services.AlreadyRegistered):
        services.tournament_register(tournament_id=tournament.pk, user=lan)
    with pytest.raises(services.NotRegistered):
        services.tournament_unregister(tournament_id=tournament.pk, user=minh)
    with pytest.raises(services.TournamentNotFound):
        services.tournament_register(tournament_id=tournament.pk + 1000, user=minh)
    with pytest.raises(services.NotPlaying):
        services.players_out(tournament_id=tournament.pk, user_ids=[lan.pk])
    assert pool(tournament) == 110


def test_a_player_without_the_chips_is_refused_and_nothing_is_kept(make_user):
    staff, poor = make_user(is_staff=True), make_user()
    admin_adjust(user=poor, amount=-(balance(poor) - 109), reason="test", staff_user=staff, key="k")
    tournament = sit_and_go()

    with pytest.raises(InsufficientChips) as refused:
        services.tournament_register(tournament_id=tournament.pk, user=poor)

    assert refused.value.params == {"needed": 110, "available": 109}
    assert not Entry.objects.filter(tournament=tournament).exists()
    assert (balance(poor), pool(tournament)) == (109, 0)


def test_banned_players_and_bots_do_not_register(make_user):
    banned, bot = make_user(), make_user()
    banned.is_active = False
    banned.save(update_fields=["is_active"])
    bot.is_bot = True
    bot.save(update_fields=["is_bot"])
    tournament = sit_and_go()

    with pytest.raises(services.AccountInactive):
        services.tournament_register(tournament_id=tournament.pk, user=banned)
    with pytest.raises(PermissionDenied):
        services.tournament_register(tournament_id=tournament.pk, user=bot)


def test_the_last_place_taken_starts_it_and_the_fees_go_to_the_house(make_user):
    players = [make_user() for _ in range(6)]
    tournament = sit_and_go()
    for player in players[:5]:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    house_before = house()

    last = services.tournament_register(tournament_id=tournament.pk, user=players[5])

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert tournament.started_at is not None
    assert last.status == Entry.Status.PLAYING
    assert set(tournament.entries.values_list("status", flat=True)) == {Entry.Status.PLAYING}
    assert (pool(tournament), house() - house_before) == (600, 60)
    with pytest.raises(services.TournamentStarted):
        services.tournament_register(tournament_id=tournament.pk, user=make_user())
    with pytest.raises(services.TournamentStarted):
        services.tournament_unregister(tournament_id=tournament.pk, user=players[0])


def full(game="holdem", seats=6, buy_in=100, fee=10, make_user=None):
    players = [make_user() for _ in range(seats)]
    tournament = sit_and_go(game, seats, buy_in, fee)
    for player in players:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    return tournament, players


def test_six_players_are_paid_65_and_35_once_by_the_ledger(make_user):
    tournament, players = full(make_user=make_user)
    before = {p.pk: balance(p) for p in players}
    for player in players[:4]:
        services.players_out(tournament_id=tournament.pk, user_ids=[player.pk])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING

    services.players_out(tournament_id=tournament.pk, user_ids=[players[4].pk])

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    places = dict(tournament.entries.values_list("player_id", "place"))
    assert [places[p.pk] for p in players] == [6, 5, 4, 3, 2, 1]
    gained = {p.pk: balance(p) - before[p.pk] for p in players}
    assert [gained[p.pk] for p in players] == [0, 0, 0, 0, 210, 390]
    assert pool(tournament) == 0
    assert LedgerTransaction.objects.filter(kind="tourney_prize").count() == 1
    with pytest.raises(services.TournamentOver):
        services.players_out(tournament_id=tournament.pk, user_ids=[players[5].pk])
    with pytest.raises(services.TournamentOver):
        services.tournament_cancel(tournament_id=tournament.pk, reason="late")


def test_heads_up_is_winner_takes_all_and_players_out_must_be_playing(make_user):
    tournament, (lan, minh) = full(seats=2, buy_in=501, fee=0, make_user=make_user)
    before = balance(minh)

    with pytest.raises(services.NotPlaying):
        services.players_out(tournament_id=tournament.pk, user_ids=[lan.pk, lan.pk])
    with pytest.raises(services.NotPlaying):
        services.players_out(tournament_id=tournament.pk, user_ids=[make_user().pk])
    services.players_out(tournament_id=tournament.pk, user_ids=[lan.pk])

    assert balance(minh) - before == 1002


def test_players_out_together_share_their_places(make_user):
    tournament, players = full(buy_in=1001, fee=0, make_user=make_user)  # pool 6006
    for player in players[:3]:
        services.players_out(tournament_id=tournament.pk, user_ids=[player.pk])
    before = {p.pk: balance(p) for p in players}

    # two out in one hand: second and third place, 35% (2102) and nothing, shared
    services.players_out(tournament_id=tournament.pk, user_ids=[players[4].pk, players[3].pk])

    entries = {e.player_id: e for e in tournament.entries.all()}
    assert [entries[p.pk].place for p in players] == [6, 5, 4, 2, 2, 1]
    assert [balance(p) - before[p.pk] for p in players[3:]] == [1051, 1051, 3904]
    assert sum(e.prize for e in entries.values()) == 6006


def test_a_shared_prize_that_does_not_divide_gives_the_odd_chip_to_the_first_given(make_user):
    tournament, players = full(game="tienlen", seats=4, buy_in=1001, fee=0, make_user=make_user)
    # pool 4004: 70 / 30 = 2802 (2802.8: the odd chip to first) and 1201
    services.players_out(tournament_id=tournament.pk, user_ids=[players[0].pk])
    before = {p.pk: balance(p) for p in players}

    services.players_out(tournament_id=tournament.pk, user_ids=[players[2].pk, players[1].pk])

    gained = [balance(p) - before[p.pk] for p in players]
    # second and third share 1201 + 0: 601 to the one given first, 600 to the other
    assert gained == [0, 600, 601, 2803]


def test_all_out_together_share_first_place(make_user):
    tournament, players = full(seats=2, buy_in=5, fee=1, make_user=make_user)
    before = {p.pk: balance(p) for p in players}

    services.players_out(tournament_id=tournament.pk, user_ids=[p.pk for p in players])

    assert [balance(p) - before[p.pk] for p in players] == [5, 5]
    assert set(tournament.entries.values_list("place", flat=True)) == {1}


def test_cancelling_before_the_start_refunds_every_entry_exactly(make_user):
    players = [make_user() for _ in range(3)]
    quitter = make_user()
    tournament = sit_and_go()
    before = {p.pk: balance(p) for p in [*players, quitter]}
    for player in [*players, quitter]:
        services.tournament_register(tournament_id=tournament.pk, user=player)
    services.tournament_unregister(tournament_id=tournament.pk, user=quitter)

    services.tournament_cancel(tournament_id=tournament.pk, reason="server move")

    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.cancel_reason == "server move"
    assert {p.pk: balance(p) for p in [*players, quitter]} == before
    assert pool(tournament) == 0
    statuses = dict(tournament.entries.values_list("player_id", "status"))
    assert statuses == {
        **{p.pk: Entry.Status.REFUNDED for p in players},
        quitter.pk: Entry.Status.UNREGISTERED,
    }
    with pytest.raises(services.TournamentOver):
        services.tournament_register(tournament_id=tournament.pk, user=make_user())
    with pytest.raises(services.TournamentOver):
        services.tournament_cancel(tournament_id=tournament.pk, reason="again")


def test_cancelling_a_running_one_refunds_the_fees_from_the_house(make_user):
    tournament, players = full(make_user=make_user)
    services.players_out(tournament_id=tournament.pk, user_ids=[players[0].pk])
    house_before = house()
    paid = {p.pk: balance(p) for p in players}

    services.tournament_cancel(tournament_id=tournament.pk, reason="a bug at the table")

    assert {p.pk: balance(p) - paid[p.pk] for p in players} == {p.pk: 110 for p in players}
    assert (pool(tournament), house_before - house()) == (0, 60)
    assert set(tournament.entries.values_list("place", flat=True)) == {None}


def test_a_cancelled_empty_one_posts_nothing():
    tournament = sit_and_go()

    services.tournament_cancel(tournament_id=tournament.pk, reason="nobody came")

    assert not LedgerTransaction.objects.filter(idempotency_key__startswith="tournament:").exists()


def test_what_may_be_created(make_user):
    games = dict(services.sit_and_go_games())
    game, sizes = next(iter(games.items()))
    made = services.tournament_create(game=game, seats=sizes[0], buy_in=10, by=make_user())

    assert set(games) == {p.game for p in PLUGINS.values() if p.tournament_seats}
    assert made.levels[0]["number"] == 1
    bad_ones: list[dict[str, Any]] = [
        {"game": "chess", "seats": 2, "buy_in": 10},
        {"game": game, "seats": 3, "buy_in": 10},
        {"game": game, "seats": sizes[0], "buy_in": 0},
        {"game": game, "seats": sizes[0], "buy_in": 10, "fee": 11},
        {"game": game, "seats": sizes[0], "buy_in": 10, "level_seconds": 1},
    ]
    for bad in bad_ones:
        with pytest.raises(services.BadTournament):
            services.tournament_create(**bad)


@pytest.mark.parametrize("plugin", [p for p in PLUGINS.values() if p.tournament_seats])
def test_each_game_keeps_a_monotone_schedule_of_its_own_levels(plugin):
    made = sit_and_go(plugin.game, plugin.tournament_seats[0])

    schedule = services.levels.loads(made.levels)

    assert made.level_kind == plugin.tournament_levels
    assert (schedule[0].big_blind > 0) == (plugin.tournament_levels == "blinds")
    assert schedule[0].stake == (20 if plugin.tournament_levels == "blinds" else 10)


def test_nobody_unregisters_from_a_cancelled_one(make_user):
    lan, minh = make_user(), make_user()
    tournament = sit_and_go()
    services.tournament_register(tournament_id=tournament.pk, user=lan)
    services.tournament_cancel(tournament_id=tournament.pk, reason="test")

    for user in (lan, minh):
        with pytest.raises(services.TournamentOver):
            services.tournament_unregister(tournament_id=tournament.pk, user=user)
