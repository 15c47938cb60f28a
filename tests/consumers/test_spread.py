"""Issue 33 item 5: sockets spread again across the Daphne processes after a
restart. A process holding more than its share closes some of its sockets
with 1012 (the page reconnects at once, through nginx, to an emptier one),
the lobby's and watchers' before seated players', a tenth at most per round
(kernel.ops.spread)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pytest
from asgiref.sync import async_to_sync

from games import services
from kernel.ops import spread
from kernel.ops.heartbeat import redis_client

from ..moderation.test_sockets import until_closed
from .helpers import Client, token_for


def test_a_process_over_its_share_closes_a_tenth_at_most():
    # Daphne B restarted empty; A holds the room's 200 sockets.
    assert spread.excess(200, [200, 0], slack=0.2, least=20) == 20
    # Near the mean, or too few to matter: nothing.
    assert spread.excess(110, [110, 90], slack=0.2, least=20) == 0
    assert spread.excess(30, [30, 0], slack=0.2, least=20) == 0
    assert spread.excess(100, [100], slack=0.2, least=20) == 0  # one process
    assert spread.excess(0, [0, 300], slack=0.2, least=20) == 0  # the emptier one
    # Rounds even a lopsided room out.
    counts = [300, 0, 0]
    for _ in range(40):
        closed = spread.excess(counts[0], counts, slack=0.2, least=20)
        counts = [counts[0] - closed, counts[1] + closed // 2, counts[2] + closed - closed // 2]
    assert max(counts) - min(counts) <= 20 + 0.2 * 100


@dataclass(eq=False)
class Fake:
    rank: int
    closed: bool = False

    def spread_rank(self) -> int:
        return self.rank

    async def close_to_spread(self) -> None:
        self.closed = True


def test_the_lobby_and_watchers_go_before_seated_players():
    sockets = [Fake(2) for _ in range(5)] + [Fake(1) for _ in range(3)] + [Fake(0)]
    assert [s.spread_rank() for s in spread.chosen(sockets, 5)] == [0, 1, 1, 1, 2]


@pytest.fixture
def room(settings):
    settings.WS_SPREAD_INTERVAL_S = 0  # no rounds of its own: the test runs them
    redis_client().delete(spread.key())
    yield
    redis_client().delete(spread.key())
    spread._open.clear()


def peer(name: str, n: int, ago: float = 0) -> None:
    redis_client().hset(spread.key(), name, json.dumps({"n": n, "at": time.time() - ago}))


def test_a_round_closes_the_excess_and_forgets_gone_processes(room, settings):
    settings.WS_SPREAD_SLACK, settings.WS_SPREAD_MIN = 0.2, 5
    sockets = [Fake(2) for _ in range(50)] + [Fake(0) for _ in range(10)]
    for sock in sockets:
        spread.track(sock)
    peer("b:1:restarted", 0)
    peer("c:2:gone", 500, ago=60)  # silent for more than three rounds

    closed = async_to_sync(spread.spread_once)(0.05)

    assert closed == 6  # a tenth of 60 (the mean is 30)
    gone = [s for s in sockets if s.closed]
    assert len(gone) == 6
    assert all(s.rank == 0 for s in gone)  # the lobby's first
    assert set(redis_client().hkeys(spread.key())) == {spread.PROCESS.encode(), b"b:1:restarted"}


def test_balanced_processes_close_nothing(room):
    for _ in range(40):
        spread.track(Fake(0))
    peer("b:1", 38)
    assert async_to_sync(spread.spread_once)(0.05) == 0


@pytest.mark.django_db(transaction=True)
def test_a_real_socket_is_closed_with_1012(room, settings, make_user):
    settings.WS_SPREAD_SLACK, settings.WS_SPREAD_MIN = 0, 0
    lan = make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    tokens = token_for(lan), token_for(lan)

    async def scenario():
        lobby = Client("/ws/lobby/", tokens[0])
        watcher = Client(f"/ws/tables/{table.pk}/", tokens[1])
        for client in (lobby, watcher):
            assert await client.connect()
            await client.recv()
        peer("b:1", 0)
        assert await spread.spread_once(0.05) == 1
        _, code = await until_closed(lobby)  # the lobby's, not the table's
        assert code == 1012
        await watcher.ws.disconnect()

    async_to_sync(scenario)()
