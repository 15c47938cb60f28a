"""Daphne's ``--websocket-max-message-size`` bounds what a client sends, not
what the server sends: autobahn applied it both ways, so a table's state over
16 KB killed its socket with 1011 on every reconnect (games/ws_close.py; found
by the multi-host rolling drill, tests/hostdrill.py)."""

from __future__ import annotations

from collections import deque
from typing import Any

from autobahn.websocket.protocol import TrafficStats
from daphne.ws_protocol import WebSocketFactory
from twisted.internet.testing import StringTransport

from games.ws_close import bound_slow_readers

LIMIT = 16384  # the web unit's --websocket-max-message-size


def open_protocol() -> tuple[Any, StringTransport]:
    """Daphne's protocol for one socket, open, writing into a string."""
    bound_slow_readers(0)  # what vipgame/asgi.py installs (once per process)
    factory = WebSocketFactory(None, server="test")
    factory.setProtocolOptions(maxMessagePayloadSize=LIMIT, maxFramePayloadSize=LIMIT)
    protocol = factory.buildProtocol(("127.0.0.1", 1))
    for option in protocol.CONFIG_ATTRS:  # (what connectionMade copies)
        setattr(protocol, option, getattr(factory, option))
    transport = StringTransport()
    protocol.transport = transport
    protocol.state = protocol.STATE_OPEN
    protocol.websocket_version = 13
    protocol._perMessageCompress = None
    protocol.trafficStats = TrafficStats()
    protocol.trackedTimings = False
    protocol.client_addr = ["127.0.0.1", 1]
    protocol.send_state = protocol.SEND_STATE_GROUND
    protocol.send_queue = deque()
    protocol.triggered = False
    return protocol, transport


def test_the_server_sends_a_message_over_the_clients_limit():
    protocol, transport = open_protocol()
    text = '{"type": "state", "pad": "' + "x" * (LIMIT + 4000) + '"}'
    protocol.serverSend(text, False)
    sent = transport.value()
    assert len(sent) > LIMIT + 4000
    assert sent.endswith(text.encode())
    # What the client may send is still bounded.
    assert protocol.maxMessagePayloadSize == LIMIT
