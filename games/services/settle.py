"""Settling a finished hand: one ledger transaction, exactly once."""

from __future__ import annotations

from games.models import Departure, Hand, Table
from kernel.retry import retried

from .hands import maybe_deal
from .seats import free_seat
from .work import TableWork


@retried
def hand_settle(*, hand_id: int) -> bool:
    """Post the hand's result to the wallet (key ``hand:<id>:settle``), free the
    seats of players who left, and deal the next hand if it is due.

    Safe to run any number of times: a settled hand is left alone.
    """
    table_id = Hand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return False
    work = TableWork(table_id)
    if not settle_in(work, hand_id):
        return False
    if work.table.status == Table.Status.WAITING:
        maybe_deal(work)
    work.commit()
    return True


def settle_in(work: TableWork, hand_id: int) -> bool:
    """Settle the hand inside ``work`` (the table is locked): False if it is
    already settled or not finished. The game's money model pays the hand
    (between wallets or seat escrows) and readies the staying seats' money for
    the next hand once the leavers' seats are freed."""
    hand = Hand.objects.select_for_update().get(pk=hand_id)
    if hand.settled or hand.ended_at is None:
        return False
    money = work.money
    settled = money.settle(work, hand)
    work.settle_hand(hand, settled.net)
    for seat in [s for s in work.seats if s.leaving or s.leave_after_hand]:
        # (the last person leaving takes the bots along)
        free_seat(work, seat, Departure.Reason.LEFT)
    money.after_settle(work, settled)
    return True
