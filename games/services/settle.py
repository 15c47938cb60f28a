"""Settling a finished hand: one ledger transaction, exactly once."""

from __future__ import annotations

from games.models import Departure, Hand, Table
from kernel.retry import retried
from wallet import services as wallet
from wallet.models import Account, LedgerTransaction

from .hands import maybe_deal
from .seats import free_seat, rehold_seats, seat_key
from .work import TableWork


def settlement_key(hand: Hand) -> str:
    return f"hand:{hand.pk}:settle"


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
    already settled or not finished."""
    hand = Hand.objects.select_for_update().get(pk=hand_id)
    if hand.settled or hand.ended_at is None:
        return False
    table, plugin = work.table, work.plugin
    players = hand.players
    if plugin.uses_escrow:
        keys = [f"seat:{seat_key(table, p['position'])}" for p in players]
    else:
        keys = [f"user:{p['user_id']}" for p in players]
    seats = {s.position: s for s in work.seats}
    # The seats' holds (holds_void below), then the players' accounts and those
    # of every seat's hold together, each in primary-key order (a hold's row
    # before its account's: docs/architecture.md "Lock order").
    held = [] if plugin.uses_escrow else [f"user:{s.user_id}" for s in seats.values() if s.hold_id]
    if held:
        wallet.holds_lock([s.hold_id for s in seats.values() if s.hold_id is not None])
    locked = {
        a.key: a
        for a in Account.objects.filter(key__in={*keys, *held}).order_by("pk").select_for_update()
    }
    accounts = [locked[k] for k in keys]
    balances = [a.available for a in accounts]
    if not plugin.uses_escrow:
        # The chips held for this table back what each player pays: released
        # here, in the settlement's transaction, then held again for the next
        # hand (up to the minimum balance) for those who stay. Every seat's
        # hold is released at once (a seat taken during the hand is held again
        # with the others).
        freed = wallet.holds_void([s.hold_id for s in seats.values() if s.hold_id is not None])
        for i, p in enumerate(players):
            seat = seats.get(p["position"])
            if seat is not None and seat.user_id == p["user_id"] and seat.hold_id is not None:
                balances[i] += freed.get(seat.hold_id, 0)
    outcome = plugin.engine.outcome(plugin.engine.loads(hand.state))
    moves, net = plugin.transfers(table, outcome, balances)
    amounts: dict[int, int] = {}
    for move in moves:
        amounts[accounts[move.payer].pk] = amounts.get(accounts[move.payer].pk, 0) - move.chips
        amounts[accounts[move.payee].pk] = amounts.get(accounts[move.payee].pk, 0) + move.chips
    if any(amounts.values()):
        wallet.ledger_post(
            key=settlement_key(hand),
            kind=LedgerTransaction.Kind.SETTLEMENT,
            postings=list(amounts.items()),
            reason=f"{table.get_game_display()} #{table.pk}/{hand.number}",
            hand_id=hand.pk,
        )
        work.chips_moved()
    work.settle_hand(hand, net)
    stacks = dict(zip(keys, (a.balance + amounts.get(a.pk, 0) for a in accounts), strict=True))
    for seat in [s for s in work.seats if s.leaving or s.leave_after_hand]:
        # (the last person leaving takes the bots along)
        free_seat(work, seat, Departure.Reason.LEFT)
    if not plugin.uses_escrow:
        rehold_seats(work, list(work.seats))
    else:
        for seat in work.seats:
            if stacks.get(f"seat:{seat_key(table, seat.position)}") == 0:
                # No chips left: sit out until the player buys in again (docs/rules.md 4).
                work.update_seat(seat, sitting_out=True, ready=False)
    return True
