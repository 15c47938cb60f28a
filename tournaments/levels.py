"""The levels of a tournament: what a hand costs, rising with time. Pure.

Two kinds, one schedule type:

* ``blinds`` (Hold'em): a small blind, a big blind and an ante per player;
* ``stake`` (Tiến Lên, Mậu Binh): the chips one unit of the game's scoring is
  worth (the table's stake).

Every level lasts ``seconds``; the last level holds for ever. A schedule is
built once, when the tournament is created, and kept with it (JSON): a later
change of these builders never changes a tournament already announced.

Each level's figures come from one ladder of "round" numbers (1, 2, 3, 4, 6,
8, 10, 15, 20, 30, 40, 60, 80, 100, 150, ...), so that they rise by a third to
a half per level and are easy to read on a table. Every schedule is monotone:
no figure of a level is below the one before (``check``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

LevelKind = Literal["blinds", "stake"]
KINDS: tuple[LevelKind, ...] = ("blinds", "stake")
#: The mantissas of the ladder, in tenths: 1, 1.5, 2, 3, 4, 6, 8 times a power of ten.
MANTISSAS = (10, 15, 20, 30, 40, 60, 80)
#: Antes start at this level (1-based) of a blinds schedule: a tenth of the big blind.
ANTES_FROM = 4
#: The first big blind of a blinds schedule: about this many big blinds in the starting stack.
STARTING_BIG_BLINDS = 75


class ScheduleError(ValueError):
    """A schedule that breaks a rule of this module (``check``)."""


@dataclass(frozen=True)
class Level:
    """One level. ``stake`` is the table's stake: for a blinds level the big
    blind's (the chips of one betting unit), else the chips per scoring unit."""

    number: int
    seconds: int
    stake: int
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def ladder(start: int) -> Iterator[int]:
    """The round numbers from the first one at least ``start`` (``start`` >= 1), rising."""
    if start < 1:
        raise ScheduleError("the ladder starts at 1")
    power = 1
    while True:
        for mantissa in MANTISSAS:
            tenths = mantissa * power
            if tenths % 10 == 0 and tenths // 10 >= start:
                yield tenths // 10
        power *= 10


def blinds_schedule(*, starting_chips: int, seconds: int, count: int) -> tuple[Level, ...]:
    """Hold'em: ``count`` levels of ``seconds`` each. The first big blind is
    the round number nearest above ``starting_chips / STARTING_BIG_BLINDS``;
    the small blind half the big one (rounded down, at least 1); from level
    ``ANTES_FROM`` on an ante of a tenth of the big blind (at least 1)."""
    _positive(starting_chips=starting_chips, seconds=seconds, count=count)
    bigs = ladder(max(2, starting_chips // STARTING_BIG_BLINDS))
    levels = []
    for number in range(1, count + 1):
        big = next(bigs)
        ante = max(1, big // 10) if number >= ANTES_FROM else 0
        small = max(1, big // 2)
        levels.append(Level(number, seconds, big, small_blind=small, big_blind=big, ante=ante))
    return tuple(levels)


def stake_schedule(*, first_stake: int, seconds: int, count: int) -> tuple[Level, ...]:
    """Tiến Lên and Mậu Binh: ``count`` levels of ``seconds`` each, the stake
    climbing the ladder from the first round number at least ``first_stake``."""
    _positive(first_stake=first_stake, seconds=seconds, count=count)
    stakes = ladder(first_stake)
    return tuple(Level(n, seconds, stake=next(stakes)) for n in range(1, count + 1))


def schedule(
    kind: LevelKind, *, starting_chips: int, seconds: int, count: int, first_stake: int = 1
) -> tuple[Level, ...]:
    """The schedule of a level kind (``first_stake``: only for ``stake``)."""
    if kind == "blinds":
        return blinds_schedule(starting_chips=starting_chips, seconds=seconds, count=count)
    if kind == "stake":
        return stake_schedule(first_stake=first_stake, seconds=seconds, count=count)
    raise ScheduleError(f"unknown level kind {kind!r}")


def level_at(levels: Sequence[Level], elapsed_seconds: float) -> Level:
    """The level in play ``elapsed_seconds`` after the start (the last one holds)."""
    if not levels:
        raise ScheduleError("a schedule has at least one level")
    left = max(0.0, elapsed_seconds)
    for level in levels:
        if left < level.seconds:
            return level
        left -= level.seconds
    return levels[-1]


def next_level_in(levels: Sequence[Level], elapsed_seconds: float) -> float | None:
    """Seconds until the next level starts (None: the last level is in play)."""
    end = 0.0
    for level in levels:
        end += level.seconds
        if max(0.0, elapsed_seconds) < end:
            return None if level is levels[-1] else end - max(0.0, elapsed_seconds)
    return None


def check(levels: Sequence[Level]) -> None:
    """Refuse a schedule that is empty, misnumbered, has a level of no time or
    no stake, a small blind over the big one, or any figure lower than the
    level before's (``ScheduleError``)."""
    if not levels:
        raise ScheduleError("a schedule has at least one level")
    before: Level | None = None
    for number, level in enumerate(levels, start=1):
        if level.number != number:
            raise ScheduleError(f"level {number} is numbered {level.number}")
        if level.seconds <= 0 or level.stake <= 0:
            raise ScheduleError(f"level {number} has no time or no stake")
        if min(level.small_blind, level.big_blind, level.ante) < 0:
            raise ScheduleError(f"level {number} has a negative figure")
        if level.small_blind > level.big_blind:
            raise ScheduleError(f"level {number}: the small blind is over the big blind")
        if before is not None and any(
            getattr(level, name) < getattr(before, name)
            for name in ("stake", "small_blind", "big_blind", "ante")
        ):
            raise ScheduleError(f"level {number} is lower than level {number - 1}")
        before = level


def dumps(levels: Sequence[Level]) -> list[dict[str, int]]:
    """The schedule as JSON data (what a tournament keeps)."""
    return [level.as_dict() for level in levels]


def loads(data: Sequence[Mapping[str, Any]]) -> tuple[Level, ...]:
    """A schedule kept as JSON, checked."""
    levels = tuple(Level(**{k: int(v) for k, v in item.items()}) for item in data)
    check(levels)
    return levels


def _positive(**numbers: int) -> None:
    for name, value in numbers.items():
        if value < 1:
            raise ScheduleError(f"{name} must be at least 1")
