"""PgBouncer in transaction mode in front of the database (issue 33, item 3;
docs/operations.md "PgBouncer"): two Daphne processes reach PostgreSQL
through one PgBouncer (Debian 12's 1.18: no protocol-level prepared
statements) whose pool has one server connection, so every client's
statements share it. Socket moves on one process and REST moves on the other
go through with the defaults (``DB_PREPARED=auto``: unnamed statements behind
a pooler); with the old default (``DB_PREPARED=1``, the control) they fail,
as they did for the operator while ``/readyz`` said 200. ``/readyz`` says 503
once the pooler is gone."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.db import connection
from websockets.sync.client import connect

from accounts.sessions import token_issue
from games.models import Hand, Seat, Table
from games.plugins import engine_for

from .ops.helpers import value
from .processes import daphne, free_port, process_env, running, wait_for, wait_http
from .seeds import ORDINARY, Dealer
from .services.driver import ready_all, seated_table
from .tables import assert_money_consistent

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MOVES = 8  # alternately a socket move (process A) and a REST move (process B)


def pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    assert Path(found).exists(), "pgbouncer is not installed (.ci/run installs it)"
    return found


@contextlib.contextmanager
def pgbouncer(port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """PgBouncer in transaction mode on ``port`` in front of the test database,
    one server connection in its pool; the application's session bounds set
    on each server connection it opens (``connect_query``: PgBouncer refuses
    the ``options`` startup parameter, docs/operations.md "PgBouncer")."""
    from django.conf import settings

    info = connection.settings_dict
    here = Path(tempfile.mkdtemp(prefix="vipgame-pgbouncer-"))
    here.chmod(0o755)  # (read by the unprivileged user it runs as)
    user, password = info["USER"] or "postgres", info.get("PASSWORD") or ""
    (here / "users.txt").write_text(f'"{user}" "{password}"\n')
    bounds = "; ".join(
        f"SET {name} = {value}" for name, value in settings.DB_SESSION_SETTINGS.items()
    )
    host = info.get("HOST") or info["OPTIONS"].get("host", "127.0.0.1")
    (here / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"{info['NAME']} = host={host} port={info.get('PORT') or 5432} "
        f"dbname={info['NAME']} connect_query='{bounds}'\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {here / 'users.txt'}\n"
        "pool_mode = transaction\ndefault_pool_size = 1\nmax_client_conn = 200\n"
        "query_wait_timeout = 10\nidle_transaction_timeout = 10\n"
    )
    for name in ("users.txt", "pgbouncer.ini"):
        (here / name).chmod(0o644)
    command = [pgbouncer_binary(), str(here / "pgbouncer.ini")]
    if os.geteuid() == 0:  # PgBouncer will not run as root
        command[1:1] = ["-u", "postgres" if _has_user("postgres") else "nobody"]
    try:
        with running(command, dict(os.environ), log) as process:
            wait_for(lambda: _answers(port, info["NAME"], user), 20)
            yield process
    finally:
        shutil.rmtree(here, ignore_errors=True)


def _has_user(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _answers(port: int, dbname: str, user: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(
            host="127.0.0.1", port=port, dbname=dbname, user=user, connect_timeout=2
        ) as conn:
            return conn.execute("SELECT 1").fetchone() == (1,)
    except psycopg.Error:
        return False


def through(port: int) -> str:
    info = connection.settings_dict
    user = info["USER"] or "postgres"
    password = f":{info['PASSWORD']}" if info.get("PASSWORD") else ""
    return f"postgres://{user}{password}@127.0.0.1:{port}/{info['NAME']}"


def table_in_play(make_user: Any, dealer: Dealer) -> Table:
    """A Tiến Lên table of four people whose hand waits for a move. The deck is
    one whose deal leaves the hand in play: a random deal may end at once (tới
    trắng), and with no Celery worker here that hand would stay unsettled
    (a run of the whole suite failed its money check so: "hand 30 not settled")."""
    dealer.stack(*ORDINARY)
    table, _users = seated_table(make_user, "tienlen", 4, 0)
    ready_all(table)
    table.refresh_from_db()
    assert table.current_hand_id is not None
    hand = Hand.objects.get(pk=table.current_hand_id)
    engine = engine_for(table.game)
    assert hand.ended_at is None
    assert engine.status(engine.loads(hand.state)).actors
    return table


def next_move(table_id: int, step: int) -> tuple[Any, dict[str, Any], int]:
    """(user, action, version) of the next move (the bot policy on the mover's view)."""
    table = Table.objects.get(pk=table_id)
    assert table.current_hand_id is not None
    hand = Hand.objects.get(pk=table.current_hand_id)
    engine = engine_for(table.game)
    state = engine.loads(hand.state)
    player = engine.status(state).actors[0]
    user = Seat.objects.get(table=table, position=hand.players[player]["position"]).user
    return user, dict(engine.bot_action(engine.view(state, player), seed=step)), table.version


def socket_move(port: int, table_id: int, token: str, action: dict[str, Any], v: int, cid: str):
    """A move sent on a table socket: the new version, or the error's code."""
    url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/"
    with connect(
        url, additional_headers={"Authorization": f"Token {token}"}, open_timeout=20
    ) as ws:
        first = json.loads(ws.recv(timeout=20))
        if first["type"] == "error":
            return first["code"]
        ws.send(json.dumps({"type": "act", "id": cid, "v": v, "action": action}))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            message = json.loads(ws.recv(timeout=20))
            if message["type"] == "error":
                return message["code"]
            if message["type"] in ("state", "delta") and message["v"] > v:
                return message["v"]
    return "no answer"


def metrics_of(port: int) -> str:
    response = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=15)
    assert response.status_code == 200
    return response.text


def rest_move(port: int, table_id: int, token: str, action: dict[str, Any], v: int, cid: str):
    response = requests.post(
        f"http://127.0.0.1:{port}/api/v1/tables/{table_id}/actions",
        json={"id": cid, "v": v, "action": action},
        headers={"Authorization": f"Token {token}"},
        timeout=30,
    )
    body = response.json()
    return body.get("v") if response.status_code == 200 else body.get("code", response.status_code)


def play(ports: tuple[int, int], table_id: int) -> list[Any]:
    """MOVES moves, alternately on a socket of A and by REST on B: each answer."""
    answers: list[Any] = []
    tokens: dict[int, str] = {}
    for step in range(MOVES):
        user, action, v = next_move(table_id, step)
        token = tokens.setdefault(user.pk, token_issue(user=user))
        move = socket_move if step % 2 == 0 else rest_move
        answers.append(move(ports[step % 2], table_id, token, action, v, f"pgb-{step}"))
        if not isinstance(answers[-1], int):
            break
    return answers


@pytest.mark.parametrize(
    ("extra", "works"),
    [
        ({}, True),  # the defaults (DB_PREPARED=auto)
        # The control: the old default, prepared statements behind PgBouncer 1.18.
        ({"DB_PREPARED": "1"}, False),
    ],
)
def test_moves_through_pgbouncer_in_transaction_mode(tmp_path, make_user, dealer, extra, works):
    table = table_in_play(make_user, dealer)
    bouncer, ports = free_port(), (free_port(), free_port())
    with pgbouncer(bouncer, tmp_path / "pgbouncer.log") as bouncer_process:
        env = process_env(
            tmp_path,
            DATABASE_URL=through(bouncer),
            DB_STARTUP_OPTIONS="0",  # PgBouncer refuses them: connect_query sets the bounds
            READY_TIMEOUT_S="2",
            **extra,
        )
        with (
            running(daphne(ports[0]), env, tmp_path / "daphne-a.log"),
            running(daphne(ports[1]), env, tmp_path / "daphne-b.log"),
        ):
            wait_http(ports[0])
            wait_http(ports[1])

            answers = play(ports, table.pk)

            if not works:  # ("prepared statement "_pg3_0" already exists")
                assert "server_error" in answers, answers
                # Counted where it was answered: a socket move on A, a REST one on B.
                if (len(answers) - 1) % 2 == 0:
                    text = metrics_of(ports[0])
                    assert value(
                        "vipgame_socket_errors_total", text, kind="table", code="server_error"
                    ), answers
                else:
                    text = metrics_of(ports[1])
                    assert "vipgame_http_server_errors_total{" in text, answers
                return
            assert len(answers) == MOVES, answers
            assert all(isinstance(a, int) for a in answers), answers
            ready = requests.get(f"http://127.0.0.1:{ports[0]}/readyz", timeout=10)
            assert ready.status_code == 200, ready.text
            database = ready.json()["checks"]["database"]
            assert database["pooler"] is True
            assert database["prepared"] is False
            # The bounds reached the sessions through the pooler.
            assert database["idle_in_transaction_session_timeout"] != "0"
            assert database["lock_timeout"] != "0"
            # The database's own figures, read through the pooler in transaction mode.
            text = metrics_of(ports[0])
            assert value("vipgame_pg_server_connections", text) >= 1
            assert value("vipgame_pg_max_connections", text) > 0

            # The pooler goes: this process cannot reach its database.
            bouncer_process.terminate()
            bouncer_process.wait(timeout=10)
            started = time.monotonic()
            gone = requests.get(f"http://127.0.0.1:{ports[0]}/readyz", timeout=10)
            assert gone.status_code == 503, gone.text
            assert gone.json()["checks"]["database"]["ok"] is False
            assert time.monotonic() - started < 8
            # /metrics still answers, in time, without the database's figures.
            started = time.monotonic()
            text = metrics_of(ports[0])
            assert time.monotonic() - started < 9
            assert value("vipgame_database_up", text) == 0
            assert value("vipgame_scrape_read_failures_total", text, source="postgresql") >= 1
            assert "vipgame_pg_connections{" not in text
            assert value("vipgame_redis_up", text) == 1
    assert_money_consistent()
