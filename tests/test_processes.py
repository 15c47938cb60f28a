"""Real processes: two Daphne servers serving one table, and a Celery worker
killed with a time-out pending (the beat sweeper fires it)."""

import json
import os
import re
import signal
import time

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from games import services
from games.models import Hand, HandEvent, Table, TableSeed
from games.plugins import engine_for
from games.protocol import follow
from tests.consumers.helpers import token_for

from .processes import (
    celery_worker,
    daphne,
    decode,
    free_port,
    process_env,
    running,
    wait_for,
    wait_http,
)
from .seeds import ORDINARY, seeds_for_a_hand_in_play
from .tables import assert_money_consistent

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


class Player:
    def __init__(self, port, table_id, token):
        self.ws = connect(
            f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
            additional_headers={"Authorization": f"Token {token}"},
            open_timeout=10,
            legacy=True,
        )
        self.states = []  # the states held, in order (a delta as the state it makes)
        self.versions = []  # the version of every state and delta, as they came
        self.seq = 0
        self.syncing = None

    def take(self, message):
        """Hold a state, or the state a delta makes (else ask for a sync, once
        per version held); returns the message as read (a delta as its state)."""
        if message["type"] not in ("state", "delta"):
            return message
        self.versions.append(message["v"])
        held = self.states[-1] if self.states else None
        state, sync = follow(held, message)
        if state is not None:
            self.states.append(state)
            self.syncing = None
            return state
        if sync and self.syncing != (held or {}).get("v", 0):
            self.syncing = (held or {}).get("v", 0)
            self.ws.send(json.dumps({"type": "sync", "v": self.syncing}))
        return message

    def send(self, **message):
        self.seq += 1
        self.ws.send(json.dumps({"id": f"m{self.seq}", **message}))
        return f"m{self.seq}"

    def read_until(self, predicate, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = decode(self.ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            message = self.take(message)
            if predicate(message):
                return message
        raise AssertionError("message not received")

    def drain(self):
        while True:
            try:
                message = decode(self.ws.recv(timeout=0.2))
            except TimeoutError:
                return
            self.take(message)


def test_two_daphne_processes_serve_one_table_in_order(tmp_path, make_user):
    lan, minh = make_user(), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1, seat_count=2)
    server_seed = TableSeed.objects.get(table=table).server_seed
    # A real deal (in a Daphne process) that is no instant win, which would end it at once.
    client_seeds = seeds_for_a_hand_in_play(server_seed, f"{table.pk}-1", ["lan", "minh"])
    tokens = token_for(lan), token_for(minh)
    ports = free_port(), free_port()
    env = process_env(tmp_path)
    engine = engine_for("tienlen")
    with (
        running(daphne(ports[0]), env, tmp_path / "daphne-a.log"),
        running(daphne(ports[1]), env, tmp_path / "daphne-b.log"),
    ):
        wait_http(ports[0])
        wait_http(ports[1])
        players = [Player(ports[i], table.pk, tokens[i]) for i in range(2)]
        for i, player in enumerate(players):
            sent = player.send(type="sit", position=i)
            player.read_until(lambda m, sent=sent: m.get("id") == sent)
        for player, seed in zip(players, client_seeds, strict=True):
            player.send(type="ready", client_seed=seed)
        for player in players:
            player.read_until(lambda m: m["type"] == "state" and m["hand"] is not None)
        moves = 0
        while moves < 40:
            for player in players:
                player.drain()
            latest = [p.states[-1] for p in players]
            assert latest[0]["v"] == latest[1]["v"], "both servers show the same version"
            view = [s["hand"]["view"] for s in latest]
            if latest[0]["hand"]["finished"]:
                break
            turn = latest[0]["actors"][0]
            mover = players[turn]
            action = engine.bot_action(view[turn], seed=moves)
            sent = mover.send(type="act", v=latest[turn]["v"], action=action)
            reply = mover.read_until(lambda m, sent=sent: m.get("id") == sent)
            assert reply["type"] == "ack", reply
            moves += 1
        for player in players:
            player.drain()
            assert player.versions == sorted(player.versions)
            player.ws.close()
    # Both players' moves went through (one may have only passed: a strong hand
    # can win every round).
    moved = HandEvent.objects.filter(type__in=("played", "passed")).order_by("seq")
    assert moved.filter(type="played").exists()
    assert {e.payload["player"] for e in moved} == {0, 1}
    hand = Hand.objects.get(table=table)
    if hand.ended_at:
        services.hand_settle(hand_id=hand.pk)
    assert_money_consistent()


def _hand_in_play(owner, players, dealer):
    """A two-player Tiến Lên table whose hand is in play with its 4 s turn clock
    running (dealt ordinary hands: no tới trắng, which would end it at once).
    Only that clock is short enough to get its timer task when it is set."""
    dealer.stack(*ORDINARY)
    table = services.table_create(
        owner=owner, game="tienlen", stake=1, seat_count=2, turn_seconds=4
    )
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
        services.table_ready(table_id=table.pk, user=user)
    table.refresh_from_db()
    assert table.clock == "turn"  # the engine's turn clock
    return table


def test_killed_worker_timeout_is_fired_by_the_sweeper(tmp_path, make_user, dealer):
    lan, minh = make_user(), make_user()
    env = process_env(tmp_path)
    # (at DEBUG: a timer task's "received" line is not written at INFO)
    worker = celery_worker(tmp_path, beat=False, level="DEBUG")
    with running(worker, env, tmp_path / "worker-1.log") as first:
        wait_for(lambda: "ready" in (tmp_path / "worker-1.log").read_text(), timeout=30)
        table = _hand_in_play(lan, (lan, minh), dealer)
        deadline, clock_version = table.deadline, table.clock_version
        assert deadline is not None
        received = re.compile(r"Task games\.tasks\.table_timer\[(\S+)\] received")
        # The turn clock's timer task is in the worker's hands.
        pending = wait_for(
            lambda: received.findall((tmp_path / "worker-1.log").read_text()), timeout=10
        )
        os.killpg(first.pid, signal.SIGKILL)  # the pending timer dies with the worker
    log = tmp_path / "worker-2.log"
    with running(celery_worker(tmp_path, beat=True, level="DEBUG"), env, log):
        fired_at = wait_for(
            lambda: (
                Table.objects.filter(pk=table.pk, clock_version__gt=clock_version).exists()
                and time.time()
            ),
            timeout=20,
        )
        hand = Hand.objects.get(table=table)
        assert HandEvent.objects.filter(hand=hand, type="timed_out").exists()
        assert fired_at <= deadline.timestamp() + 5
    text = log.read_text()
    assert "games.tasks.sweeper" in text
    assert not [task for task in pending if task in text]  # not redelivered: the sweeper fired


def flood_until_closed(ws, codes):
    for _ in range(200):
        ws.send(json.dumps({"type": "ping"}))
    while True:
        codes.append(decode(ws.recv(timeout=10)).get("code"))


def test_daphne_closes_a_flooding_socket_with_1008(tmp_path, make_user):
    """The flood limit closes with 1008 through the real server (Autobahn under
    Daphne refuses that code unless it is let through: games/ws_close.py)."""
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)
    port = free_port()
    with running(daphne(port), process_env(tmp_path), tmp_path / "daphne.log"):
        wait_http(port)
        ws = connect(f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/", open_timeout=10, legacy=True)
        assert decode(ws.recv(timeout=10))["type"] == "state"
        codes: list[str] = []
        with pytest.raises(ConnectionClosed) as closed:
            flood_until_closed(ws, codes)
        received = closed.value.rcvd
        assert received is not None
        assert received.code == 1008
        assert "rate_limited" in codes
    assert "invalid close code" not in (tmp_path / "daphne.log").read_text()
