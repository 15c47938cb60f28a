"""What a table service changed, declared: the unit of work's change record.

Every change of a table goes through a typed operation of its unit of work
(``games.services.work.TableWork``), and each operation appends one of these
records. The record is written by the one writer (``games.sql.write``) and
handed to the publisher, which decides what to send by the kinds of change it
holds (``games.publish.decide``), never by comparing rows after the fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from games.refs import EventRecord
from games.rules.game import Status

# The seat fields a state shows (``publish.table_info``: ``connected`` is
# ``connections`` and ``last_seen``). A change of any other field of a seat (a
# move's client ids, a time-out count, a seed, a wallet hold) shows nowhere.
SEAT_SHOWN = frozenset(
    {
        "ready",
        "connections",
        "last_seen",
        "sitting_out",
        "leaving",
        "leave_after_hand",
        "auto_ready",
    }
)


@dataclass(frozen=True, slots=True)
class SeatTaken:
    seat_id: int
    position: int
    user_id: int


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """A seat freed; ``removed``: what its user is told (``publish.removed_info``)."""

    seat_id: int
    position: int
    user_id: int
    removed: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SeatUpdated:
    seat_id: int
    fields: frozenset[str]

    @property
    def shown(self) -> bool:
        """Whether a state shows any of the fields changed."""
        return not SEAT_SHOWN.isdisjoint(self.fields)


@dataclass(frozen=True, slots=True)
class ChipsMoved:
    """The chips the seats show changed (a buy-in, a settlement)."""


@dataclass(frozen=True, slots=True)
class HandDealt:
    hand_id: int
    events: tuple[EventRecord, ...]


@dataclass(frozen=True, slots=True)
class HandMoved:
    """One change of a running hand's state (a move, a bot's move, a time-out,
    a player leaving): the engine states before and after, its events and the
    engine's status after it (computed once, by the move)."""

    hand_id: int
    before: Any
    after: Any
    events: tuple[EventRecord, ...]
    status: Status


@dataclass(frozen=True, slots=True)
class HandFinished:
    hand_id: int


@dataclass(frozen=True, slots=True)
class HandSettled:
    hand_id: int


@dataclass(frozen=True, slots=True)
class HandVoided:
    hand_id: int


@dataclass(frozen=True, slots=True)
class ClockSet:
    """The table's clock started (``kind``, ``deadline``) or stopped (``""``, None)."""

    kind: str
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class TableUpdated:
    """Columns of the table row itself changed (its status, options...)."""

    fields: frozenset[str]


@dataclass(frozen=True, slots=True)
class TableOpened:
    """A new table (its first version)."""


Change = (
    SeatTaken
    | SeatLeft
    | SeatUpdated
    | ChipsMoved
    | HandDealt
    | HandMoved
    | HandFinished
    | HandSettled
    | HandVoided
    | ClockSet
    | TableUpdated
    | TableOpened
)


def events_of(changes: Sequence[Change]) -> list[EventRecord]:
    """The hand events the changes recorded, in order."""
    return [e for c in changes if isinstance(c, HandMoved | HandDealt) for e in c.events]


class UndeclaredChange(AssertionError):
    """A service changed what a state shows without declaring it (a bug: it
    would be published as a delta that leaves clients out of date)."""
