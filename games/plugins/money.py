"""A game's money model: what backs a seat, and how a hand's result is paid.

Two models of the games' own, one interface (a plugin's ``money``):

* :class:`WalletHolds` (Mậu Binh, Tiến Lên): the player's chips stay in the
  wallet; sitting holds the table's minimum balance there, a hand's payments
  move chips between the players' wallets (the holds released and made again
  in the settlement's transaction), freeing the seat releases the hold.
* :class:`EscrowStacks` (Hold'em): the player buys chips into a seat escrow
  (``seat:<table>:<position>``) within the table's buy-in range, tops it up
  between hands, is paid between escrows, and cashes out when the seat frees.

A table may name another model an app registered (``register``; ``Table.money``):
a tournament's tables play with tournament chips on the seats
(``tournaments.tables.TournamentStacks``), which no ledger account backs.
``money_for(table)`` is the model a table plays with.

Shared code (the seat and settlement services, the publisher, selectors, the
API and the table page) calls these operations and never asks which model a
game has. Every operation runs inside a table's unit of work (the table row
locked), in its transaction.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, ClassVar, Literal, Protocol

from django.utils.translation import gettext_lazy as _

from accounts.models import User
from games import clock, sql
from games.errors import BadAction, BadBuyIn, HandInProgress, NotEnoughChips
from games.models import Hand, Seat, Table
from games.refs import SeatRef
from games.rules.game import Outcome
from wallet import selectors as wallet_selectors
from wallet import services as wallet
from wallet.errors import InsufficientChips
from wallet.models import Account, Hold, LedgerTransaction

from .knobs import Knob, table_number

SEAT_HOLD_TTL = timedelta(days=7)


class _Transfer(Protocol):
    @property
    def payer(self) -> int: ...

    @property
    def payee(self) -> int: ...

    @property
    def chips(self) -> int: ...


class _Plugin(Protocol):
    @property
    def engine(self) -> Any: ...

    def transfers(
        self, table: Table, outcome: Outcome, balances: Sequence[int]
    ) -> tuple[Sequence[_Transfer], list[int]]: ...


class Work(Protocol):
    """What a money operation uses of a table's unit of work
    (``games.services.work.TableWork``)."""

    table: Table

    @property
    def plugin(self) -> _Plugin: ...

    @property
    def seats(self) -> list[Seat]: ...

    @property
    def hand(self) -> Hand | None: ...

    def in_current_hand(self, seat: Seat) -> bool: ...

    def update_seat(self, seat: Seat | SeatRef, **fields: Any) -> None: ...

    def update_table(self, **fields: Any) -> None: ...

    def chips_moved(self) -> None: ...


@dataclass
class Settled:
    """What a settlement paid: each player's net in chips, and what the
    model needs after the seats of leavers are freed (``after_settle``)."""

    net: list[int]
    after: dict[str, int] = field(default_factory=dict)


def seat_key(table: Table, position: int) -> str:
    return f"{table.pk}:{position}"


def escrow_key(table: Table, position: int) -> str:
    """The ledger account of a seat's escrow."""
    return f"seat:{seat_key(table, position)}"


def _setting(table: Table, name: str) -> int:
    """A table knob of the table's game (``games.plugins.base.GamePlugin.setting``)."""
    from games.plugins import plugin_for

    return int(plugin_for(table.game).setting(table, name))


def min_balance(table: Table) -> int:
    return _setting(table, "min_balance_units") * table.stake


def settlement_key(hand: Hand) -> str:
    return f"hand:{hand.pk}:settle"


ChipsSource = Literal["wallet", "escrow", "seat"]


class MoneyModel:
    """The operations every money model has (see the module's docstring)."""

    #: What a seat shows as its chips: the player's wallet balance, its
    #: escrow account's (``seat:<table>:<position>``), or the seat's own
    #: ``stack`` (chips no ledger account backs).
    chips_source: ClassVar[ChipsSource]
    #: The seats are the organiser's (a tournament's): nobody leaves or is
    #: freed for being away, unready or short; the model frees them (a player
    #: out) and every seat with chips is dealt in, present or not (the rules'
    #: time-outs act for the absent).
    holds_seats: ClassVar[bool] = False
    #: Whether its tables are listed in the lobby.
    listed: ClassVar[bool] = True

    @property
    def chips_on_seat(self) -> bool:
        """The seat shows chips of its own (an escrow's or its stack), not the wallet's."""
        return self.chips_source != "wallet"

    def before_deal(self, work: Work) -> None:
        """Just before a hand is dealt (the table locked): e.g. the stake of
        the level in play. Nothing by default."""

    def may_sit(self, work: Work, user: User) -> None:
        """Refuse (a ``ServiceError``) a player who may not sit down here by
        themselves. Anyone may by default (``sit`` then backs the seat)."""

    def may_leave(self, work: Work, seat: Seat) -> None:
        """Refuse (a ``ServiceError``) a player who may not leave. Anyone may by default."""

    #: The settings its seats need (every game of this money model has them:
    #: ``GamePlugin.knobs`` takes them in, after the game's own).
    knobs: ClassVar[dict[str, Knob]] = {}

    def buy_in_range(self, table: Table) -> tuple[int, int] | None:
        """The chips a player may buy in with (None: no buy-in)."""
        return None

    def min_balance(self, table: Table) -> int | None:
        """The chips held in the wallet to sit (None: nothing is held)."""
        return None

    def sit(self, work: Work, user: User, position: int, buy_in: int | None) -> Hold | None:
        """Back a new seat: returns the wallet hold the seat keeps, if any."""
        raise NotImplementedError

    def top_up(self, work: Work, seat: Seat, amount: object) -> None:
        """Add chips to the seat between hands (``bad_action`` if the model has none)."""
        raise BadAction()

    def ready(self, work: Work, seat: Seat) -> None:
        """Refuse (``NotEnoughChips``) a player who cannot be dealt in."""
        raise NotImplementedError

    def short(self, work: Work, seat: Seat) -> bool:
        """The player lacks the chips to be dealt in (why a seat was freed)."""
        raise NotImplementedError

    def stacks(self, work: Work, positions: Sequence[int]) -> list[int]:
        """The chips each player brings to a hand, for the game's setup ([]: none)."""
        return []

    def spendable(self, user: User, seat: Seat) -> int | None:
        """What a hand can take from the player (None: no cap, the stack holds it)."""
        return None

    def bot_needs(self, table: Table) -> tuple[int, int | None]:
        """The chips a bot is lent to sit here, and its buy-in (None: none)."""
        raise NotImplementedError

    def bot_top_up(self, work: Work, seat: Seat, buy_in: int | None) -> None:
        """A bot lent more chips brings them to its seat."""

    def settle(self, work: Work, hand: Hand) -> Settled:
        """Post the finished hand's payments (one ledger transaction, key
        ``hand:<id>:settle``); the hand's row is locked and not yet settled."""
        raise NotImplementedError

    def after_settle(self, work: Work, settled: Settled) -> None:
        """After the settlement, with the leavers' seats freed: ready the
        staying seats' money for the next hand."""
        raise NotImplementedError

    def free(self, work: Work, seat: Seat) -> None:
        """The seat frees: its money back to the player's wallet."""
        raise NotImplementedError

    def _pay(
        self, work: Work, hand: Hand, accounts: list[Account], balances: list[int]
    ) -> tuple[list[int], dict[int, int]]:
        """Move a hand's transfers between ``accounts`` (the players', in player
        order, locked) as one ledger transaction; each player's net and each
        account's change."""
        table, plugin = work.table, work.plugin
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
        return net, amounts


# -- wallet holds (Mậu Binh, Tiến Lên) ---------------------------------------------


def seat_hold(seat: Seat) -> Hold | None:
    """The seat's pending wallet hold, locked (None if it has none)."""
    if seat.hold_id is None:
        return None
    return (
        Hold.objects.select_for_update().filter(pk=seat.hold_id, status=Hold.Status.PENDING).first()
    )


def release_seat_hold(seat: Seat) -> int:
    """Release the seat's hold; returns the amount it held."""
    hold = seat_hold(seat)
    if hold is None:
        return 0
    wallet.hold_void(hold=hold)
    return hold.amount


def _hold_key(table: Table, user_id: int) -> str:
    """A new seat hold's key (unique: a hold is made again every hand)."""
    return f"table:{table.pk}:user:{user_id}:{secrets.token_hex(8)}"


def _hold_reason(table: Table) -> str:
    return f"{table.get_game_display()} #{table.pk}"


def rehold_seat(work: Work, seat: Seat, *, at_most: int | None = None) -> None:
    """Hold the table's minimum balance again for the next hand (after a
    settlement: what the player still has, up to it)."""
    release_seat_hold(seat)
    needed = min_balance(work.table)
    account = wallet.account_for_user(user=seat.user)
    amount = min(needed, account.available if at_most is None else at_most)
    hold = None
    if amount > 0:
        hold = wallet.hold_create(
            account=account,
            amount=amount,
            key=_hold_key(work.table, seat.user_id),
            expires_at=clock.now() + SEAT_HOLD_TTL,
            reason=_hold_reason(work.table),
        )
    work.update_seat(seat, hold_id=None if hold is None else hold.pk)


def rehold_seats(work: Work, seats: list[Seat]) -> None:
    """``rehold_seat`` for the seats that stay after a settlement, whose holds
    the settlement voided: each holds what the player has available again, up
    to the table's minimum, in two statements for the table
    (``wallet.holds_up_to``); the seats' new holds go into the change's one
    write."""
    if not seats:
        return
    table = work.table
    needed = min_balance(table)
    made = wallet.holds_up_to(
        [wallet.HoldUpTo(s.user_id, needed, _hold_key(table, s.user_id)) for s in seats],
        expires_at=clock.now() + SEAT_HOLD_TTL,
        reason=_hold_reason(table),
    )
    for seat in seats:
        work.update_seat(seat, hold_id=made.get(seat.user_id))


class WalletHolds(MoneyModel):
    chips_source = "wallet"
    # The stakes held in the wallet to sit (the house's: not the API's).
    knobs = {"min_balance_units": table_number(1, 1_000, 30, by_players=False)}

    def min_balance(self, table: Table) -> int | None:
        return min_balance(table)

    def sit(self, work: Work, user: User, position: int, buy_in: int | None) -> Hold | None:
        # The table's minimum balance is held in the wallet while the player
        # sits here: the same chips cannot back a seat at another table.
        table = work.table
        needed = min_balance(table)
        account = wallet.account_for_user(user=user)
        try:
            return wallet.hold_create(
                account=account,
                amount=needed,
                key=_hold_key(table, user.pk),
                expires_at=clock.now() + SEAT_HOLD_TTL,
                reason=_hold_reason(table),
            )
        except InsufficientChips:
            raise NotEnoughChips(needed=needed) from None

    def ready(self, work: Work, seat: Seat) -> None:
        # The seat's hold must cover the minimum balance before the player is
        # dealt in (after a loss it may hold less).
        needed = min_balance(work.table)
        held = 0 if seat.hold_id is None else sql.held(seat.hold_id)
        if held >= needed:
            return
        if wallet.account_for_user(user=seat.user).available + held < needed:
            raise NotEnoughChips(needed=needed)
        rehold_seat(work, seat)

    def short(self, work: Work, seat: Seat) -> bool:
        hold = seat_hold(seat)
        held = 0 if hold is None else hold.amount
        return wallet.account_for_user(user=seat.user).available + held < min_balance(work.table)

    def spendable(self, user: User, seat: Seat) -> int | None:
        return wallet_selectors.spendable_with_hold(user, seat.hold_id)

    def bot_needs(self, table: Table) -> tuple[int, int | None]:
        return min_balance(table) * 2, None

    def settle(self, work: Work, hand: Hand) -> Settled:
        players = hand.players
        keys = [f"user:{p['user_id']}" for p in players]
        seats = {s.position: s for s in work.seats}
        # The seats' holds (holds_void below), then the players' accounts and
        # those of every seat's hold together, each in primary-key order (a
        # hold's row before its account's: docs/architecture.md "Lock order").
        held = [f"user:{s.user_id}" for s in seats.values() if s.hold_id]
        if held:
            wallet.holds_lock([s.hold_id for s in seats.values() if s.hold_id is not None])
        locked = {
            a.key: a
            for a in Account.objects.filter(key__in={*keys, *held})
            .order_by("pk")
            .select_for_update()
        }
        accounts = [locked[k] for k in keys]
        balances = [a.available for a in accounts]
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
        net, _amounts = self._pay(work, hand, accounts, balances)
        return Settled(net)

    def after_settle(self, work: Work, settled: Settled) -> None:
        rehold_seats(work, list(work.seats))

    def free(self, work: Work, seat: Seat) -> None:
        release_seat_hold(seat)


# -- seat escrows (Hold'em) ---------------------------------------------------------


def _stack(table: Table, position: int) -> int:
    stack = (
        Account.objects.filter(key=escrow_key(table, position))
        .values_list("balance", flat=True)
        .first()
    )
    return stack or 0


def _buy_in(user: User, table: Table, position: int, amount: int) -> None:
    wallet.seat_buy_in(
        user=user, seat_key=seat_key(table, position), amount=amount,
        key=f"buyin:{table.pk}:{position}:{secrets.token_hex(8)}",
    )  # fmt: skip


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class EscrowStacks(MoneyModel):
    chips_source = "escrow"
    knobs = {
        "buy_in_min": table_number(1, 1_000, 20, label=_("Minimum buy-in (big blinds)")),
        "buy_in_max": table_number(
            1, 1_000, 100, at_least="buy_in_min", label=_("Maximum buy-in (big blinds)")
        ),
    }  # fmt: skip

    def buy_in_range(self, table: Table) -> tuple[int, int] | None:
        # The game's buy_in_min/max knobs, in big blinds (two stakes).
        big_blind = 2 * table.stake
        return _setting(table, "buy_in_min") * big_blind, _setting(table, "buy_in_max") * big_blind

    def _range(self, table: Table) -> tuple[int, int]:
        limits = self.buy_in_range(table)
        assert limits is not None
        return limits

    def sit(self, work: Work, user: User, position: int, buy_in: int | None) -> Hold | None:
        low, high = self._range(work.table)
        amount = low if buy_in is None else buy_in
        if not _whole(amount) or not low <= amount <= high:
            raise BadBuyIn(low=low, high=high)
        _buy_in(user, work.table, position, amount)
        return None

    def top_up(self, work: Work, seat: Seat, amount: object) -> None:
        if work.in_current_hand(seat) and work.hand is not None and not work.hand.finished:
            raise HandInProgress()
        table = work.table
        low, high = self._range(table)
        stack = _stack(table, seat.position)
        if not _whole(amount) or amount < 1 or stack + amount > high:  # type: ignore[operator]
            raise BadBuyIn(low=max(1, low - stack), high=high - stack)
        _buy_in(seat.user, table, seat.position, amount)  # type: ignore[arg-type]
        work.chips_moved()  # the stack it shows grew

    def ready(self, work: Work, seat: Seat) -> None:
        stack = (
            Account.objects.filter(key=escrow_key(work.table, seat.position))
            .values_list("balance", flat=True)
            .first()
        )
        if not stack:
            raise NotEnoughChips(needed=self._range(work.table)[0])

    def short(self, work: Work, seat: Seat) -> bool:
        return _stack(work.table, seat.position) == 0

    def stacks(self, work: Work, positions: Sequence[int]) -> list[int]:
        keys = [escrow_key(work.table, p) for p in positions]
        balances = dict(Account.objects.filter(key__in=keys).values_list("key", "balance"))
        return [balances.get(k, 0) for k in keys]

    def bot_needs(self, table: Table) -> tuple[int, int | None]:
        low, high = self._range(table)
        buy_in = min(low * 2, high)
        return buy_in, buy_in

    def bot_top_up(self, work: Work, seat: Seat, buy_in: int | None) -> None:
        assert buy_in is not None
        low, high = self._range(work.table)
        stack = _stack(work.table, seat.position)
        if stack < low:
            _buy_in(seat.user, work.table, seat.position, min(buy_in, high - stack))
            work.update_seat(seat, sitting_out=False)
        work.chips_moved()

    def settle(self, work: Work, hand: Hand) -> Settled:
        keys = [escrow_key(work.table, p["position"]) for p in hand.players]
        locked = {
            a.key: a
            for a in Account.objects.filter(key__in=set(keys)).order_by("pk").select_for_update()
        }
        accounts = [locked[k] for k in keys]
        net, amounts = self._pay(work, hand, accounts, [a.available for a in accounts])
        stacks = {k: a.balance + amounts.get(a.pk, 0) for k, a in zip(keys, accounts, strict=True)}
        return Settled(net, stacks)

    def after_settle(self, work: Work, settled: Settled) -> None:
        for seat in work.seats:
            if settled.after.get(escrow_key(work.table, seat.position)) == 0:
                # No chips left: sit out until the player buys in again (docs/rules.md 4).
                work.update_seat(seat, sitting_out=True, ready=False)

    def free(self, work: Work, seat: Seat) -> None:
        wallet.seat_cash_out(
            seat_key=seat_key(work.table, seat.position),
            key=f"cashout:{work.table.pk}:{seat.position}:{seat.pk}",
        )


# -- the models apps register -------------------------------------------------------

_REGISTERED: dict[str, MoneyModel] = {}


def register(name: str, model: MoneyModel) -> None:
    """A money model a table may name (``Table.money``), registered by its
    app when it is ready (``tournaments.apps``)."""
    if _REGISTERED.get(name, model) is not model:
        raise ValueError(f"money model {name!r} registered twice")
    _REGISTERED[name] = model


def money_for(table: Table) -> MoneyModel:
    """The money model ``table`` plays with: the one it names, else its game's."""
    if table.money:
        return _REGISTERED[table.money]
    from games.plugins import plugin_for

    return plugin_for(table.game).money
