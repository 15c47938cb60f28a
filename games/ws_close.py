"""Let Daphne send the protocol's close codes.

Autobahn, under Daphne, refuses to send any close code but 1000 and
3000-4999 ("invalid close code"), so a consumer closing with 1008 (policy
violation: the flood limit of docs/protocol.md) or 1012 (service restart:
reconnect) would raise instead and leave the socket open. These codes are
registered by RFC 6455 / IANA for servers to send; send them as they are.
"""

from __future__ import annotations

from typing import Any

PROTOCOL_CLOSE_CODES = frozenset({1008, 1011, 1012, 1013})


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
