"""Issue 13 item 1: every hand of every game is dealt from the server seed and a
fresh contribution of every player in it, fixed after that hand's commitment
was published and before the deal; never empty, never reused."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from games import services
from games.errors import BadClientSeed, SeedReused, StaleCommitment
from games.models import Hand, HandPlayer, Seat, Table
from games.rules import fairness
from games.rules.cards import cards_str
from moderation.selectors import hand_inspection
from wallet.models import Account

from ..registry import GAMES, buy_in, seat_count
from ..tables import Harness, statements_run
from .driver import play_until_finished

pytestmark = pytest.mark.django_db


def current_hand(table: Table) -> Hand | None:
    table.refresh_from_db()
    return None if table.current_hand_id is None else Hand.objects.get(pk=table.current_hand_id)


def table_with_bot(make_user: Any, tables: Harness, game: str) -> tuple[Table, list[Any]]:
    """Two people and a bot (one person and a bot at a two-seat game)."""
    people = [make_user() for _ in range(seat_count(game, 3) - 1)]
    table = services.table_create(owner=people[0], game=game, stake=1, seat_count=seat_count(game))
    for user in people:
        services.table_sit(table_id=table.pk, user=user, buy_in=buy_in(game, 200))
    services.table_add_bot(table_id=table.pk, user=people[0])
    tables.drain()  # the bot readies
    table.refresh_from_db()
    return table, people


def seat_seeds(table: Table) -> list[tuple[str, str]]:
    return list(
        Seat.objects.filter(table=table)
        .order_by("position")
        .values_list("client_seed", "seed_commitment")
    )


def end_hand(tables: Harness, table: Table) -> Hand:
    hand = play_until_finished(tables, table)
    tables.drain()
    table.refresh_from_db()
    if table.status == Table.Status.SUMMARY:
        tables.fire(table)  # the summary pause ends: Hold'em deals again here
    tables.drain()
    return hand


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("humans_send", [True, False], ids=["seeds-sent", "no-seeds"])
def test_every_hand_is_dealt_from_a_fresh_seed_of_every_player(
    tables, make_user, game, humans_send
):
    """Three hands in a row (Hold'em seats stay ready between them): each hand's
    client seeds are non-empty, never seen in an earlier hand, the humans' own
    ones exactly those sent for that hand's commitment, the bot's drawn for it;
    a player who sent none gets one drawn by the server, recorded as such."""
    table, humans = table_with_bot(make_user, tables, game)
    earlier: set[str] = set()
    sent: dict[tuple[str, int], str] = {}
    published: list[str] = []

    def send_seeds() -> None:
        """What the page does as soon as it sees a new next_commitment."""
        table.refresh_from_db()
        published.append(table.next_commitment)
        for user in humans if humans_send else []:
            seed = secrets.token_hex(16)
            answer = services.table_seed(
                table_id=table.pk, user=user, client_seed=seed, commitment=table.next_commitment
            )
            assert answer == {"commitment": table.next_commitment}
            sent[(table.next_commitment, user.pk)] = seed

    send_seeds()
    bot_hands = 0
    for number in (1, 2, 3):
        for user in humans:
            seat = Seat.objects.get(table=table, user=user)
            if seat.sitting_out and buy_in(game, 200):  # went broke: buys in again
                services.table_buy_in(table_id=table.pk, user=user, amount=200)
            if not seat.ready:
                services.table_ready(table_id=table.pk, user=user)  # no seed with it
        tables.drain()
        hand = current_hand(table)
        assert hand is not None
        assert hand.number == number
        # Dealt for the commitment published right after the previous deal.
        assert hand.commitment == published[number - 1]
        assert len(hand.players) >= 2
        assert all(isinstance(s, str) and s for s in hand.client_seeds)
        assert not earlier & set(hand.client_seeds), "a seed of an earlier hand was used again"
        assert len(set(hand.client_seeds)) == len(hand.players)
        assert len(hand.seed_sources) == len(hand.players)
        for index, player in enumerate(hand.players):
            seed, source = hand.client_seeds[index], hand.seed_sources[index]
            if player["bot"]:
                assert (source, len(seed)) == ("bot", 32)
            elif humans_send:
                assert (source, seed) == ("player", sent[(hand.commitment, player["user_id"])])
            else:
                assert (source, len(seed)) == ("server", 32)
        # (A Hold'em bot that went broke may sit a hand out while it buys in again.)
        bot_hands += any(p["bot"] for p in hand.players)
        entries = HandPlayer.objects.filter(hand=hand).order_by("index")
        assert list(entries.values_list("client_seed", flat=True)) == hand.client_seeds
        # The seeds were used up: the players' seats wait for new ones for the
        # next commitment (a broke player sitting this hand out keeps theirs).
        dealt_in = {p["user_id"] for p in hand.players}
        used = Seat.objects.filter(table=table, user_id__in=dealt_in)
        assert set(used.values_list("client_seed", "seed_commitment")) == {("", "")}
        earlier |= set(hand.client_seeds)
        send_seeds()
        finished = end_hand(tables, table)
        assert finished.pk == hand.pk
        # The deck really came from these seeds (and the published commitment).
        info = hand_inspection(hand=Hand.objects.get(pk=hand.pk))
        assert info["commitment_ok"]
        assert info["deal_matches_seed"]
        assert info["deck"] == cards_str(
            fairness.deal_deck(bytes.fromhex(hand.server_seed), hand.fair_id, hand.client_seeds)
        )
    assert bot_hands >= 1


def test_the_state_shows_this_hands_seeds_and_whose_they_were(tables, make_user):
    table, (lan, minh) = table_with_bot(make_user, tables, "holdem")
    services.table_seed(
        table_id=table.pk, user=lan, client_seed="lan-1", commitment=table.next_commitment
    )
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    tables.drain()

    from games.selectors import table_state

    state = table_state(table_id=table.pk, user=lan)
    hand = state["hand"]
    assert hand["client_seeds"][0] == "lan-1"
    assert hand["seed_sources"] == ["player", "server", "bot"]
    assert hand["server_seed"] is None
    assert Hand.objects.get(pk=hand["id"]).server_seed not in str(hand)


def snapshot(table: Table) -> tuple[Any, ...]:
    table.refresh_from_db()
    return table.version, table.next_commitment, table.clock, seat_seeds(table)


def test_a_seed_for_an_older_or_unknown_commitment_or_used_before_is_refused(tables, make_user):
    """The attack: a seed fixed before the next commitment was published (it
    answers the previous hand's), for a made-up commitment, or one the player
    already used. Each is refused with its code and changes nothing; the next
    hand is then dealt with a seed the server drew for that player."""
    table, (lan, minh) = table_with_bot(make_user, tables, "holdem")
    first_commitment = table.next_commitment
    services.table_ready(table_id=table.pk, user=lan, client_seed="lan-1")
    services.table_ready(
        table_id=table.pk, user=minh, client_seed="minh-1", commitment=first_commitment
    )
    tables.drain()
    hand = current_hand(table)
    assert hand is not None
    assert hand.client_seeds[:2] == ["lan-1", "minh-1"]
    before = snapshot(table)
    assert before[1] != first_commitment

    attempts: list[tuple[type[Exception], dict[str, Any]]] = [
        (StaleCommitment, {"client_seed": "lan-2", "commitment": first_commitment}),
        (StaleCommitment, {"client_seed": "lan-2", "commitment": "0" * 64}),
        (StaleCommitment, {"client_seed": "lan-2", "commitment": None}),
        (SeedReused, {"client_seed": "lan-1", "commitment": before[1]}),
        (BadClientSeed, {"client_seed": "", "commitment": before[1]}),
        (BadClientSeed, {"client_seed": "x" * 65, "commitment": before[1]}),
        (BadClientSeed, {"client_seed": 42, "commitment": before[1]}),
    ]
    for error, data in attempts:
        with pytest.raises(error):
            services.table_seed(table_id=table.pk, user=lan, **data)
        assert snapshot(table) == before, data
    with pytest.raises(StaleCommitment) as refused:
        services.table_ready(
            table_id=table.pk, user=lan, client_seed="lan-3", commitment=first_commitment
        )
    assert refused.value.as_dict()["details"] == {"commitment": before[1]}
    assert snapshot(table) == before
    with pytest.raises(SeedReused):
        services.table_ready(table_id=table.pk, user=lan, client_seed="lan-1")
    assert snapshot(table) == before

    end_hand(tables, table)
    second = current_hand(table)
    assert second is not None
    assert second.number == 2
    sources = {
        p["user_id"]: source for p, source in zip(second.players, second.seed_sources, strict=True)
    }
    # (A player the first hand left without chips is not dealt in: the deal is random.)
    dealt = [user.pk for user in (lan, minh) if user.pk in sources]
    assert dealt
    assert [sources[pk] for pk in dealt] == ["server"] * len(dealt)
    assert "lan-2" not in second.client_seeds
    assert "lan-1" not in second.client_seeds


def test_a_seed_sent_again_before_the_deal_replaces_the_first(tables, make_user):
    table, (lan, minh) = table_with_bot(make_user, tables, "tienlen")
    commitment = table.next_commitment
    services.table_seed(table_id=table.pk, user=lan, client_seed="a", commitment=commitment)
    services.table_seed(table_id=table.pk, user=lan, client_seed="b", commitment=commitment)
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh, client_seed="m", commitment=commitment)
    tables.drain()
    hand = current_hand(table)
    assert hand is not None
    assert hand.client_seeds[:2] == ["b", "m"]
    assert hand.seed_sources == ["player", "player", "bot"]


@pytest.mark.parametrize("again", [False, True], ids=["ready-alone", "ready-with-the-seed"])
def test_a_seed_pending_at_two_tables_is_used_at_one_only(tables, make_user, again):
    """The same seed sent to two tables before either dealt: the second deal
    finds it used and draws one instead (never a reused contribution). The
    browser presses Ready with the seed it sent (``again``): the seat holds it,
    checked when it came, so Ready reads no seed history, and the deal still
    finds it used since."""
    lan = make_user()
    dealt = []
    for _ in range(2):
        other = make_user()
        table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
        services.table_sit(table_id=table.pk, user=lan)
        services.table_sit(table_id=table.pk, user=other)
        services.table_seed(
            table_id=table.pk, user=lan, client_seed="same", commitment=table.next_commitment
        )
        dealt.append((table, other))
    for table, other in dealt:
        sent = {"client_seed": "same", "commitment": table.next_commitment} if again else {}
        with statements_run() as ran:
            services.table_ready(table_id=table.pk, user=lan, **sent)
        assert ran  # (it saw the service's statements)
        assert [sql for sql in ran if HandPlayer._meta.db_table in sql] == []
        services.table_ready(table_id=table.pk, user=other)
    first, second = (current_hand(t) for t, _ in dealt)
    assert first is not None
    assert second is not None
    assert (first.client_seeds[0], first.seed_sources[0]) == ("same", "player")
    assert second.client_seeds[0] != "same"
    assert second.seed_sources[0] == "server"


def connect(table: Table, user: Any) -> None:
    services.seat_presence(table_id=table.pk, user=user, delta=1)


def test_the_deal_waits_a_moment_for_a_connected_players_seed(tables, make_user, settings):
    """Everyone is ready but a connected player's seed has not arrived: a short
    seeds clock; the seed arrives and the hand is dealt at once, with it."""
    settings.SEED_GRACE_MS = 1500
    table, (lan, minh) = table_with_bot(make_user, tables, "tienlen")
    connect(table, lan)
    services.table_ready(table_id=table.pk, user=minh, client_seed="m1")
    services.table_ready(table_id=table.pk, user=lan)  # ready first, seed on its way

    table.refresh_from_db()
    assert current_hand(table) is None
    assert table.clock == Table.Clock.SEEDS
    assert table.deadline is not None
    assert table.clock_started_at is not None
    waited_ms = (table.deadline - table.clock_started_at).total_seconds() * 1000
    assert waited_ms == 1500
    services.table_seed(
        table_id=table.pk, user=lan, client_seed="l1", commitment=table.next_commitment
    )
    hand = current_hand(table)
    assert hand is not None
    assert hand.client_seeds[:2] == ["l1", "m1"]
    assert hand.seed_sources == ["player", "player", "bot"]
    assert table.clock != Table.Clock.SEEDS


def test_a_seed_that_never_arrives_is_drawn_by_the_server_after_the_wait(
    tables, make_user, settings
):
    settings.SEED_GRACE_MS = 1500
    table, (lan, minh) = table_with_bot(make_user, tables, "maubinh")
    connect(table, lan)
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh, client_seed="m1")
    assert current_hand(table) is None

    assert tables.fire(table)
    hand = current_hand(table)
    assert hand is not None
    assert hand.seed_sources == ["server", "player", "bot"]
    assert len(hand.client_seeds[0]) == 32


def test_players_without_a_socket_are_not_waited_for(tables, make_user, settings):
    settings.SEED_GRACE_MS = 1500
    table, (lan, minh) = table_with_bot(make_user, tables, "tienlen")
    services.table_ready(table_id=table.pk, user=lan)
    services.table_ready(table_id=table.pk, user=minh)
    hand = current_hand(table)
    assert hand is not None
    assert hand.seed_sources == ["server", "server", "bot"]


def test_a_seed_reads_no_chips_and_tells_nobody(tables, make_user, wire_checked):
    """A seed shows in no state: it reads the seats in short (no wallet
    account), and nothing is published while the table is not waiting for it."""
    table, (lan, _minh) = table_with_bot(make_user, tables, "tienlen")
    commitment = table.next_commitment
    sent = wire_checked.count
    with statements_run() as ran:
        answer = services.table_seed(
            table_id=table.pk, user=lan, client_seed="lan-seed", commitment=commitment
        )
    tables.drain()

    assert answer == {"commitment": commitment}
    assert Seat.objects.values_list("client_seed", "seed_commitment").get(
        table=table, user=lan
    ) == ("lan-seed", commitment)
    assert ran  # (it saw the service's statements)
    assert [sql for sql in ran if Account._meta.db_table in sql] == []
    assert wire_checked.count == sent
