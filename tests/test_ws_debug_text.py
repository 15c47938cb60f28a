"""Autobahn builds the arguments of its per-frame debug lines (coloured
through ``click.style``) before its logger drops them; in Daphne they are
built only when a line is written (games/ws_close.py ``defer_debug_text``)."""

from __future__ import annotations

from autobahn import util
from autobahn.twisted import websocket as twisted_websocket
from autobahn.websocket import protocol as websocket_protocol

from games.ws_close import defer_debug_text
from tests.test_ws_send_size import open_protocol


def test_a_frame_written_colours_no_debug_text(monkeypatch):
    defer_debug_text()  # (what vipgame/asgi.py does, once per process)
    coloured: list[str] = []
    real = util.hl

    def hl(text: str, **kw: object) -> str:
        coloured.append(text)
        return real(text, **kw)

    monkeypatch.setattr(util, "hl", hl)
    protocol, transport = open_protocol()
    protocol.serverSend('{"type":"pong","t":1}', False)
    assert transport.value().endswith(b'{"type":"pong","t":1}')
    assert coloured == []


def test_a_debug_line_written_reads_as_before():
    defer_debug_text()
    defer_debug_text()  # (again: nothing more changes)
    for module in (websocket_protocol, twisted_websocket):
        assert module.hltype is not util.hltype
        assert module.hlval is not util.hlval
        # (formatted as autobahn's logger formats: through __format__)
        line = f"{module.hltype(util.hltype)} sent {module.hlval(12)} bytes"
        assert line == f"{util.hltype(util.hltype)} sent {util.hlval(12)} bytes"
