"""Issue 13 items 7 and 9 against a real Daphne started with the Procfile's own
command: no ``--proxy-headers`` (a forged ``X-Forwarded-For`` is not the
client), the per-address socket cap, and WebSocket messages bounded by the
server (autobahn's ``maxMessagePayloadSize``/``maxFramePayloadSize``, set by
Daphne's ``--websocket-max-message-size``/``--websocket-max-frame-size``)
before the application sees them."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from games import services

from .processes import ROOT, decode, free_port, process_env, running, wait_http

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def procfile_web() -> str:
    line = next(
        line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")
    )
    return line.removeprefix("web:").strip()


def test_the_procfile_trusts_no_forwarded_header_and_bounds_messages():
    command = procfile_web()

    assert "--proxy-headers" not in command
    assert re.search(r"--websocket-max-message-size \$\{WS_MAX_FRAME_BYTES:-16384\}", command)
    assert re.search(r"--websocket-max-frame-size \$\{WS_MAX_FRAME_BYTES:-16384\}", command)


def drain(ws) -> None:
    """Read until the server closes the socket (ConnectionClosed); nothing read
    may be an answer from the application."""
    while True:
        assert decode(ws.recv(timeout=10))["type"] not in ("error", "pong")


def test_daphne_refuses_big_frames_and_forged_addresses_do_not_dodge_the_socket_cap(tmp_path):
    table = services.table_create(owner=None, game="tienlen", stake=1)
    port = free_port()
    env = process_env(
        tmp_path,
        WEB_HOST="127.0.0.1",
        WEB_PORT=str(port),
        WS_MAX_SOCKETS_PER_ADDRESS="2",
        CACHE_PREFIX=f"server-limits-{uuid.uuid4().hex[:8]}",
    )
    url = f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/"

    def socket(forwarded: str):
        return connect(
            url,
            additional_headers={"X-Forwarded-For": forwarded},
            open_timeout=10,
            compression=None,
            max_size=None,
            legacy=True,
        )

    def first(ws, kind):
        while True:
            message = decode(ws.recv(timeout=10))
            if message["type"] == kind:
                return message

    with running(["bash", "-c", f"exec {procfile_web()}"], env, tmp_path / "daphne.log"):
        wait_http(port)
        one, two = socket("198.51.100.1"), socket("198.51.100.2")
        assert first(one, "state")["table"]["id"] == table.pk
        assert first(two, "state")["table"]["id"] == table.pk
        three = socket("198.51.100.3")  # a new forged address: still 127.0.0.1
        assert first(three, "error")["code"] == "too_many_sockets"
        with pytest.raises(ConnectionClosed) as closed:
            three.recv(timeout=10)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4429
        two.close()

        # Over the application's 8 KB but under the server's bound: a clear error.
        one.send(json.dumps({"type": "ping", "pad": "x" * 9_000}))
        assert first(one, "error")["code"] == "message_too_large"
        # Over the server's bound: autobahn fails the connection with 1009
        # (it used to drop the TCP connection without a close frame: failByDrop,
        # turned off by games/ws_close.py); the application never answers it.
        one.send(json.dumps({"type": "ping", "pad": "x" * 20_000}))
        with pytest.raises(ConnectionClosed) as too_big:
            drain(one)
        assert too_big.value.rcvd is not None
        assert too_big.value.rcvd.code == 1009
        # The place freed by the closed sockets is there again.
        again = socket("198.51.100.9")
        assert first(again, "state")["table"]["id"] == table.pk
        again.close()
    log = (tmp_path / "daphne.log").read_text()
    assert "Traceback" not in log
