"""The pure rules of tournaments (tournaments.levels, tournaments.payouts):
the pool is always paid exactly, prizes never rise with the place, every
level schedule is monotone."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments import levels, payouts

pools = st.integers(min_value=0, max_value=10**12)
fields = st.integers(min_value=2, max_value=200)


@given(pools, fields)
def test_the_pool_is_paid_exactly_and_never_rises_with_the_place(pool, entrants):
    prizes = payouts.prizes(pool, entrants)

    assert sum(prizes) == pool
    assert list(prizes) == sorted(prizes, reverse=True)
    assert all(prize >= 0 for prize in prizes)
    assert len(prizes) < entrants  # somebody is not paid (heads-up: one of two)


@given(pools, fields)
def test_the_odd_chips_go_to_first_place(pool, entrants):
    prizes = payouts.prizes(pool, entrants)
    exact = [pool * p // 100 for p in payouts.percentages(entrants)]

    assert prizes[1:] == tuple(exact[1:])
    assert 0 <= prizes[0] - exact[0] < len(exact)


def test_the_documented_table():
    assert payouts.prizes(1000, 2) == (1000,)  # heads-up: winner takes all
    assert payouts.prizes(1000, 4) == (700, 300)
    assert payouts.prizes(6000, 6) == (3900, 2100)  # 65 / 35 for six
    assert payouts.prizes(601, 6) == (391, 210)  # 390.65 and 210.35: the odd chip to first
    assert payouts.prizes(999, 10) == (501, 299, 199)
    with pytest.raises(payouts.PayoutError):
        payouts.prizes(100, 1)
    with pytest.raises(payouts.PayoutError):
        payouts.prizes(-1, 4)


@st.composite
def finishes(draw):
    """A field, its pool and its finishing groups (players busted together)."""
    entrants = draw(fields)
    players = list(range(entrants))
    groups = []
    while players:
        size = draw(st.integers(min_value=1, max_value=len(players)))
        groups.append(players[:size])
        players = players[size:]
    return draw(pools), entrants, groups


@given(finishes())
def test_ties_share_their_places_and_the_pool_is_still_paid_exactly(finish):
    pool, entrants, groups = finish
    prizes = payouts.prizes(pool, entrants)

    won = payouts.split_tied(prizes, groups)
    places = payouts.place_of_groups(groups)

    assert sum(won.values()) == pool
    assert set(won) == set(range(entrants)) == set(places)
    best_first = [won[p] for group in groups for p in group]
    for group in groups:  # a tie splits to within one chip, the first listed first
        shares = [won[p] for p in group]
        assert max(shares) - min(shares) <= 1
        assert shares == sorted(shares, reverse=True)
    by_place = sorted(won, key=lambda p: places[p])
    assert [won[p] for p in by_place] == best_first
    # a group never wins more than the group before it, give or take the odd chip
    mins = [min(won[p] for p in g) for g in groups]
    maxs = [max(won[p] for p in g) for g in groups]
    assert all(maxs[i + 1] <= mins[i] + 1 for i in range(len(groups) - 1))


def test_a_tie_for_second_of_six_shares_second_and_third():
    prizes = payouts.prizes(6001, 6)  # (3901, 2100)

    won = payouts.split_tied(prizes, [[7], [8, 9], [1, 2, 3]])

    assert won == {7: 3901, 8: 1050, 9: 1050, 1: 0, 2: 0, 3: 0}
    assert payouts.split_tied((5,), [[1, 2]]) == {1: 3, 2: 2}
    with pytest.raises(payouts.PayoutError):
        payouts.split_tied(prizes, [[1], [1]])


counts = st.integers(min_value=1, max_value=40)
seconds = st.integers(min_value=1, max_value=3600)


def _monotone(schedule):
    levels.check(schedule)  # raises on any level lower than the one before
    for before, after in itertools.pairwise(schedule):
        assert after.stake > before.stake  # every level rises
        assert after.big_blind >= before.big_blind
        assert after.small_blind >= before.small_blind
        assert after.ante >= before.ante


@given(st.integers(min_value=1, max_value=10**7), seconds, counts)
def test_every_blinds_schedule_is_monotone(starting_chips, each, count):
    schedule = levels.blinds_schedule(starting_chips=starting_chips, seconds=each, count=count)

    assert len(schedule) == count
    _monotone(schedule)
    for level in schedule:
        assert level.stake == level.big_blind
        assert 1 <= level.small_blind <= level.big_blind
        assert (level.ante > 0) == (level.number >= levels.ANTES_FROM)


@given(st.integers(min_value=1, max_value=10**7), seconds, counts)
def test_every_stake_schedule_is_monotone(first, each, count):
    schedule = levels.stake_schedule(first_stake=first, seconds=each, count=count)

    _monotone(schedule)
    assert schedule[0].stake >= first
    assert all(level.big_blind == level.ante == 0 for level in schedule)


@given(st.sampled_from(levels.KINDS), seconds, counts, st.floats(0, 10**6), st.floats(0, 10**6))
def test_the_level_in_play_never_falls_with_time(kind, each, count, a, b):
    schedule = levels.schedule(kind, starting_chips=1500, seconds=each, count=count)
    early, late = sorted((a, b))

    assert levels.level_at(schedule, early).number <= levels.level_at(schedule, late).number
    assert levels.loads(levels.dumps(schedule)) == schedule


def test_levels_in_play_and_the_wait_for_the_next():
    schedule = levels.blinds_schedule(starting_chips=1500, seconds=300, count=5)

    assert [(lv.small_blind, lv.big_blind, lv.ante) for lv in schedule] == [
        (10, 20, 0),
        (15, 30, 0),
        (20, 40, 0),
        (30, 60, 6),
        (40, 80, 8),
    ]
    assert levels.level_at(schedule, 0).number == 1
    assert levels.level_at(schedule, 299.5).number == 1
    assert levels.level_at(schedule, 300).number == 2
    assert levels.level_at(schedule, 10**6).number == 5  # the last level holds
    assert levels.next_level_in(schedule, 290) == 10
    assert levels.next_level_in(schedule, 1300) is None
    assert [lv.stake for lv in levels.stake_schedule(first_stake=5, seconds=60, count=6)] == [
        6,
        8,
        10,
        15,
        20,
        30,
    ]


def test_a_broken_schedule_is_refused():
    good = levels.stake_schedule(first_stake=1, seconds=60, count=3)
    level_again = (good[0], levels.Level(2, 60, stake=good[0].stake), good[2])

    with pytest.raises(levels.ScheduleError):
        levels.check(())
    with pytest.raises(levels.ScheduleError):
        levels.check((levels.Level(1, 60, stake=10), levels.Level(2, 60, stake=5)))
    with pytest.raises(levels.ScheduleError):
        levels.check((levels.Level(1, 0, stake=10),))
    with pytest.raises(levels.ScheduleError):
        levels.check((levels.Level(2, 60, stake=10),))
    with pytest.raises(levels.ScheduleError):
        levels.check((levels.Level(1, 60, stake=10, small_blind=20, big_blind=10),))
    levels.check(level_again)  # equal is allowed: monotone, not strictly rising
    with pytest.raises(levels.ScheduleError):
        levels.schedule("chess", starting_chips=1, seconds=1, count=1)  # type: ignore[arg-type]
