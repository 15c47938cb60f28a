"""The end of a tournament's players: out at zero chips, their places, and
the prize pool paid by place, once (``tournaments.payouts``). Called from a
tournament table's settlement (``tournaments.tables``) and by the services.

Lock order: (the table's row,) the tournament's row, then the wallet accounts.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Max

from games import clock, publish
from kernel import notify
from kernel.ops.isolation import put_off_while_the_database_is_away
from kernel.retry import retried
from wallet import selectors as wallet_selectors
from wallet import services as wallet
from wallet.models import Account, LedgerTransaction

from . import payouts
from .errors import NotPlaying, TournamentNotFound, TournamentOver
from .models import Entry, Tournament, TournamentTable

logger = logging.getLogger(__name__)
Kind = LedgerTransaction.Kind
Status = Tournament.Status


def lobby_row(tournament: Tournament) -> dict[str, Any]:
    """The tournament as the lobby socket shows it (``games.protocol.LobbyTournament``)."""
    taken = (Entry.Status.REGISTERED, Entry.Status.PLAYING, Entry.Status.FINISHED)
    return {
        "id": tournament.pk,
        "kind": tournament.kind,
        "game": tournament.game,
        "seats": tournament.seats,
        "buy_in": tournament.buy_in,
        "fee": tournament.fee,
        "status": tournament.status,
        "registered": Entry.objects.filter(tournament=tournament, status__in=taken).count(),
        "starts_at": None if tournament.starts_at is None else tournament.starts_at.isoformat(),
        "tables": list(
            TournamentTable.objects.filter(tournament=tournament)
            .order_by("pk")
            .values_list("table_id", flat=True)
        ),
    }


def announce(tournament: Tournament) -> None:
    """Tell every lobby socket, once this transaction commits, how the
    tournament stands then (its row read after the commit)."""
    tournament_id = tournament.pk

    # (a database gone at that moment: a warning, not Django's logged traceback
    # of a failed robust callback; the tournament's next change says it again,
    # and a lobby socket reads the whole list when it connects)
    @put_off_while_the_database_is_away(None, logger=logger)
    def announce_tournament() -> None:
        found = Tournament.objects.filter(pk=tournament_id).first()
        if found is not None:
            message = {"type": "lobby.tournament", "tournament": lobby_row(found)}
            notify.send([(publish.LOBBY_GROUP, message)])

    transaction.on_commit(announce_tournament, robust=True)


def _lock(tournament_id: int) -> Tournament:
    found = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if found is None:
        raise TournamentNotFound()
    return found


def _pool(tournament: Tournament) -> Account:
    return wallet.prize_pool_account(key=tournament.pool_key)


def _entry_key(entry: Entry) -> str:
    return f"tournament:{entry.tournament_id}:entry:{entry.pk}"


def _bots_repaid(tournament: Tournament, entries: Sequence[Entry]) -> None:
    """The bots' chips (a prize, a refund) back to the house that lent them."""
    for entry in entries:
        if entry.is_bot:
            wallet.bot_repay(
                bot=entry.player, key=f"{_entry_key(entry)}:return",
                reason=f"tournament {tournament.pk}",
            )  # fmt: skip


@retried
def players_out(*, tournament_id: int, user_ids: Sequence[int]) -> Tournament:
    """These players are at zero tournament chips, out together (one hand): they
    share the best place left for them (``tournaments.payouts``), in the order
    given for the odd chips of a shared prize (the caller's rule: more chips
    before the hand first, then the earlier registration). When one player is
    left they win, and the pool is paid (``tournament_pay``)."""
    tournament = _lock(tournament_id)
    if tournament.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentOver()
    if tournament.status != Status.RUNNING:
        raise NotPlaying()
    playing = {
        e.player_id: e
        for e in Entry.objects.filter(tournament=tournament, status=Entry.Status.PLAYING)
    }
    if not user_ids or len(set(user_ids)) != len(user_ids) or not set(user_ids) <= set(playing):
        raise NotPlaying()
    place = len(playing) - len(user_ids) + 1
    ranked = Entry.objects.filter(tournament=tournament).aggregate(worst=Max("rank"))["worst"]
    # the order of going out (inside a shared place: the order given)
    rank = (ranked or 0) + 1
    for user_id in user_ids:
        entry = playing.pop(user_id)
        entry.status, entry.place, entry.rank = Entry.Status.FINISHED, place, rank
        entry.save(update_fields=["status", "place", "rank"])
        rank += 1
    if len(playing) == 1:
        (winner,) = playing.values()
        winner.status, winner.place, winner.rank = Entry.Status.FINISHED, 1, rank
        winner.save(update_fields=["status", "place", "rank"])
    if not playing or len(playing) == 1:
        _pay(tournament)
    announce(tournament)
    return tournament


def finishing_groups(tournament: Tournament) -> list[list[Entry]]:
    """The finished entries by place, best first; inside a shared place in the
    order given when they went out (who gets a tie's odd chips first)."""
    groups: dict[int, list[Entry]] = {}
    finished = Entry.objects.filter(tournament=tournament, status=Entry.Status.FINISHED)
    for entry in finished.order_by("place", "rank"):
        groups.setdefault(entry.place or 0, []).append(entry)
    return [groups[place] for place in sorted(groups)]


def _accounts(entries: Sequence[Entry]) -> dict[int, int]:
    """The entrants' wallet accounts (each has one: they paid in from it), by
    player, in one statement."""
    return wallet_selectors.user_account_ids(e.player_id for e in entries)


def _pay(tournament: Tournament) -> None:
    """Pay the pool by place, once: ``buy_in`` x entrants, exactly."""
    groups = finishing_groups(tournament)
    entrants = sum(len(g) for g in groups)
    pool = tournament.buy_in * entrants
    won = payouts.split_tied(
        payouts.prizes(pool, entrants), [[e.pk for e in group] for group in groups]
    )
    entries = [entry for group in groups for entry in group]
    accounts = _accounts(entries)
    postings: list[tuple[Account | int, int]] = [(_pool(tournament), -pool)]
    for entry in entries:
        if won[entry.pk] > 0:
            postings.append((accounts[entry.player_id], won[entry.pk]))
        entry.prize = won[entry.pk]
    Entry.objects.bulk_update(entries, ["prize"])
    wallet.ledger_post(
        key=f"tournament:{tournament.pk}:prizes",
        kind=Kind.TOURNAMENT_PRIZE,
        postings=postings,
        reason=f"tournament {tournament.pk}: prizes",
    )
    _bots_repaid(tournament, entries)
    tournament.status = Status.FINISHED
    tournament.ended_at = clock.now()
    tournament.save(update_fields=["status", "ended_at"])
