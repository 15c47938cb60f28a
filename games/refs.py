"""Short records of a table's rows, as the hot path reads and writes them
(``games.sql``): a seat without its player's name or chips, an event as it is
written with its move."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games.models import Seat


@dataclass(frozen=True, slots=True)
class SeatRef:
    """A seat in short: what a move needs of it (no name, no chips).
    ``timeouts``: the player's clocks run out in a row, without a move between."""

    id: int
    position: int
    user_id: int
    is_bot: bool
    active: bool
    ready: bool
    timeouts: int = 0
    recent_client_ids: list[str] = field(default_factory=list)


def seat_ref(seat: Seat) -> SeatRef:
    """A seat loaded in full, in short."""
    return SeatRef(
        id=seat.pk,
        position=seat.position,
        user_id=seat.user_id,
        is_bot=seat.is_bot,
        active=seat.user.is_active,
        ready=seat.ready,
        timeouts=seat.timeouts,
        recent_client_ids=list(seat.recent_client_ids),
    )


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A hand event as written with its move (``games.models.HandEvent``)."""

    seq: int
    table_version: int
    type: str
    payload: dict[str, Any]
    visibility: str
    player: int | None
