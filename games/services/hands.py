"""Hands: the deal, every change of a hand's state (moves, bot moves,
time-outs, a player leaving) and the end of a hand.

Imports only the unit of work: seats, settlement and tables build on this.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings

from accounts.models import User
from games import clock, publish
from games import seeds as seed_source
from games.errors import BadAction, IllegalMove, NoHand, NotSeated, StaleVersion
from games.models import Hand, HandPlayer, Seat, Table, TableSeed
from games.plugins import FEWEST_PLAYERS
from games.rules.errors import RulesError
from games.rules.game import HandStartedEvent, Status, event
from kernel.retry import retried
from push import notices as push_notices

from .work import TableWork

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


def _await_seeds(work: TableWork, players: list[Seat]) -> bool:
    """Whether to wait a moment for the seed of a connected player: everyone is
    ready, but a seed sent for the next commitment may still be on its way (the
    first hand after sitting, a lost message). The wait ends as soon as every
    such seed is in, or after SEED_GRACE_MS, when the server draws the missing
    ones. Players without an open socket are not waited for."""
    grace = settings.SEED_GRACE_MS
    table = work.table
    missing = [s for s in players if not s.is_bot and s.connected and not has_seed(s, table)]
    if not missing or grace <= 0:
        return False
    if table.clock != Table.Clock.SEEDS:
        work.set_clock(Table.Clock.SEEDS, grace)
    return True


def maybe_deal(work: TableWork, *, seeds_waited: bool = False) -> None:
    """Deal when every seated player (at least two) is ready and the last hand
    is settled (after a short wait for a seed still on its way, see _await_seeds)."""
    table = work.table
    if table.status != Table.Status.WAITING:
        return
    if work.hand is not None and not work.hand.settled:
        return
    players = [s for s in work.seats if not s.sitting_out and not s.leaving]
    if len(players) < FEWEST_PLAYERS or not all(s.ready for s in players):
        return
    if all(s.is_bot for s in players) and not work.money.holds_seats:
        return  # bots wait for a person: a table of bots alone would play forever
        # (a tournament's bots play it out: it ends when one is left)
    if not seeds_waited and _await_seeds(work, players):
        return
    if table.clock == Table.Clock.SEEDS:
        work.clear_clock()
    plugin, engine = work.plugin, work.plugin.engine
    number = table.hands_played + 1
    client_seeds, seed_sources = contributions(table, players)
    secret = TableSeed.objects.get(table=table)
    seed = bytes.fromhex(secret.server_seed)
    fair_id = f"{table.pk}-{number}"
    deck, draws = seed_source.deal(
        seed, fair_id, client_seeds, plugin.fair_bounds(table, len(players))
    )
    work.money.before_deal(work)  # (a tournament's level: the stake, the blinds)
    stacks = work.money.stacks(work, [s.position for s in players])
    setup = plugin.setup(table, players, draws, stacks)
    state, events = engine.start(plugin.ruleset(table), deck, len(players), setup)
    status = engine.status(state)
    hand = Hand(
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
        stake=table.stake,
    )
    # (TableSeed is the server's secret, its own row: no state shows it.)
    secret.server_seed, next_commitment = seed_source.new_seed()
    secret.save(update_fields=["server_seed"])
    work.deal(
        hand,
        [
            HandPlayer(user_id=s.user_id, index=i, position=s.position, client_seed=client_seeds[i])
            for i, s in enumerate(players)
        ],
        state,
        [
            event(HandStartedEvent(type="hand_started", number=number, commitment=hand.commitment)),
            *events,
        ],
        status,
    )
    work.update_table(
        hands_played=number, status=Table.Status.PLAYING, next_commitment=next_commitment
    )
    # The seeds are used up: cleared in the change's one write (which also
    # holds a seed that came with the Ready that dealt: this clears it).
    work.update_seats({seat.pk: {"client_seed": "", "seed_commitment": ""} for seat in players})
    advance(work, None, status, restart_clock=True)


def play(
    work: TableWork,
    change: Callable[[Any], tuple[Any, Any]],
    *,
    by: str | None,
    restart_clock: bool = False,
    before: Status | None = None,
) -> None:
    """One change of the hand's state: ``change(state) -> (state, events)`` (a
    move, a bot's move, a time-out, a player leaving), its events recorded and
    the hand advanced. A move the rules refuse raises ``IllegalMove`` and
    changes nothing."""
    engine = work.plugin.engine
    if before is None:
        before = engine.status(work.state)
    try:
        state, events = change(work.state)
    except RulesError as err:
        raise IllegalMove(err) from None
    # The engine's status after the move, once: the clock, the end of the
    # hand and the publication all read it.
    status = engine.status(state)
    work.move(state, list(events), status)
    if by is not None:
        work.moved_by(by)
    advance(work, before, status, restart_clock=restart_clock)


def advance(work: TableWork, before: Status | None, status: Status, *, restart_clock: bool) -> None:
    """After the hand's state changed (``status``: the engine's of the new
    state): finish it, or (re)start the right clock."""
    table = work.table
    kind = None if status.clock is None else work.plugin.engine.clocks[status.clock]
    same_clock = (
        before is not None
        and before.clock == status.clock
        and before.phase == status.phase
        and (kind is None or not kind.per_actor or before.actors == status.actors)
    )
    if not same_clock:
        # A move decided before this version is stale: a new phase or a new turn.
        # (A clock the actors share runs on: one's move leaves the others' valid.)
        work.update_table(hand_version=table.version)
    if status.finished:
        finish_hand(work)
        return
    refs = work.hand_refs()
    work.bots_to_move({refs[i].position for i in status.actors if refs[i].is_bot})
    if not same_clock:
        # A new turn: its players are told if they want push (after commit).
        actors = {refs[i].user_id for i in status.actors if not refs[i].is_bot}
        work.push_notice(push_notices.TURN, actors)
    if status.clock is None:
        work.clear_clock()
    elif restart_clock or not same_clock:
        # The engine's clock, as long as the table's knob (or column) says.
        ms = work.plugin.clock_ms(table, status.clock)
        extra = work.plugin.extra_clock_ms(work.state, status.actors[0]) if status.actors else 0
        work.set_clock(status.clock, ms + extra)


def finish_hand(work: TableWork) -> None:
    hand, table = work.hand, work.table
    assert hand is not None
    plugin, refs = work.plugin, work.hand_refs()
    outcome = plugin.engine.outcome(work.state)
    work.finish_hand(publish.hand_result(table.game, work.unit(), outcome))
    work.update_seats(plugin.after_hand(table, refs, outcome, hand.setup))
    carry = plugin.table_carry(table, refs, outcome, hand.setup)
    work.update_table(status=Table.Status.SUMMARY, carry=carry)
    work.set_clock(Table.Clock.SUMMARY, table.summary_seconds * 1000)


@retried
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
    work = TableWork(table_id)
    work.load_move(user.pk)
    seat = work.require_ref(user)
    if client_id is not None and client_id in seat.recent_client_ids:
        return {"duplicate": True, "v": work.table.version}
    hand = work.hand
    if hand is None or hand.finished:
        raise NoHand()
    if version is not None and version < work.table.hand_version:
        raise StaleVersion()
    player = work.player_index(seat)
    if player is None:
        raise NotSeated()
    engine = work.plugin.engine
    started = work.table.clock_started_at
    elapsed_ms = 0 if started is None else int((clock.now() - started).total_seconds() * 1000)
    play(work, lambda state: engine.apply(state, player, action, elapsed_ms), by="player")
    if client_id is not None:
        work.remember_client_id(seat, client_id, CLIENT_IDS_KEPT)
    work.commit()
    return {"duplicate": False, "v": work.table.version}


def bot_seed(hand: Hand, version: int, position: int) -> int:
    digest = hashlib.sha256(f"{hand.server_seed}:{version}:{position}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@retried
def table_bot_move(*, table_id: int, hand_id: int, position: int) -> bool:
    """A bot's move from its own seat view only. Does nothing if it is not the
    bot's move any more (the task is safe to run twice)."""
    work = TableWork(table_id)
    work.load_move()
    hand = work.hand
    if hand is None or hand.pk != hand_id or hand.finished:
        return False
    seat = next((r for r in work.refs if r.position == position and r.is_bot), None)
    player = None if seat is None else work.player_index(seat)
    engine = work.plugin.engine
    before = engine.status(work.state)
    if player is None or player not in before.actors:
        return False
    action = engine.bot_action(
        engine.view(work.state, player), bot_seed(hand, work.table.version, position)
    )
    try:
        play(work, lambda state: engine.apply(state, player, action, 0), by="bot", before=before)
    except IllegalMove:
        # A bug in a bot policy must not stop the table: its clock still runs out.
        logger.exception("bot %s made an illegal move at table %s", position, table_id)
        return False
    work.commit()
    return True


def hand_timeout(work: TableWork) -> None:
    """An engine's clock (a turn, a phase) ran out: the engine's time-out rule
    (and the players it ran for count one more time-out in a row)."""
    refs, engine = work.hand_refs(), work.plugin.engine
    before = engine.status(work.state)
    # (first: the end of a hand may set them from the engine's own count)
    work.timed_out([refs[i] for i in before.actors])
    play(work, engine.timeout, by="timeout", restart_clock=True, before=before)


def hand_leave(work: TableWork, player: int) -> None:
    """A player leaves mid-hand: the engine's leave rule."""
    play(work, lambda state: work.plugin.engine.leave(state, player), by=None)
