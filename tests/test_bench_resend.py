"""Issue 33 item 5: the bench's players, like the browser, send a move again
with its id when it is answered ``server_error`` or ``busy``, and count it
apart from the errors players saw."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from bench import players
from bench.players import Player, Run, TableSpec


class FakeSocket:
    """Answers each move with the next of ``answers`` (then acks)."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers = list(answers)
        self.sent: list[dict[str, Any]] = []
        self.inbox: asyncio.Queue[str] = asyncio.Queue()

    async def send(self, raw: str) -> None:
        message = json.loads(raw)
        self.sent.append(message)
        answer = self.answers.pop(0) if self.answers else {"type": "ack", "v": 2}
        await self.inbox.put(json.dumps({**answer, "id": message["id"]}))

    async def recv(self) -> str:
        return await self.inbox.get()


def play(monkeypatch, answers: list[dict[str, Any]]) -> tuple[Run, FakeSocket]:
    monkeypatch.setattr(players, "RESEND_FIRST_S", 0.001)

    async def go() -> tuple[Run, FakeSocket]:
        now = time.perf_counter()
        run = Run((now, now + 60))
        player = Player(run, TableSpec(1, "tienlen", ["t"] * 4), 0, ["ws://x"])
        ws = FakeSocket(answers)
        act = {"type": "act", "id": "m1", "v": 1, "action": {"type": "pass"}}
        player.pending, player.move = "m1", act
        await player._send_act(ws, act)
        await player._listen(ws, time.perf_counter() + 0.5)
        return run, ws

    return asyncio.run(go())


ERROR = {"type": "error", "code": "server_error", "message": "..."}


def test_a_move_answered_server_error_or_busy_goes_again_with_its_id(monkeypatch):
    run, ws = play(monkeypatch, [ERROR, {**ERROR, "code": "busy"}])
    assert [m["id"] for m in ws.sent] == ["m1"] * 3
    assert run.resent == {"server_error": 1, "busy": 1}
    assert run.errors == {}
    assert run.actions["m1"].acked is not None


def test_a_refusal_is_not_sent_again(monkeypatch):
    run, ws = play(monkeypatch, [{**ERROR, "code": "not_your_turn"}])
    assert len(ws.sent) == 1
    assert run.errors == {"not_your_turn": 1}


def test_three_times_at_most(monkeypatch):
    run, ws = play(monkeypatch, [ERROR] * 4)
    assert len(ws.sent) == 4
    assert run.resent == {"server_error": 3}
    assert run.errors == {"server_error": 1}
