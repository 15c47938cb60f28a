"""Seats: sit, buy in, ready, seeds, leave, bots, presence, and the wallet
holds and stacks behind them.

Builds on hands (a ready table deals, a player leaving mid-hand plays the
engine's leave rule); settlement and tables build on this."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.bots import bot_name
from accounts.models import User
from games import clock, publish, selectors, sql
from games.errors import (
    AccountInactive,
    AlreadyLeft,
    AlreadySeated,
    BadAction,
    BadClientSeed,
    BadLeave,
    BadSwitch,
    CannotInvite,
    CannotInviteThem,
    HandInProgress,
    InviteTooFast,
    NoBotAvailable,
    NoBotSeat,
    NoSuchSeat,
    NotEnoughChips,
    PlayerNotFound,
    PrivateTable,
    SeatTaken,
    SeedReused,
    StaleCommitment,
    TableClosed,
    TableFull,
    TableNotFound,
    TooManyBots,
    TooManyBotsAddress,
    TooManyTables,
)
from games.models import Departure, Invitation, Seat, Table
from games.rules import fairness
from games.rules.errors import RulesError
from kernel import limits, notify
from kernel.errors import PermissionDenied, ServiceError
from kernel.net import parse_address
from kernel.ops import metrics
from kernel.retry import retried
from push import notices as push_notices
from push.notices import Notice
from wallet import services as wallet
from wallet.errors import InsufficientChips

from .hands import hand_leave, maybe_deal
from .work import TableWork

_BOTS_FILL_TO = 4  # a "play now" table fills its empty seats up to this many players


def _check_open(work: TableWork, user: User, invite_code: str) -> None:
    """The table is open, and the user may come in: a private table takes its
    owner, its invited players and the holder of its invite code (who is
    invited from then on)."""
    table = work.table
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    if not table.is_private or table.owner_id == user.pk:
        return
    if invite_code and invite_code == table.invite_code:
        if not user.is_bot:
            Invitation.objects.get_or_create(table_id=table.pk, user=user)
    elif not selectors.is_invited(table.pk, user):
        raise PrivateTable()


def invite_redeem(*, table_id: int, user: User | None, invite_code: str) -> bool:
    """A signed-in player opened a private table with its invite code (its
    page, its socket, the API's view of it): they are invited from now on
    (``Invitation``), and their lobby sockets hear of the table. Its owner and
    bots never are; a wrong code, a public or closed table change nothing.
    Returns whether the invitation is new."""
    if not invite_code or user is None or not user.is_authenticated or user.is_bot:
        return False
    table = (
        Table.objects.filter(pk=table_id, is_private=True, invite_code=invite_code)
        .exclude(status=Table.Status.CLOSED)
        .exclude(owner_id=user.pk)
        .first()
    )
    if table is None:
        return False
    _invitation, created = Invitation.objects.get_or_create(table=table, user=user)
    if created:
        _tell_invited(table, user.pk)
    return created


def _tell_invited(table: Table, user_id: int) -> None:
    """After commit, the invited player's lobby sockets get the table (a private
    one is theirs to see from now on)."""
    seats = list(Seat.objects.filter(table=table).select_related("user"))
    entry = publish.lobby_entry(table, seats)
    notify.send_on_commit(
        [(publish.lobby_user_group(user_id), {"type": "lobby.table", "table": entry})]
    )


@retried
def invite_send(*, table_id: int, by: User, username: str) -> bool:
    """The table's owner, or a player seated there, invites another player by
    their log-in name: the table is theirs to find and open from then on
    (``Invitation``, as if they had opened its invite link), their lobby
    sockets hear of it, and their devices get an ``invite`` push (if they want
    push: ``push.notices``, after commit). Inviting again pushes again, within
    ``INVITE_RATE``. Returns whether the invitation is new."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise TableNotFound()
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    seated = Seat.objects.filter(table=table, user_id=by.pk).exists()
    if table.owner_id != by.pk and not seated:
        if not selectors.can_view(table, by, "", seated):
            raise PrivateTable()
        raise CannotInvite()
    invitee = User.objects.filter(username=username, is_active=True).first()
    if invitee is None:
        raise PlayerNotFound()
    if (
        invitee.pk == by.pk
        or invitee.is_bot
        or Seat.objects.filter(table=table, user_id=invitee.pk).exists()
    ):
        raise CannotInviteThem()
    wait = limits.take("invite", str(by.pk), limits.settings_rate("INVITE_RATE"))
    if wait:
        raise InviteTooFast(wait=max(1, round(wait)))
    created = False
    if invitee.pk != table.owner_id:
        _invitation, created = Invitation.objects.get_or_create(table=table, user=invitee)
    if created:
        _tell_invited(table, invitee.pk)
    notice = Notice(push_notices.INVITE, invitee.pk, table.pk, table.game, {"by": by.display_name})
    transaction.on_commit(lambda: push_notices.send([notice]), robust=True)
    return created


def _free_position(work: TableWork, position: int | None) -> int:
    taken = {s.position for s in work.seats}
    if position is None:
        free = [p for p in range(work.table.seat_count) if p not in taken]
        if not free:
            raise TableFull()
        return free[0]
    if not isinstance(position, int) or not 0 <= position < work.table.seat_count:
        raise NoSuchSeat()
    if position in taken:
        raise SeatTaken()
    return position


def _take_seat(
    work: TableWork,
    user: User,
    position: int,
    buy_in: int | None,
    bot_for: User | None = None,
    auto_ready: bool = False,
    bot_for_address: str | None = None,
    present: bool = False,
) -> Seat:
    # A buy-in to the seat's escrow, or a hold of the table's minimum balance
    # on the wallet (the game's money model).
    hold = work.money.sit(work, user, position, buy_in)
    # (``present``: the asking socket counts at the seat from the start.)
    presence = {"connections": 1, "last_seen": clock.now()} if present else {}
    seat = work.seat_take(
        position=position, user=user, is_bot=user.is_bot, hold=hold, bot_for=bot_for,
        auto_ready=auto_ready, bot_for_address=bot_for_address, **presence,
    )  # fmt: skip
    return seat


def _switch(value: object) -> bool:
    """A seat switch (``auto_ready``): true or false, nothing else."""
    if not isinstance(value, bool):
        raise BadSwitch()
    return value


@retried
def table_sit(
    *,
    table_id: int,
    user: User,
    position: int | None = None,
    buy_in: int | None = None,
    invite_code: str = "",
    auto_ready: bool | None = None,
    address: str | None = None,
    present: bool = False,
    ready: bool = False,
) -> Seat:
    """Take a seat. ``auto_ready`` (None: on at a table with bots, where
    people expect the next hand without asking): the server readies the seat
    for every hand after the first (Mậu Binh, Tiến Lên; Poker keeps a ready
    seat ready anyway). ``address``: the request's client address, counted
    against its share of the bot pool when the table fills with bots.
    ``present``: the asking table socket counts at the seat (one change, one
    version: others see the player seated and connected at once).
    ``ready`` ("play now": one tap): the seat is ready at once, and so are
    the bots that fill the table (a bot has nothing to think over before a
    deal), so the table deals in this change when it can."""
    if auto_ready is not None:
        _switch(auto_ready)
    _require_active(user)
    work = TableWork(table_id)
    _check_open(work, user, invite_code)
    work.money.may_sit(work, user)
    if work.seat_of(user) is not None:
        raise AlreadySeated()
    if auto_ready is None:
        auto_ready = work.table.fill_with_bots or any(s.is_bot for s in work.seats)
    fills = work.table.fill_with_bots and not user.is_bot
    if fills and len(work.seats) + 1 < min(work.table.seat_count, _BOTS_FILL_TO):
        wallet.house_lock()  # the bots' lock, in its place: before any wallet account
    seat = _take_seat(
        work, user, _free_position(work, position), buy_in, auto_ready=auto_ready, present=present
    )
    Departure.objects.filter(table=work.table, user=user).delete()
    if fills:
        _fill_with_bots(work, user, address, ready=ready)
    if ready:
        _ready(work, seat, "")
    work.commit()
    return seat


@retried
def table_seat_players(*, table_id: int, players: Sequence[tuple[User, int]]) -> list[Seat]:
    """Seat an organiser's players (a tournament's), in the order given from
    the first seat, each with the chips it brings on the seat
    (``Seat.stack``) and ready for every hand; bots among them are seated
    as bots. Only at a table whose money model holds its seats, still empty;
    the first hand deals as soon as it can."""
    work = TableWork(table_id)
    if not work.money.holds_seats or work.seats or len(players) > work.table.seat_count:
        raise BadAction()
    seats = []
    for position, (user, chips) in enumerate(players):
        seat = work.seat_take(
            position=position, user=user, is_bot=user.is_bot, auto_ready=True, ready=True,
            stack=chips,
        )  # fmt: skip
        seats.append(seat)
    maybe_deal(work)
    work.commit()
    return seats


@retried
def table_seat_player(*, table_id: int, user: User, chips: int) -> Seat:
    """Seat one more of an organiser's players (a tournament's player moved
    here, or registered late) at the first free seat, with ``chips`` on the
    seat (``Seat.stack``), ready:
    dealt in from the next hand (a hand in play goes on without them). Only at
    an open table whose money model holds its seats (``bad_action``), with a
    free seat (``table_full``)."""
    work = TableWork(table_id)
    if not work.money.holds_seats or work.table.status == Table.Status.CLOSED:
        raise BadAction()
    if work.seat_of(user) is not None:
        raise AlreadySeated()
    seat = work.seat_take(
        position=_free_position(work, None), user=user, is_bot=user.is_bot,
        auto_ready=True, ready=True, stack=chips,
    )  # fmt: skip
    maybe_deal(work)
    work.commit()
    return seat


def _require_active(user: User) -> None:
    """A deactivated (banned) account may not sit or seat a bot. Called before
    the table is locked: the account's row is locked first (as a ban locks it
    before the player's tables), so one player's requests at many tables at
    once are counted one after another against their bot-seat cap."""
    # FOR NO KEY UPDATE: it still queues requests on this row one after another,
    # but not a table service that inserts a row naming the user (a seat, a
    # departure: their foreign key's check takes a KEY SHARE lock) while holding
    # its table (docs/architecture.md "Lock order").
    locked = User.objects.select_for_update(no_key=True).filter(pk=user.pk, is_active=True)
    if locked.first() is None:
        raise AccountInactive()


def _bot_user(work: TableWork, needed: int) -> User:
    """An idle bot of the pool, or a new account when none is idle (at most
    ``BOT_POOL_SIZE`` accounts, each at one table at a time), lent ``needed``
    chips by the house. The caller holds the house's row (``_add_bot``), so
    requests at many tables at once grow the pool one account at a time."""
    bot = _idle_bot() or _new_bot()
    _bot_fund(work, bot, needed)
    return bot


def _new_bot() -> User:
    count = User.objects.filter(is_bot=True).count()
    if count >= settings.BOT_POOL_SIZE:
        metrics.bot_refused("pool")
        raise NoBotAvailable()
    return wallet.bot_signup(
        username=f"bot-{count + 1}-{secrets.token_hex(3)}", display_name=bot_name(count)
    )


def _idle_bot() -> User | None:
    """A pool bot seated nowhere and not being seated by another request."""
    busy = Seat.objects.filter(is_bot=True).values("user")
    return (
        User.objects.filter(is_bot=True, is_active=True)
        .exclude(pk__in=busy)
        .order_by("pk")
        .select_for_update(skip_locked=True)
        .first()
    )


def _bot_fund(work: TableWork, bot: User, needed: int) -> None:
    """Lend the bot what it lacks of ``needed`` from the house (never issuance)."""
    account = wallet.account_for_user(user=bot)
    if account.available >= needed:
        return
    try:
        wallet.bot_lend(
            bot=bot, amount=needed - account.available,
            key=f"bot-loan:{bot.pk}:{secrets.token_hex(8)}", reason=f"table #{work.table.pk}",
        )  # fmt: skip
    except InsufficientChips:
        metrics.bot_refused("house")
        raise NoBotAvailable() from None


def _bot_needs(work: TableWork) -> tuple[int, int | None]:
    """Chips a bot is lent to sit here, and its buy-in (None: none)."""
    return work.money.bot_needs(work.table)


def bot_share(percent: int) -> int:
    """Bots of the pool that a share of ``percent`` % is (at least one)."""
    return max(1, settings.BOT_POOL_SIZE * percent // 100)


def bot_share_per_user() -> int:
    return min(settings.MAX_BOT_SEATS_PER_USER, bot_share(settings.BOT_SHARE_PER_USER_PERCENT))


def _check_bot_shares(asked_by: User, address: str | None) -> None:
    """A player, and the players of one client address together, hold at most
    their share of the pool at open tables (``too_many_bots``,
    ``too_many_bots_address``). Counted under the house's row, which every
    bot's seating holds: requests at once from many accounts of one address,
    at many tables, are counted one after another."""
    held = Seat.objects.filter(is_bot=True).exclude(table__status=Table.Status.CLOSED)
    limit = bot_share_per_user()
    if held.filter(bot_for=asked_by).count() >= limit:
        metrics.bot_refused("player")
        raise TooManyBots(limit=limit)
    if address:
        limit = bot_share(settings.BOT_SHARE_PER_ADDRESS_PERCENT)
        if held.filter(bot_for_address=address).count() >= limit:
            metrics.bot_refused("address")
            raise TooManyBotsAddress(limit=limit)


def _add_bot(
    work: TableWork,
    position: int | None = None,
    *,
    asked_by: User | None = None,
    address: str | None = None,
    ready: bool = False,
) -> Seat:
    # Every bot's loan locks the house's row: taken first (after the asker's
    # and the table's rows), it makes the shares' counts and the pool's growth
    # wait for other requests to be done.
    wallet.house_lock()
    parsed = parse_address(address)
    address = None if parsed is None else str(parsed)
    if asked_by is not None and not asked_by.is_staff and not asked_by.is_bot:
        _check_bot_shares(asked_by, address)
    else:
        address = None  # staff and bots are not counted
    free = _free_position(work, position)
    needed, buy_in = _bot_needs(work)
    bot = _bot_user(work, needed)
    seat = _take_seat(work, bot, free, buy_in, bot_for=asked_by, bot_for_address=address)
    if ready:
        _ready(work, seat, "")  # its seed is drawn at the deal (play.contributions)
    else:
        work.bot_to_ready(seat.position)
    return seat


def _fill_with_bots(
    work: TableWork, asked_by: User, address: str | None = None, *, ready: bool = False
) -> None:
    wanted = min(work.table.seat_count, _BOTS_FILL_TO)
    while len(work.seats) < wanted:
        _add_bot(work, asked_by=asked_by, address=address, ready=ready)


def _bots_let_go(work: TableWork, user_id: int) -> None:
    """The player left the table (or its hand): the bots they asked for there
    stop counting against their share of the pool and their address's at
    once, whether they play the hand out or stay with the table's other
    players (``_check_bot_shares`` counts ``bot_for``)."""
    for bot in work.seats:
        if bot.is_bot and bot.bot_for_id == user_id:
            work.update_seat(bot, bot_for_id=None, bot_for_address=None)


@retried
def table_add_bot(
    *, table_id: int, user: User, position: int | None = None, address: str | None = None
) -> Seat:
    """Seat a bot. The table's owner or a player seated there may ask; staff
    may too at a public table. A private table is its owner's and invited
    players' game: anyone else, staff included, gets ``private_table``.
    ``address``: the request's client address (``kernel.net``), counted with
    the player against the shares of the bot pool."""
    _require_active(user)
    work = TableWork(table_id)
    seated = work.seat_of(user) is not None
    if not (user.is_staff or work.table.owner_id == user.pk or seated):
        raise PermissionDenied()
    _check_open(work, user, work.table.invite_code if seated else "")
    work.money.may_sit(work, user)  # (a tournament's seats are its players')
    if len(work.seats) >= work.table.seat_count:
        raise NoBotSeat()
    seat = _add_bot(work, position, asked_by=user, address=address)
    work.commit()
    return seat


@retried
def table_release_bots(*, table_id: int) -> int:
    """Send a table's bots back to the pool when no person has been present
    there for ``BOT_RELEASE_SECONDS`` (``selectors.tables_without_people``,
    checked again under the table's lock), between hands: seats freed and
    chips back to the house, as when the last person leaves. The seats of
    people whose socket has gone (``gone``) are freed too, as a leave: no
    seat is held at a table nobody plays at. Returns the bots sent back (0:
    someone came back, or a hand is on)."""
    work = TableWork(table_id)
    hand = work.hand
    if hand is not None and not hand.settled:
        return 0
    if work.money.holds_seats:
        return 0  # the seats are a tournament's: its bots play on
    if not selectors.tables_without_people(table_id=table_id):
        return 0
    bots = [s for s in work.seats if s.is_bot]
    for person in [s for s in work.seats if gone(s, 0)]:
        free_seat(work, person, Departure.Reason.NOT_READY)
    for bot in bots:
        free_seat(work, bot, Departure.Reason.LEFT)
    work.commit()
    return len(bots)


def gone(seat: Seat, seconds: int) -> bool:
    """A person's seat whose socket has gone: it had one, and none has been
    open (``Seat.connected``) for ``seconds``. A seat that never had a socket
    (a player of the API alone) is never gone."""
    if seat.is_bot or seat.last_seen is None or seat.connected:
        return False
    return seat.last_seen <= clock.now() - timedelta(seconds=seconds)


@retried
def play_now_ready(*, table_id: int, user: User) -> None:
    """ "Play now" took the player back to their seat: ready it if the table
    waits for them (as the Ready button would). Nothing changes where it
    cannot be (a hand on, chips short: the table page says so)."""
    work = TableWork(table_id)
    seat = work.seat_of(user)
    if seat is None or work.table.status != Table.Status.WAITING:
        return
    if seat.ready or seat.leaving:
        return
    try:
        with work.attempt():
            _ready(work, seat, "")
    except NotEnoughChips:
        return
    work.commit()


def free_seat(work: TableWork, seat: Seat, reason: str) -> None:
    """Free a seat: Poker stacks back to the wallet, the wallet hold released,
    and a bot's chips back to the house. The player is told why (``reason``, a
    ``Departure.Reason``, kept until they sit at the table again). When the
    last person leaves a table between hands, its bots leave too (their chips
    and accounts go back to the house and the pool; a "play now" table fills
    again when someone sits)."""
    if not Seat.objects.filter(pk=seat.pk).exists():
        return  # already freed (the bots of a table its last person left)
    work.money.free(work, seat)
    if seat.is_bot and not work.money.holds_seats:  # (a tournament's bots: its own)
        wallet.bot_repay(
            bot=seat.user, key=f"bot-return:{seat.user_id}:{work.table.pk}:{seat.pk}",
            reason=f"{work.table.get_game_display()} #{work.table.pk}",
        )  # fmt: skip
    at = clock.now()
    if not seat.is_bot:
        _bots_let_go(work, seat.user_id)
        Departure.objects.update_or_create(
            table=work.table, user_id=seat.user_id, defaults={"reason": reason, "at": at}
        )
    work.seat_free(seat, publish.removed_info(reason, at))
    if not seat.is_bot and all(s.is_bot for s in work.seats) and not work.money.holds_seats:
        hand = work.hand
        if hand is None or hand.settled:
            for bot in list(work.seats):
                free_seat(work, bot, Departure.Reason.LEFT)


def limit_open_tables(owner: User) -> None:
    """At most ``MAX_OPEN_TABLES_PER_USER`` open tables per player (staff and
    bots are not counted)."""
    if owner.is_staff or owner.is_bot:
        return
    # Two requests at once: the owner's row is the lock that counts them one by one.
    User.objects.select_for_update(no_key=True).filter(pk=owner.pk).first()
    limit = settings.MAX_OPEN_TABLES_PER_USER
    if Table.objects.filter(owner=owner).exclude(status=Table.Status.CLOSED).count() >= limit:
        raise TooManyTables(limit=limit)


LEAVE_NOW, LEAVE_AFTER_HAND = "now", "after_hand"


@retried
def table_leave(
    *, table_id: int, user: User, when: object = LEAVE_NOW, socket_leaves: bool = False
) -> None:
    """Leave. Between hands the seat frees at once. In a hand, ``when``
    ``"now"`` plays the engine's leave rule (what it costs: ``selectors.
    leave_cost``) and ``"after_hand"`` plays the hand out; either way the seat
    frees once the hand is settled. Asking again changes nothing.
    ``socket_leaves``: the asking table socket no longer counts at the seat
    (a socket's leave now), in the same change."""
    if when not in (LEAVE_NOW, LEAVE_AFTER_HAND):
        raise BadLeave()
    work = TableWork(table_id)
    seat = work.require_seat(user)
    work.money.may_leave(work, seat)
    if not work.in_current_hand(seat):
        free_seat(work, seat, Departure.Reason.LEFT)
        work.commit()
        return
    if socket_leaves:
        _presence(work, seat, -1)
    if when == LEAVE_AFTER_HAND:
        if not seat.leaving and not seat.leave_after_hand:
            work.update_seat(seat, leave_after_hand=True)
    elif not seat.leaving:
        work.update_seat(seat, leaving=True, ready=False)
        _bots_let_go(work, seat.user_id)
        hand = work.hand
        assert hand is not None
        if not hand.finished:
            player = work.player_index(seat)
            assert player is not None
            hand_leave(work, player)
    work.commit()


@retried
def table_stay(*, table_id: int, user: User) -> None:
    """Cancel "leave after this hand". A player who already left the hand
    (``leave`` now) cannot come back into it: ``already_left``."""
    work = TableWork(table_id)
    seat = work.require_seat(user)
    if seat.leaving:
        raise AlreadyLeft()
    if seat.leave_after_hand:
        work.update_seat(seat, leave_after_hand=False)
    work.commit()


@retried
def table_auto_ready(*, table_id: int, user: User, on: object) -> None:
    """Switch the seat's auto-ready (Mậu Binh, Tiến Lên: the server readies
    it for each next hand). Switched on while the table waits, it readies
    the seat now (refused, changing nothing, if it cannot be ready)."""
    on = _switch(on)
    work = TableWork(table_id)
    seat = work.require_seat(user)
    if seat.auto_ready != on:
        work.update_seat(seat, auto_ready=on)
    if (
        on
        and not work.plugin.keeps_ready
        and work.table.status == Table.Status.WAITING
        and not seat.ready
        and not seat.leaving
        and not seat.leave_after_hand
    ):
        _ready(work, seat, "")
    work.commit()


# Auto-ready stops for a player whose clock ran out this many times in a row
# (away, with the page open): like Poker's sitting out after missed turns.
AWAY_AFTER_TIMEOUTS = 2


def ready_by_itself(work: TableWork, seat: Seat) -> bool:
    """At the end of a hand: whether the server readies this seat for the
    next one (its switch is on, the player's page is open, they did not let
    their clock run out ``AWAY_AFTER_TIMEOUTS`` times in a row, and the
    wallet covers the table's minimum balance, held again here)."""
    if not (seat.auto_ready and seat.connected) or seat.leaving or seat.leave_after_hand:
        return False
    if seat.timeouts >= AWAY_AFTER_TIMEOUTS:
        return False
    try:
        with work.attempt():
            work.money.ready(work, seat)
    except NotEnoughChips:
        return False
    return True


def short_of_chips(work: TableWork, seat: Seat) -> bool:
    """The player lacks the chips to be dealt in (the game's money model)."""
    return work.money.short(work, seat)


def _check_seed(work: TableWork, user_id: int, client_seed: object, commitment: object) -> str:
    """A player's seed for the next hand, refused unless it is 1 to 64
    characters, answers the table's next commitment (``commitment`` None: the
    one current when it arrives, for clients that do not say) and was never
    used by this player before."""
    try:
        seed = fairness.check_client_seed(client_seed)
    except RulesError:
        raise BadClientSeed() from None
    if not seed:
        raise BadClientSeed()
    current = work.table.next_commitment
    if commitment is not None and commitment != current:
        raise StaleCommitment(commitment=current)
    if sql.seed_used(user_id, seed):
        raise SeedReused()
    return seed


@retried
def table_seed(
    *, table_id: int, user: User, client_seed: object, commitment: object
) -> dict[str, Any]:
    """The player's seed for the next hand, sent for the commitment it answers
    (docs/fairness.md). Sending again before the deal replaces it."""
    work = TableWork(table_id)
    # The seats in short (one statement, no names, no chips): a seed shows in
    # no state, so nothing is published unless it lets the deal go ahead.
    ref = work.require_ref(user)
    if work.table.status == Table.Status.CLOSED:
        raise TableClosed()
    if not isinstance(commitment, str):
        raise StaleCommitment(commitment=work.table.next_commitment)
    seed = _check_seed(work, ref.user_id, client_seed, commitment)
    # (Written with the change; a seed shows in no state: no new version.)
    work.update_seat(ref, client_seed=seed, seed_commitment=work.table.next_commitment)
    if work.table.clock == Table.Clock.SEEDS:
        maybe_deal(work)  # the seed the deal was waiting for (it reads the seats anew)
    work.commit()
    return {"commitment": commitment}


@retried
def table_ready(
    *, table_id: int, user: User, client_seed: str = "", commitment: str | None = None
) -> None:
    work = TableWork(table_id)
    seat = work.require_seat(user)
    _ready(work, seat, client_seed, commitment)
    work.commit()


def _ready(work: TableWork, seat: Seat, client_seed: object, commitment: object = None) -> None:
    table = work.table
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    seed = None
    # "" (or no seed): keep the one sent, or the server draws one. The browser
    # presses Ready with the seed it sent for this commitment: the seat holds
    # it already, checked when it came, and nothing is read or written again.
    held = (
        client_seed == seat.client_seed
        and seat.seed_commitment == table.next_commitment
        and commitment in (None, table.next_commitment)
    )
    if client_seed != "" and not held:
        seed = _check_seed(work, seat.user_id, client_seed, commitment)
    work.money.ready(work, seat)  # else NotEnoughChips
    if seat.leaving:
        raise HandInProgress()
    # Ready for the next hand: no longer leaving after this one (and the new
    # seed stored with it), written with the change's one write.
    fields: dict[str, Any] = {
        "ready": True,
        "sitting_out": False,
        "timeouts": 0,
        "leave_after_hand": False,
    }
    if seed is not None:
        fields.update(client_seed=seed, seed_commitment=table.next_commitment)
    work.update_seat(seat, **fields)
    ready_clock(work)
    maybe_deal(work)


def ready_clock(work: TableWork) -> None:
    """docs/rules.md 2.7: once a seated player is ready, the others have the ready
    clock to be ready too; it stops when everyone is."""
    table = work.table
    waiting = [s for s in work.seats if not s.sitting_out and not s.leaving]
    if (
        table.status == Table.Status.WAITING
        and not work.plugin.keeps_ready
        and not work.money.holds_seats
        and not table.clock
        and any(s.ready for s in waiting)
        and not all(s.ready for s in waiting)
    ):
        work.set_clock(Table.Clock.READY, table.ready_seconds * 1000)
        # A hand is about to start: the people not ready yet are told (push).
        work.push_notice(
            push_notices.HAND, {s.user_id for s in waiting if not s.ready and not s.is_bot}
        )
    if all(s.ready for s in waiting) and table.clock == Table.Clock.READY:
        work.clear_clock()


def _bot_top_up(work: TableWork, seat: Seat) -> None:
    """A bot short of chips to play on borrows again from the house (and
    brings them to its seat)."""
    needed, buy_in = _bot_needs(work)
    _bot_fund(work, seat.user, needed)
    work.money.bot_top_up(work, seat, buy_in)


@retried
def table_bot_ready(*, table_id: int, position: int) -> None:
    work = TableWork(table_id)
    seat = next((s for s in work.seats if s.position == position and s.is_bot), None)
    if seat is None or seat.ready or seat.leaving or work.table.status == Table.Status.CLOSED:
        return
    try:
        try:
            with work.attempt():
                _ready(work, seat, "")  # a bot's seed is drawn at the deal (play.contributions)
        except NotEnoughChips:
            with work.attempt():
                _bot_top_up(work, seat)
                _ready(work, seat, "")
    except (NotEnoughChips, NoBotAvailable):
        free_seat(work, seat, Departure.Reason.NO_CHIPS)
    work.commit()


def socket_open(
    *, table_id: int, user: User | None, invite_code: str = ""
) -> tuple[dict[str, Any], bool]:
    """A socket opens at the table (``user``: signed in, or None): the user's
    seat, if they have one, counts it (others see the player connected), then
    the state the socket starts from is read, showing that. Returns the state
    and whether the socket was counted at a seat. A spectator's opening takes
    no lock and writes nothing, but the invitation of a signed-in player who
    opened a private table with its code (``invite_redeem``)."""
    counted = False
    if user is not None and sql.seat_position(table_id, user.pk) is not None:
        seat_presence(table_id=table_id, user=user, delta=1)
        counted = True
    elif invite_code:
        invite_redeem(table_id=table_id, user=user, invite_code=invite_code)
    return selectors.table_state(table_id=table_id, user=user, invite_code=invite_code), counted


def sockets_heartbeat(asked: list[tuple[int, User | None]]) -> list[int | None]:
    """Sockets' heartbeats (a process's, together: games.heartbeats): the seat
    of each ``user`` (a seated player's socket; None for another) is seen now,
    and each table's version is read (has the socket fallen behind?). Two
    statements whatever their number; a seat that looked gone comes back
    through ``seat_presence``, which others see. One answer per ask, in
    order: the table's version, or None (no table)."""
    now = clock.now()
    recently = now - timedelta(seconds=Seat.PRESENCE_TIMEOUT_S)
    seated = [(table_id, user.pk) for table_id, user in asked if user is not None]
    alive = sql.seats_alive(seated, now, recently)
    versions = sql.table_versions([table_id for table_id, _user in asked])
    gone = {
        (table_id, user.pk): user
        for table_id, user in asked
        if user is not None and table_id in versions and (table_id, user.pk) not in alive
    }
    for (table_id, _pk), user in gone.items():
        with contextlib.suppress(ServiceError):  # (the table or the account went meanwhile)
            seat_presence(table_id=table_id, user=user, delta=0)
    if gone:  # (their tables' versions moved: others were told)
        versions.update(sql.table_versions([table_id for table_id, _pk in gone]))
    return [versions.get(table_id) for table_id, _user in asked]


@retried
def seat_presence(*, table_id: int, user: User, delta: int) -> None:
    """A socket of a seated player connected (+1), closed (-1), or is alive (0:
    a heartbeat whose seat looked gone, ``sockets_heartbeat``; others see it
    come back)."""
    work = TableWork(table_id)
    seat = work.seat_of(user)
    if seat is None:
        return
    # (Nothing changes for a heartbeat that found the seat connected after
    # all, another socket's opening having just seen it.)
    if delta or not seat.connected:
        _presence(work, seat, delta)
        work.commit()


def _presence(work: TableWork, seat: Seat, delta: int) -> None:
    """A socket of the seat's player connected (+1), closed (-1) or is alive (0)."""
    connections = max(0, seat.connections + delta) if delta else max(1, seat.connections)
    work.update_seat(seat, connections=connections, last_seen=clock.now())


@retried
def table_buy_in(*, table_id: int, user: User, amount: object) -> None:
    """Hold'em: add chips to the stack between hands, up to the maximum buy-in."""
    work = TableWork(table_id)
    seat = work.require_seat(user)
    work.money.top_up(work, seat, amount)  # bad_action: the game has no buy-in
    work.commit()
