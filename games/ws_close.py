"""Daphne's WebSocket protocol, adjusted for the protocol's close codes and
for clients that stop reading (docs/protocol.md "Closing").

* Autobahn, under Daphne, refuses to send any close code but 1000 and
  3000-4999 ("invalid close code"), so a consumer closing with 1008 (policy
  violation: the flood limit) or 1012 (service restart: reconnect) would
  raise instead and leave the socket open. These codes are registered by
  RFC 6455 / IANA for servers to send; send them as they are.
* Autobahn fails a connection (a message over ``--websocket-max-message-size``,
  invalid UTF-8, a protocol error) by dropping the TCP connection unless
  ``failByDrop`` is off: the client saw no close code. Off, it sends the
  close frame (1009, 1007, 1002) and drops the connection if the client
  does not answer it within ``CLOSE_HANDSHAKE_S``.
* Autobahn waited one second for the answer to any close it sends, then
  reset the connection. A client slower than that to answer (a phone on a
  slow network, a busy machine) found its connection reset, and websockets'
  sync client, whose answer then could not be written, dropped the frames
  it had read with the close: ``logged_out`` never came before its 4400 (a
  clean clone's CI run; tests/test_slow_readers.py). It waits
  ``CLOSE_HANDSHAKE_S`` now.
* Daphne pings a socket every ``--ping-interval`` seconds and autobahn drops
  it when no pong comes within ``--ping-timeout``; but Daphne restarts that
  clock at every message the client sends, and autobahn cancels a pending
  ping's time-out at any incoming frame: a client that keeps sending and never
  reads was never pinged. Here the pings go out on their own clock and only
  a pong answers them.
* Nothing bounded what waits in the transport for a client that does not
  read. Past ``WS_MAX_PENDING_BYTES`` (written, not yet taken by the
  kernel) the socket is closed with 4408 and dropped ``CLOSE_HANDSHAKE_S``
  later unless it answers.
* Autobahn applies ``--websocket-max-message-size`` (16 KB: what a client may
  send) to what the server sends as well: a table's state over 16 KB raised
  ``PayloadExceededError`` inside the consumer, the socket closed with 1011,
  and the player's reconnects met the same state again, until the sockets
  that had closed that way (still counted for up to a minute) put the player
  over ``WS_MAX_SOCKETS_PER_USER`` (4429). Found by the multi-host rolling
  drill (tests/hostdrill.py), where reconnects resync by state. The bound
  applies to what clients send only.
* Autobahn logs every frame it reads or writes at debug level, and builds the
  line's coloured arguments (``hltype``, ``hlval``: the method's qualified
  name and the peer, through ``click.style``) before the logger drops it:
  7.6 microseconds a frame, each socket's pings and pongs included
  (``hltype`` alone was 3.7 % of the Daphnes' samples with ~4,000 sockets
  held; bench/RESULTS.md "Autobahn's debug lines"). They are built only when
  a line is written now.
"""

from __future__ import annotations

from typing import Any

PROTOCOL_CLOSE_CODES = frozenset({1008, 1011, 1012, 1013})
TOO_SLOW = 4408
#: How long the server waits for the answer to a close it sent before it
#: drops the connection (autobahn's default: 1 s).
CLOSE_HANDSHAKE_S = 5.0


def allow_protocol_close_codes() -> None:
    from daphne.ws_protocol import WebSocketProtocol

    if getattr(WebSocketProtocol.serverClose, "allows_protocol_codes", False):
        return

    def server_close(self: Any, code: int | None = None) -> None:
        if code in PROTOCOL_CLOSE_CODES:
            self.sendCloseFrame(code=code, isReply=False)
        else:
            self.sendClose(code=1000 if code is None else code)

    server_close.allows_protocol_codes = True  # type: ignore[attr-defined]
    WebSocketProtocol.serverClose = server_close


def pending_bytes(transport: Any) -> int:
    """Bytes written to ``transport`` that the kernel has not taken yet: a
    Twisted TCP transport's buffers (``abstract.FileDescriptor``), through any
    wrapping transport (TLS) down to the socket's."""
    total = 0
    while transport is not None:
        if hasattr(transport, "dataBuffer") and hasattr(transport, "_tempDataLen"):
            total += len(transport.dataBuffer) - transport.offset + transport._tempDataLen
        transport = getattr(transport, "transport", None)
    return total


def bound_slow_readers(max_pending: int) -> None:
    """Close with 1009 (and the like) instead of dropping, ping on the server's
    own clock, and close a socket whose unread output passes ``max_pending``
    bytes (0: no bound). Once per process (Daphne builds its factory after
    loading the application)."""
    from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol

    if getattr(WebSocketFactory, "bounds_slow_readers", False):
        return
    WebSocketFactory.bounds_slow_readers = True
    factory_init = WebSocketFactory.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        factory_init(self, *args, **kwargs)
        self.setProtocolOptions(
            failByDrop=False,
            autoPingRestartOnAnyTraffic=False,
            closeHandshakeTimeout=CLOSE_HANDSHAKE_S,
        )

    WebSocketFactory.__init__ = init

    on_message = WebSocketProtocol.onMessage

    def on_message_keeping_the_ping_clock(self: Any, payload: bytes, isBinary: bool) -> None:
        pinged = self.last_ping
        on_message(self, payload, isBinary)
        self.last_ping = pinged

    WebSocketProtocol.onMessage = on_message_keeping_the_ping_clock

    server_send = WebSocketProtocol.serverSend

    def server_send_bounded(self: Any, content: Any, binary: bool = False) -> None:
        limit = self.maxMessagePayloadSize  # (for what the client sends)
        self.maxMessagePayloadSize = 0
        try:
            server_send(self, content, binary)
        finally:
            self.maxMessagePayloadSize = limit
        if max_pending and pending_bytes(self.transport) > max_pending:
            # The close frame waits behind what the client has not read; it is
            # dropped after CLOSE_HANDSHAKE_S unless it answers.
            self.sendCloseFrame(code=TOO_SLOW, isReply=False)

    WebSocketProtocol.serverSend = server_send_bounded


class _WhenWritten:
    """What ``text(obj)`` would give, computed only if a log line is formatted
    with it (one argument, as every call in autobahn's frame paths passes)."""

    __slots__ = ("obj",)
    text: Any = staticmethod(str)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __str__(self) -> str:
        return str(type(self).text(self.obj))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def defer_debug_text() -> None:
    """Autobahn's per-frame debug lines build their arguments only when
    written (once per process; a release without these names is left as it
    is)."""
    from autobahn import util
    from autobahn.twisted import websocket as twisted_websocket
    from autobahn.websocket import protocol

    for name in ("hltype", "hlval"):
        eager = getattr(util, name, None)
        if eager is None:
            continue
        deferred = type(f"{name}_when_written", (_WhenWritten,), {"text": staticmethod(eager)})
        for module in (protocol, twisted_websocket):
            if getattr(module, name, None) is eager:
                setattr(module, name, deferred)
