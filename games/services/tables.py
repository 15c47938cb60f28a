"""Tables and seats: create, sit, ready, leave, bots, chat, presence, clocks."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from games import clock, publish
from games import seeds as seed_source
from games.adapters import SEAT_LIMITS
from games.errors import (
    AlreadySeated,
    BadBuyIn,
    BadChat,
    BadClientSeed,
    ChatMuted,
    HandInProgress,
    NoBotAvailable,
    NoBotSeat,
    NoSuchSeat,
    NotEnoughChips,
    PrivateTable,
    SeatTaken,
    SeedReused,
    StaleCommitment,
    TableClosed,
    TableFull,
    TooManyBots,
    TooManyTables,
)
from games.limits import check_table
from games.models import ChatMessage, Game, HandPlayer, Seat, Table, TableSeed
from games.rules import fairness
from games.rules.errors import RulesError
from vipgame.accounts.models import User
from vipgame.accounts.services import bot_create
from vipgame.errors import PermissionDenied
from wallet import services as wallet
from wallet.errors import InsufficientChips
from wallet.models import Account, Hold

from .core import TableTx
from .play import hand_timeout, maybe_deal

SEAT_HOLD_TTL = timedelta(days=7)
BOT_NAMES = ["An", "Bình", "Châu", "Dũng", "Giang", "Hải", "Khoa", "Linh", "Mai", "Nam", "Phúc"]


def seat_key(table: Table, position: int) -> str:
    return f"{table.pk}:{position}"


def min_balance(table: Table) -> int:
    return table.min_balance_units * table.stake


@transaction.atomic
def table_create(
    *,
    owner: User | None,
    game: str,
    stake: int,
    seat_count: int | None = None,
    preset: str = "vipgame",
    options: dict[str, Any] | None = None,
    name: str = "",
    is_private: bool = False,
    max_raise: int | None = None,
    buy_in_min: int = 20,
    buy_in_max: int = 100,
    fill_with_bots: bool = False,
    **timers: int,
) -> Table:
    check_table(
        game=game,
        preset=preset,
        options=options,
        stake=stake,
        seat_count=SEAT_LIMITS[game][1]
        if seat_count is None and game in SEAT_LIMITS
        else seat_count,
        max_raise=max_raise,
        buy_in_min=buy_in_min,
        buy_in_max=buy_in_max,
        **timers,
    )
    seats = SEAT_LIMITS[game][1] if seat_count is None else seat_count
    if owner is not None:
        limit_open_tables(owner)
    seed, commitment = seed_source.new_seed()
    table = Table.objects.create(
        game=game,
        name=name[:60],
        preset=preset,
        options=options or {},
        stake=stake,
        seat_count=seats,
        max_raise=max_raise if game == Game.HOLDEM else None,
        buy_in_min=buy_in_min,
        buy_in_max=buy_in_max,
        fill_with_bots=fill_with_bots,
        is_private=is_private,
        invite_code=secrets.token_urlsafe(8) if is_private else "",
        owner=owner,
        next_commitment=commitment,
        **timers,
    )
    TableSeed.objects.create(table=table, server_seed=seed)
    tx = TableTx(table.pk)
    tx.lobby_changed = True
    tx.bump()
    tx.finish()
    return table


def _check_open(tx: TableTx, user: User, invite_code: str) -> None:
    table = tx.table
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    if table.is_private and invite_code != table.invite_code and table.owner_id != user.pk:
        raise PrivateTable()


def _free_position(tx: TableTx, position: int | None) -> int:
    taken = {s.position for s in tx.seats}
    if position is None:
        free = [p for p in range(tx.table.seat_count) if p not in taken]
        if not free:
            raise TableFull()
        return free[0]
    if not isinstance(position, int) or not 0 <= position < tx.table.seat_count:
        raise NoSuchSeat()
    if position in taken:
        raise SeatTaken()
    return position


def _take_seat(
    tx: TableTx, user: User, position: int, buy_in: int | None, bot_for: User | None = None
) -> Seat:
    table = tx.table
    hold = None
    if tx.adapter.uses_escrow:
        low, high = table.buy_in_range()
        amount = low if buy_in is None else buy_in
        if not isinstance(amount, int) or isinstance(amount, bool) or not low <= amount <= high:
            raise BadBuyIn(low=low, high=high)
        wallet.seat_buy_in(
            user=user, seat_key=seat_key(table, position), amount=amount,
            key=f"buyin:{table.pk}:{position}:{secrets.token_hex(8)}",
        )  # fmt: skip
    else:
        # The table's minimum balance is held in the wallet while the player
        # sits here: the same chips cannot back a seat at another table.
        hold = _hold_min_balance(table, user)
    seat = Seat.objects.create(
        table=table, position=position, user=user, is_bot=user.is_bot, hold=hold, bot_for=bot_for
    )
    tx.forget_seats()
    tx.bump()
    tx.lobby_changed = True
    return seat


def _hold_min_balance(table: Table, user: User) -> Hold:
    needed = min_balance(table)
    account = wallet.account_for_user(user=user)
    try:
        return wallet.hold_create(
            account=account,
            amount=needed,
            key=f"table:{table.pk}:user:{user.pk}:{secrets.token_hex(8)}",
            expires_at=clock.now() + SEAT_HOLD_TTL,
            reason=f"table #{table.pk}",
        )
    except InsufficientChips:
        raise NotEnoughChips(needed=needed) from None


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


def rehold_seat(tx: TableTx, seat: Seat, *, at_most: int | None = None) -> None:
    """Hold the table's minimum balance again for the next hand (after a
    settlement: what the player still has, up to it)."""
    release_seat_hold(seat)
    needed = min_balance(tx.table)
    account = wallet.account_for_user(user=seat.user)
    amount = min(needed, account.available if at_most is None else at_most)
    seat.hold = None
    if amount > 0:
        seat.hold = wallet.hold_create(
            account=account,
            amount=amount,
            key=f"table:{tx.table.pk}:user:{seat.user_id}:{secrets.token_hex(8)}",
            expires_at=clock.now() + SEAT_HOLD_TTL,
            reason=f"table #{tx.table.pk}",
        )
    seat.save(update_fields=["hold"])


@transaction.atomic
def table_sit(
    *,
    table_id: int,
    user: User,
    position: int | None = None,
    buy_in: int | None = None,
    invite_code: str = "",
) -> Seat:
    tx = TableTx(table_id)
    _check_open(tx, user, invite_code)
    if tx.seat_of(user) is not None:
        raise AlreadySeated()
    seat = _take_seat(tx, user, _free_position(tx, position), buy_in)
    if tx.table.fill_with_bots and not user.is_bot:
        _fill_with_bots(tx, user)
    tx.finish()
    return seat


def _bot_user(tx: TableTx, needed: int) -> User:
    """An idle bot of the pool (at most ``BOT_POOL_SIZE`` accounts, each at one
    table at a time), lent ``needed`` chips by the house."""
    busy = Seat.objects.filter(is_bot=True).values("user")
    bot = (
        User.objects.filter(is_bot=True, is_active=True)
        .exclude(pk__in=busy)
        .order_by("pk")
        .select_for_update(skip_locked=True)
        .first()
    )
    if bot is None:
        count = User.objects.filter(is_bot=True).count()
        if count >= settings.BOT_POOL_SIZE:
            raise NoBotAvailable()
        name = f"{BOT_NAMES[count % len(BOT_NAMES)]} {count // len(BOT_NAMES) + 1}"
        bot = bot_create(username=f"bot-{count + 1}-{secrets.token_hex(3)}", display_name=name)
    _bot_fund(tx, bot, needed)
    return bot


def _bot_fund(tx: TableTx, bot: User, needed: int) -> None:
    """Lend the bot what it lacks of ``needed`` from the house (never issuance)."""
    account = wallet.account_for_user(user=bot)
    if account.available >= needed:
        return
    try:
        wallet.bot_lend(
            bot=bot, amount=needed - account.available,
            key=f"bot-loan:{bot.pk}:{secrets.token_hex(8)}", reason=f"table #{tx.table.pk}",
        )  # fmt: skip
    except InsufficientChips:
        raise NoBotAvailable() from None


def _bot_needs(tx: TableTx) -> tuple[int, int | None]:
    """Chips a bot is lent to sit here, and its Poker buy-in."""
    table = tx.table
    if not tx.adapter.uses_escrow:
        return min_balance(table) * 2, None
    low, high = table.buy_in_range()
    buy_in = min(low * 2, high)
    return buy_in, buy_in


def _add_bot(tx: TableTx, position: int | None = None, *, asked_by: User | None = None) -> Seat:
    if asked_by is not None and not asked_by.is_staff and not asked_by.is_bot:
        asked = Seat.objects.filter(is_bot=True, bot_for=asked_by).exclude(
            table__status=Table.Status.CLOSED
        )
        if asked.count() >= settings.MAX_BOT_SEATS_PER_USER:
            raise TooManyBots(limit=settings.MAX_BOT_SEATS_PER_USER)
    free = _free_position(tx, position)
    needed, buy_in = _bot_needs(tx)
    bot = _bot_user(tx, needed)
    seat = _take_seat(tx, bot, free, buy_in, bot_for=asked_by)
    tx.bots_to_ready.add(seat.position)
    return seat


def _fill_with_bots(tx: TableTx, asked_by: User) -> None:
    wanted = min(tx.table.seat_count, 4)
    while len(tx.seats) < wanted:
        _add_bot(tx, asked_by=asked_by)


@transaction.atomic
def table_add_bot(*, table_id: int, user: User, position: int | None = None) -> Seat:
    """Seat a bot. The table's owner or a player seated there may ask; staff
    may too at a public table. A private table is its owner's and invited
    players' game: anyone else, staff included, gets ``private_table``."""
    tx = TableTx(table_id)
    seated = tx.seat_of(user) is not None
    if not (user.is_staff or tx.table.owner_id == user.pk or seated):
        raise PermissionDenied()
    _check_open(tx, user, tx.table.invite_code if seated else "")
    if len(tx.seats) >= tx.table.seat_count:
        raise NoBotSeat()
    seat = _add_bot(tx, position, asked_by=user)
    tx.finish()
    return seat


def _remove_seat(tx: TableTx, seat: Seat) -> None:
    """Free a seat: Poker stacks back to the wallet, the wallet hold released,
    and a bot's chips back to the house. When the last person leaves a table
    between hands, its bots leave too (their chips and accounts go back to
    the house and the pool; a "play now" table fills again when someone sits)."""
    if not Seat.objects.filter(pk=seat.pk).exists():
        return  # already freed (the bots of a table its last person left)
    if tx.adapter.uses_escrow:
        wallet.seat_cash_out(
            seat_key=seat_key(tx.table, seat.position),
            key=f"cashout:{tx.table.pk}:{seat.position}:{seat.pk}",
        )
    release_seat_hold(seat)
    if seat.is_bot:
        wallet.bot_repay(
            bot=seat.user, key=f"bot-return:{seat.user_id}:{tx.table.pk}:{seat.pk}",
            reason=f"table #{tx.table.pk}",
        )  # fmt: skip
    tx.gone_users.add(seat.user_id)
    seat.delete()
    tx.forget_seats()
    tx.bump()
    tx.lobby_changed = True
    if not seat.is_bot and all(s.is_bot for s in tx.seats):
        hand = tx.hand
        if hand is None or hand.settled:
            for bot in list(tx.seats):
                _remove_seat(tx, bot)


def limit_open_tables(owner: User) -> None:
    """At most ``MAX_OPEN_TABLES_PER_USER`` open tables per player (staff and
    bots are not counted)."""
    if owner.is_staff or owner.is_bot:
        return
    # Two requests at once: the owner's row is the lock that counts them one by one.
    User.objects.select_for_update().filter(pk=owner.pk).first()
    limit = settings.MAX_OPEN_TABLES_PER_USER
    if Table.objects.filter(owner=owner).exclude(status=Table.Status.CLOSED).count() >= limit:
        raise TooManyTables(limit=limit)


def idle_tables() -> list[int]:
    """Open tables where nothing happened for ``TABLE_IDLE_MINUTES`` (no hand
    in play)."""
    minutes = settings.TABLE_IDLE_MINUTES
    if minutes <= 0:
        return []
    limit = clock.now() - timedelta(minutes=minutes)
    return list(
        Table.objects.filter(status=Table.Status.WAITING, active_at__lte=limit).values_list(
            "pk", flat=True
        )
    )


def in_current_hand(tx: TableTx, seat: Seat) -> bool:
    hand = tx.hand
    return hand is not None and not hand.settled and tx.player_index(seat) is not None


@transaction.atomic
def table_leave(*, table_id: int, user: User) -> None:
    """Leave now, or (mid-hand) play on through the engine's leave rule and
    free the seat once the hand is settled."""
    tx = TableTx(table_id)
    seat = tx.require_seat(user)
    if not in_current_hand(tx, seat):
        _remove_seat(tx, seat)
    elif not seat.leaving:
        seat.leaving = True
        seat.ready = False
        seat.save(update_fields=["leaving", "ready"])
        hand = tx.hand
        assert hand is not None
        if not hand.finished:
            from .play import advance

            engine = tx.adapter.engine
            before = engine.status(tx.state)
            player = tx.player_index(seat)
            assert player is not None
            tx.state, events = engine.leave(tx.state, player)
            tx.record(list(events))
            advance(tx, before, restart_clock=False)
        tx.bump()
    tx.finish()


def _check_seed(tx: TableTx, seat: Seat, client_seed: object, commitment: object) -> str:
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
    current = tx.table.next_commitment
    if commitment is not None and commitment != current:
        raise StaleCommitment(commitment=current)
    if HandPlayer.objects.filter(user_id=seat.user_id, client_seed=seed).exists():
        raise SeedReused()
    return seed


def _store_seed(tx: TableTx, seat: Seat, seed: str) -> None:
    seat.client_seed, seat.seed_commitment = seed, tx.table.next_commitment
    seat.save(update_fields=["client_seed", "seed_commitment"])


@transaction.atomic
def table_seed(
    *, table_id: int, user: User, client_seed: object, commitment: object
) -> dict[str, Any]:
    """The player's seed for the next hand, sent for the commitment it answers
    (docs/fairness.md). Sending again before the deal replaces it."""
    tx = TableTx(table_id)
    seat = tx.require_seat(user)
    if tx.table.status == Table.Status.CLOSED:
        raise TableClosed()
    if not isinstance(commitment, str):
        raise StaleCommitment(commitment=tx.table.next_commitment)
    seed = _check_seed(tx, seat, client_seed, commitment)
    _store_seed(tx, seat, seed)
    if tx.table.clock == Table.Clock.SEEDS:
        maybe_deal(tx)  # the seed the deal was waiting for
    tx.finish()
    return {"commitment": seat.seed_commitment}


@transaction.atomic
def table_ready(
    *, table_id: int, user: User, client_seed: str = "", commitment: str | None = None
) -> None:
    tx = TableTx(table_id)
    seat = tx.require_seat(user)
    _ready(tx, seat, client_seed, commitment)
    tx.finish()


def _ready(tx: TableTx, seat: Seat, client_seed: object, commitment: object = None) -> None:
    table = tx.table
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    seed = None
    if client_seed != "":  # "" (or no seed): keep the one sent, or the server draws one
        seed = _check_seed(tx, seat, client_seed, commitment)
    if tx.adapter.uses_escrow:
        stack = (
            Account.objects.filter(key=f"seat:{seat_key(table, seat.position)}")
            .values_list("balance", flat=True)
            .first()
        )
        if not stack:
            raise NotEnoughChips(needed=table.buy_in_range()[0])
    else:
        _hold_for_next_hand(tx, seat)
    if seat.leaving:
        raise HandInProgress()
    if seed is not None:
        _store_seed(tx, seat, seed)
    seat.ready, seat.sitting_out, seat.timeouts = True, False, 0
    seat.save(update_fields=["ready", "sitting_out", "timeouts"])
    tx.bump()
    waiting = [s for s in tx.seats if not s.sitting_out and not s.leaving]
    if (
        table.status == Table.Status.WAITING
        and not tx.adapter.keeps_ready
        and not table.clock
        and not all(s.ready for s in waiting)
    ):
        tx.set_clock(Table.Clock.READY, table.ready_seconds * 1000)
    if all(s.ready for s in waiting) and table.clock == Table.Clock.READY:
        tx.clear_clock()
    maybe_deal(tx)


def _hold_for_next_hand(tx: TableTx, seat: Seat) -> None:
    """Mậu Binh, Tiến Lên: the seat's hold must cover the minimum balance
    before the player is dealt in (after a loss it may hold less)."""
    needed = min_balance(tx.table)
    hold = seat_hold(seat)
    held = 0 if hold is None else hold.amount
    if held >= needed:
        return
    if wallet.account_for_user(user=seat.user).available + held < needed:
        raise NotEnoughChips(needed=needed)
    rehold_seat(tx, seat)


def _bot_top_up(tx: TableTx, seat: Seat) -> None:
    """A bot short of chips to play on borrows again from the house."""
    needed, buy_in = _bot_needs(tx)
    _bot_fund(tx, seat.user, needed)
    if buy_in is not None:
        low, high = tx.table.buy_in_range()
        stack = (
            Account.objects.filter(key=f"seat:{seat_key(tx.table, seat.position)}")
            .values_list("balance", flat=True)
            .first()
            or 0
        )
        if stack < low:
            wallet.seat_buy_in(
                user=seat.user, seat_key=seat_key(tx.table, seat.position),
                amount=min(buy_in, high - stack),
                key=f"buyin:{tx.table.pk}:{seat.position}:{secrets.token_hex(8)}",
            )  # fmt: skip
            seat.sitting_out = False
            seat.save(update_fields=["sitting_out"])
        tx.forget_seats()


@transaction.atomic
def table_bot_ready(*, table_id: int, position: int) -> None:
    tx = TableTx(table_id)
    seat = next((s for s in tx.seats if s.position == position and s.is_bot), None)
    if seat is None or seat.ready or seat.leaving or tx.table.status == Table.Status.CLOSED:
        return
    try:
        try:
            with transaction.atomic():
                _ready(tx, seat, "")  # a bot's seed is drawn at the deal (play.contributions)
        except NotEnoughChips:
            with transaction.atomic():
                _bot_top_up(tx, seat)
                _ready(tx, seat, "")
    except (NotEnoughChips, NoBotAvailable):
        _remove_seat(tx, seat)
    tx.finish()


@transaction.atomic
def table_timeout(*, table_id: int, clock_version: int) -> bool:
    """The table's clock ran out. Safe to call twice or late: it acts only if
    this clock is still the table's clock and its deadline has passed."""
    tx = TableTx(table_id)
    table = tx.table
    if (
        table.clock_version != clock_version
        or table.deadline is None
        or table.deadline > clock.now()
        or table.status == Table.Status.CLOSED
    ):
        return False
    tx.timer_lateness = (table.clock, (clock.now() - table.deadline).total_seconds())
    if table.clock == Table.Clock.READY:
        _ready_timeout(tx)
    elif table.clock == Table.Clock.SEEDS:
        tx.clear_clock()
        maybe_deal(tx, seeds_waited=True)
    elif table.clock == Table.Clock.SUMMARY:
        _summary_over(tx)
    else:
        hand_timeout(tx)
    tx.finish()
    return True


def _ready_timeout(tx: TableTx) -> None:
    """RULES.md 2.7: players not ready when the ready clock runs out leave the table."""
    tx.clear_clock()
    for seat in list(tx.seats):
        if not seat.ready and not seat.is_bot and not seat.sitting_out:
            _remove_seat(tx, seat)
    maybe_deal(tx)


def _summary_over(tx: TableTx) -> None:
    table, hand = tx.table, tx.hand
    if hand is not None and not hand.settled:
        tx.set_clock(Table.Clock.SUMMARY, 1000)
        tx.to_settle = hand.pk
        return
    tx.clear_clock()
    table.status = Table.Status.WAITING
    tx.lobby_changed = True
    for seat in tx.seats:
        if seat.is_bot:
            if not seat.ready or not tx.adapter.keeps_ready:
                seat.ready = False
                tx.bots_to_ready.add(seat.position)
        elif not tx.adapter.keeps_ready:
            seat.ready = False
        seat.save(update_fields=["ready"])
    maybe_deal(tx)


@transaction.atomic
def seat_presence(*, table_id: int, user: User, delta: int) -> None:
    """A socket of a seated player connected (+1), closed (-1), or is alive (0:
    a heartbeat that changes nothing others see unless the seat looked gone)."""
    if delta == 0:
        # The usual heartbeat: the seat is connected and stays so. One UPDATE,
        # no table lock, nothing to tell anyone.
        recently = clock.now() - timedelta(seconds=Seat.PRESENCE_TIMEOUT_S)
        if Seat.objects.filter(
            table_id=table_id, user=user, connections__gt=0, last_seen__gte=recently
        ).update(last_seen=clock.now()):
            return
    tx = TableTx(table_id)
    seat = tx.seat_of(user)
    if seat is None:
        return
    was_connected = seat.connected
    seat.connections = max(0, seat.connections + delta) if delta else max(1, seat.connections)
    seat.last_seen = clock.now()
    seat.save(update_fields=["connections", "last_seen"])
    if delta or not was_connected:
        tx.bump()
    tx.finish()


def chat_post(*, table_id: int, user: User, text: object) -> ChatMessage:
    if not isinstance(text, str) or not 1 <= len(text.strip()) <= 200:
        raise BadChat()
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        from games.errors import TableNotFound

        raise TableNotFound()
    if table.status == Table.Status.CLOSED:
        raise TableClosed()
    muted_until, muted_reason = (
        User.objects.filter(pk=user.pk).values_list("muted_until", "muted_reason").get()
    )
    if muted_until is not None and muted_until > clock.now():
        raise ChatMuted(until=muted_until, reason=muted_reason)
    message = ChatMessage.objects.create(table=table, user=user, text=text.strip())
    payload = {
        "type": "chat",
        "id": message.pk,
        "user_id": user.pk,
        "name": user.shown_name,
        "text": message.text,
        "at": publish.epoch_ms(message.created_at),
    }
    transaction.on_commit(
        lambda: publish.send(
            [(publish.chat_group(table_id), {"type": "table.chat", "payload": payload})]
        ),
        robust=True,
    )
    return message


def sweep(*, grace_ms: int = 1000) -> list[tuple[int, int]]:
    """Clocks that are overdue (a lost or late timer task): (table, clock version)."""
    limit = clock.now() - timedelta(milliseconds=grace_ms)
    return list(
        Table.objects.filter(deadline__lte=limit)
        .exclude(status=Table.Status.CLOSED)
        .values_list("pk", "clock_version")
    )


def timers_to_queue() -> list[tuple[int, int, datetime]]:
    """Clocks that run out within ``TIMER_QUEUE_AHEAD_S`` and have no timer task
    yet: (table, clock version, deadline). Each is marked queued here, once."""
    limit = clock.now() + timedelta(seconds=settings.TIMER_QUEUE_AHEAD_S)
    due = []
    for table_id, version, deadline in (
        Table.objects.filter(deadline__lte=limit, timer_version__lt=F("clock_version"))
        .exclude(status=Table.Status.CLOSED)
        .values_list("pk", "clock_version", "deadline")
    ):
        marked = Table.objects.filter(
            pk=table_id, clock_version=version, timer_version__lt=version
        ).update(timer_version=version)
        if marked and deadline is not None:
            due.append((table_id, version, deadline))
    return due


def bots_unready() -> list[tuple[int, int]]:
    """(table, position) of bots not ready at a table between hands: their
    ready-up task was lost (a broker outage, a worker killed)."""
    return list(
        Seat.objects.filter(
            is_bot=True, ready=False, leaving=False, table__status=Table.Status.WAITING
        ).values_list("table_id", "position")
    )


def bot_tables_stalled(*, after_ms: int = 4000) -> list[int]:
    """Playing tables with a bot seat whose clock has run a while without a move."""
    limit = clock.now() - timedelta(milliseconds=after_ms)
    return list(
        Table.objects.filter(
            Q(status=Table.Status.PLAYING) & Q(clock_started_at__lte=limit) & Q(seats__is_bot=True)
        )
        .distinct()
        .values_list("pk", flat=True)
    )


@transaction.atomic
def table_buy_in(*, table_id: int, user: User, amount: object) -> None:
    """Hold'em: add chips to the stack between hands, up to the maximum buy-in."""
    tx = TableTx(table_id)
    seat = tx.require_seat(user)
    table = tx.table
    if not tx.adapter.uses_escrow:
        from games.errors import BadAction

        raise BadAction()
    if in_current_hand(tx, seat) and tx.hand is not None and not tx.hand.finished:
        raise HandInProgress()
    low, high = table.buy_in_range()
    stack = (
        Account.objects.filter(key=f"seat:{seat_key(table, seat.position)}")
        .values_list("balance", flat=True)
        .first()
        or 0
    )
    if (
        not isinstance(amount, int)
        or isinstance(amount, bool)
        or amount < 1
        or stack + amount > high
    ):
        raise BadBuyIn(low=max(1, low - stack), high=high - stack)
    wallet.seat_buy_in(
        user=user, seat_key=seat_key(table, seat.position), amount=amount,
        key=f"buyin:{table.pk}:{seat.position}:{secrets.token_hex(8)}",
    )  # fmt: skip
    tx.forget_seats()  # the stack it shows grew
    tx.bump()
    tx.finish()


@transaction.atomic
def table_close(*, table_id: int, by: User | None, reason: str = "") -> None:
    """Close a table: a hand in play is voided (no chips have moved during it:
    settlement happens only at its end), a finished hand is settled first,
    every seat is freed and Hold'em stacks go back to the wallets."""
    from .settle import hand_settle

    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        from games.errors import TableNotFound

        raise TableNotFound()
    if by is not None and not by.is_staff and table.owner_id != by.pk:
        raise PermissionDenied()
    if table.status == Table.Status.CLOSED:
        return
    hand = table.current_hand
    if hand is not None and hand.ended_at is not None and not hand.settled:
        hand_settle(hand_id=hand.pk)
    tx = TableTx(table_id)
    hand = tx.hand
    if hand is not None and hand.ended_at is None:
        hand.ended_at = clock.now()
        hand.voided = True
        hand.settled = True
        hand.settled_at = hand.ended_at
        hand.result = {"voided": True, "reason": reason}
        hand.save(update_fields=["ended_at", "voided", "settled", "settled_at", "result"])
        tx.set_hand(hand, tx.state)
    for seat in list(tx.seats):
        _remove_seat(tx, seat)
    tx.table.status = Table.Status.CLOSED
    tx.table.closed_reason = reason[:200]
    tx.clear_clock()
    tx.bump()
    tx.lobby_changed = True
    tx.finish()
