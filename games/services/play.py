"""Hands: dealing, moves, time-outs, bot moves and the end of a hand."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from games import clock
from games import seeds as seed_source
from games.errors import BadAction, IllegalMove, NoHand, NotSeated, StaleVersion
from games.models import Hand, HandPlayer, Seat, Table, TableSeed
from games.rules.errors import RulesError
from games.rules.game import Event, Status
from vipgame.accounts.models import User
from wallet.models import Account

from .core import TableTx

logger = logging.getLogger(__name__)
CLIENT_IDS_KEPT = 32


# Whose a hand's client seed was (Hand.seed_sources, docs/fairness.md).
SEED_PLAYER, SEED_BOT, SEED_SERVER = "player", "bot", "server"


def has_seed(seat: Seat, table: Table) -> bool:
    """The seat sent a seed for the table's next hand (the commitment it answers
    is still the table's next one)."""
    return bool(seat.client_seed) and seat.seed_commitment == table.next_commitment


def contributions(table: Table, players: list[Seat]) -> tuple[list[str], list[str]]:
    """Each player's client seed for the hand about to be dealt, and whose it is.

    A player's own seed counts only if it answers this hand's commitment (so it
    was fixed after the commitment was published) and the player never used it
    before; otherwise, and for bots, a fresh one is drawn from the OS CSPRNG now,
    after the commitment and before the deal. Never empty, never reused."""
    sent = {s.user_id: s.client_seed for s in players if not s.is_bot and has_seed(s, table)}
    used = set(
        HandPlayer.objects.filter(user_id__in=sent, client_seed__in=sent.values()).values_list(
            "user_id", "client_seed"
        )
    )
    seeds, sources = [], []
    for seat in players:
        seed = sent.get(seat.user_id)
        if seat.is_bot:
            seeds.append(seed_source.drawn_seed())
            sources.append(SEED_BOT)
        elif seed and (seat.user_id, seed) not in used:
            seeds.append(seed)
            sources.append(SEED_PLAYER)
        else:
            seeds.append(seed_source.drawn_seed())
            sources.append(SEED_SERVER)
    return seeds, sources


def _await_seeds(tx: TableTx, players: list[Seat]) -> bool:
    """Whether to wait a moment for the seed of a connected player: everyone is
    ready, but a seed sent for the next commitment may still be on its way (the
    first hand after sitting, a lost message). The wait ends as soon as every
    such seed is in, or after SEED_GRACE_MS, when the server draws the missing
    ones. Players without an open socket are not waited for."""
    grace = settings.SEED_GRACE_MS
    table = tx.table
    missing = [s for s in players if not s.is_bot and s.connected and not has_seed(s, table)]
    if not missing or grace <= 0:
        return False
    if table.clock != Table.Clock.SEEDS:
        tx.set_clock(Table.Clock.SEEDS, grace)
    return True


def _escrow_stacks(tx: TableTx, positions: list[int]) -> list[int]:
    keys = [f"seat:{tx.table.pk}:{p}" for p in positions]
    balances = dict(Account.objects.filter(key__in=keys).values_list("key", "balance"))
    return [balances.get(k, 0) for k in keys]


def maybe_deal(tx: TableTx, *, seeds_waited: bool = False) -> None:
    """Deal when every seated player (at least two) is ready and the last hand
    is settled (after a short wait for a seed still on its way, see _await_seeds)."""
    table = tx.table
    if table.status != Table.Status.WAITING:
        return
    if tx.hand is not None and not tx.hand.settled:
        return
    players = [s for s in tx.seats if not s.sitting_out and not s.leaving]
    if len(players) < 2 or not all(s.ready for s in players):
        return
    if all(s.is_bot for s in players):
        return  # bots wait for a person: a table of bots alone would play forever
    if not seeds_waited and _await_seeds(tx, players):
        return
    if table.clock == Table.Clock.SEEDS:
        tx.clear_clock()
    adapter, engine = tx.adapter, tx.adapter.engine
    number = table.hands_played + 1
    client_seeds, seed_sources = contributions(table, players)
    secret = TableSeed.objects.get(table=table)
    seed = bytes.fromhex(secret.server_seed)
    fair_id = f"{table.pk}-{number}"
    deck, draws = seed_source.deal(
        seed, fair_id, client_seeds, adapter.fair_bounds(table, len(players))
    )
    stacks = _escrow_stacks(tx, [s.position for s in players]) if adapter.uses_escrow else []
    setup = adapter.setup(table, players, draws, stacks)
    state, events = engine.start(adapter.ruleset(table), deck, len(players), setup)
    hand = Hand.objects.create(
        table=table,
        number=number,
        game=table.game,
        commitment=table.next_commitment,
        server_seed=secret.server_seed,
        client_seeds=client_seeds,
        seed_sources=seed_sources,
        players=[
            {
                "position": s.position,
                "user_id": s.user_id,
                "name": s.user.shown_name,
                "bot": s.is_bot,
            }
            for s in players
        ],
        setup=setup,
        state=engine.dumps(state),
    )
    tx.dealt = True
    HandPlayer.objects.bulk_create(
        HandPlayer(
            hand=hand, user_id=s.user_id, index=i, position=s.position, client_seed=client_seeds[i]
        )
        for i, s in enumerate(players)
    )
    table.hands_played = number
    table.status = Table.Status.PLAYING
    secret.server_seed, table.next_commitment = seed_source.new_seed()
    secret.save(update_fields=["server_seed"])
    for seat in players:
        seat.client_seed, seat.seed_commitment = "", ""
        seat.save(update_fields=["client_seed", "seed_commitment"])
    tx.set_hand(hand, state)
    tx.lobby_changed = True
    tx.record([Event("hand_started", {"number": number, "commitment": hand.commitment}), *events])
    advance(tx, None, restart_clock=True)


def advance(tx: TableTx, before: Status | None, *, restart_clock: bool) -> None:
    """After the hand's state changed: finish it, or (re)start the right clock."""
    engine, table = tx.adapter.engine, tx.table
    status = engine.status(tx.state)
    same_clock = (
        before is not None
        and before.clock == status.clock
        and before.phase == status.phase
        and (status.clock != Table.Clock.TURN or before.actors == status.actors)
    )
    if not same_clock:
        # A move decided before this version is stale: a new phase or a new turn.
        # (Mậu Binh players arrange at once: one's submission leaves the others' valid.)
        table.hand_version = table.version
    if status.finished:
        finish_hand(tx)
        return
    seats = tx.hand_seats()
    tx.bots_to_move = {seats[i].position for i in status.actors if seats[i].is_bot}
    if status.clock is None:
        tx.clear_clock()
    elif restart_clock or not same_clock:
        durations: dict[str, int] = {
            Table.Clock.ARRANGE: table.arrange_seconds,
            Table.Clock.REVEAL: table.reveal_seconds,
            Table.Clock.TURN: table.turn_seconds,
        }
        seconds = durations[status.clock]
        extra = tx.adapter.extra_clock_ms(tx.state, status.actors[0]) if status.actors else 0
        tx.set_clock(status.clock, seconds * 1000 + extra)


def finish_hand(tx: TableTx) -> None:
    hand, table = tx.hand, tx.table
    assert hand is not None
    outcome = tx.adapter.engine.outcome(tx.state)
    hand.ended_at = clock.now()
    hand.result = {
        "net_units": list(outcome.net),
        "payments": [
            {"from": p.payer, "to": p.payee, "amount": p.amount, "reason": p.reason, **p.detail}
            for p in outcome.payments
        ],
        "summary": outcome.summary,
    }
    seats = tx.hand_seats()
    tx.adapter.after_hand(table, seats, outcome, hand.setup)
    for seat in seats:
        seat.save()
    table.status = Table.Status.SUMMARY
    tx.finished = True
    tx.bots_to_move = set()
    tx.lobby_changed = True
    tx.to_settle = hand.pk
    tx.set_clock(Table.Clock.SUMMARY, table.summary_seconds * 1000)


def _apply(tx: TableTx, player: int, call: Any) -> list[Event]:
    try:
        tx.state, events = call()
    except RulesError as err:
        raise IllegalMove(err) from None
    return list(events)


@transaction.atomic
def table_act(
    *,
    table_id: int,
    user: User,
    action: Any,
    client_id: str | None = None,
    version: int | None = None,
) -> dict[str, Any]:
    """A player's move. Returns ``{"duplicate": bool, "v": version}``.

    A client id already applied is acknowledged again and not applied twice; an
    action based on a state older than the hand's last change is refused.
    """
    if not isinstance(action, dict):
        raise BadAction()
    tx = TableTx(table_id)
    seat = tx.require_seat(user)
    if client_id is not None and client_id in seat.recent_client_ids:
        return {"duplicate": True, "v": tx.table.version}
    hand = tx.hand
    if hand is None or hand.finished:
        raise NoHand()
    if version is not None and version < tx.table.hand_version:
        raise StaleVersion()
    player = tx.player_index(seat)
    if player is None:
        raise NotSeated()
    engine = tx.adapter.engine
    before = engine.status(tx.state)
    started = tx.table.clock_started_at
    elapsed_ms = 0 if started is None else int((clock.now() - started).total_seconds() * 1000)
    events = _apply(tx, player, lambda: engine.apply(tx.state, player, action, elapsed_ms))
    if client_id is not None:
        seat.recent_client_ids = [*seat.recent_client_ids, client_id][-CLIENT_IDS_KEPT:]
        seat.save(update_fields=["recent_client_ids"])
    tx.record(events)
    tx.move_by = "player"
    advance(tx, before, restart_clock=False)
    tx.finish()
    return {"duplicate": False, "v": tx.table.version}


def bot_seed(hand: Hand, version: int, position: int) -> int:
    digest = hashlib.sha256(f"{hand.server_seed}:{version}:{position}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@transaction.atomic
def table_bot_move(*, table_id: int, hand_id: int, position: int) -> bool:
    """A bot's move from its own seat view only. Does nothing if it is not the
    bot's move any more (the task is safe to run twice)."""
    tx = TableTx(table_id)
    hand = tx.hand
    if hand is None or hand.pk != hand_id or hand.finished:
        return False
    seat = next((s for s in tx.seats if s.position == position and s.is_bot), None)
    player = None if seat is None else tx.player_index(seat)
    engine = tx.adapter.engine
    before = engine.status(tx.state)
    if player is None or player not in before.actors:
        return False
    view = engine.view(tx.state, player)
    action = engine.bot_action(view, bot_seed(hand, tx.table.version, position))
    try:
        tx.state, events = engine.apply(tx.state, player, action, 0)
    except RulesError:
        # A bug in a bot policy must not stop the table: its clock still runs out.
        logger.exception("bot %s made an illegal move at table %s", position, table_id)
        return False
    tx.record(list(events))
    tx.move_by = "bot"
    advance(tx, before, restart_clock=False)
    tx.finish()
    return True


def hand_timeout(tx: TableTx) -> None:
    engine = tx.adapter.engine
    before = engine.status(tx.state)
    tx.state, events = engine.timeout(tx.state)
    tx.record(list(events))
    tx.move_by = "timeout"
    advance(tx, before, restart_clock=True)


def table_bots_due(*, after_ms: int = 4000) -> list[tuple[int, int, int]]:
    """(table, hand, position) of bots whose move is overdue (a lost task)."""
    from games.models import Seat

    from .tables import bot_tables_stalled

    due = []
    for table in Table.objects.filter(pk__in=bot_tables_stalled(after_ms=after_ms)).select_related(
        "current_hand"
    ):
        hand = table.current_hand
        if hand is None or hand.ended_at is not None:
            continue
        engine = _engine(table.game)
        try:
            actors = engine.status(engine.loads(hand.state)).actors
        except Exception:
            # One table whose state cannot be read must not stop the others.
            logger.exception("table %s: hand %s cannot be read", table.pk, hand.pk)
            continue
        bots = set(Seat.objects.filter(table=table, is_bot=True).values_list("position", flat=True))
        due += [
            (table.pk, hand.pk, hand.players[i]["position"])
            for i in actors
            if hand.players[i]["position"] in bots
        ]
    return due


def _engine(game: str) -> Any:
    from games.adapters import engine_for

    return engine_for(game)
