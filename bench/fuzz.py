"""Protocol fuzzing: thousands of random and malformed WebSocket messages from
authenticated players, each at a table of its own with a hand in play.

Messages: broken JSON, non-objects, binary frames, oversized frames, unknown
or missing types, wrong field types, huge numbers, unknown and duplicate
cards, other players' cards, moves out of turn, stale versions, bad seats and
buy-ins, bad chat, floods; and now and then a legal move so that the hands
move on. Every message must be answered as docs/protocol.md says (an
``error`` with a stable code, an ``ack``, a ``pong`` or a ``state``), anything
refused must leave the table exactly as it was (its version unchanged), the
flood limit must close the socket with 1008, and the servers must log no
exception.

    python -m bench.fuzz --messages 10000
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.players import GAMES, TableSpec, create_tables, money_checks, money_ok
from bench.stack import RESULTS, Stack, setup_django, write_results
from games.protocol import follow

LONG = {
    "ready_seconds": 3600,
    "arrange_seconds": 3600,
    "turn_seconds": 3600,
    "reveal_seconds": 2,
    "summary_seconds": 2,
}
SPACING_S = 0.36  # below the flood limit of 30 messages in 10 s
CARDS = [r + s for r in "23456789TJQKA" for s in "scdh"]


def ready_tables(specs: list[TableSpec]) -> None:
    from accounts.models import User
    from games import services

    for spec in specs:
        for user in User.objects.filter(pk__in=spec.users):
            services.table_ready(table_id=spec.id, user=user, client_seed="fuzz")


class Fuzzer:
    def __init__(self, spec: TableSpec, url: str, budget: int, seed: int) -> None:
        from games.plugins import engine_for

        self.spec, self.url, self.budget = spec, url, budget
        self.engine = engine_for(spec.game)
        self.rng = random.Random(seed)
        self.state: dict[str, Any] = {}
        self.syncing: int | None = None  # the version a sync was asked from
        self.answers: Counter[str] = Counter()
        self.violations: list[str] = []
        self.sent = 0
        self.closes: Counter[int] = Counter()
        self.ws: Any = None

    # -- the connection ------------------------------------------------------------

    def connect(self) -> None:
        from websockets.sync.client import connect

        self.ws = connect(  # the connection is closed by run()
            self.url,
            additional_headers={"Authorization": f"Token {self.spec.tokens[0]}"},
            open_timeout=20,
            max_size=2**22,
        )
        self.state, self.syncing = {}, None
        self.state = self.recv_json(10)

    def recv_json(self, timeout: float) -> dict[str, Any]:
        """The next message; the state held follows states and deltas as a
        browser's does (a delta that does not apply asks for a ``sync``)."""
        message = json.loads(self.ws.recv(timeout=timeout))
        if message.get("type") in ("state", "delta") and isinstance(message.get("v"), int):
            state, sync = follow(self.state or None, message)
            if state is not None:
                self.state, self.syncing = state, None
            elif sync and self.syncing != self.state.get("v", 0):
                self.syncing = self.state.get("v", 0)
                self.ws.send(json.dumps({"type": "sync", "v": self.syncing}))
        return dict(message)

    def snapshot(self) -> tuple[int, tuple[Any, ...]]:
        """The table's version, and what changes without any message: clocks
        running out (clock version) and settlements (hand settled)."""
        from games.models import Table

        version, clock_version, hand, settled = (
            Table.objects.filter(pk=self.spec.id)
            .values_list("version", "clock_version", "current_hand", "current_hand__settled")
            .get()
        )
        return int(version), (clock_version, hand, settled)

    # -- one exchange -------------------------------------------------------------

    def exchange(self, kind: str, frame: Any, client_id: Any) -> None:
        """Send one frame and read until it is answered; check a refusal changed nothing."""
        from websockets.exceptions import ConnectionClosed

        before = self.snapshot()
        self.sent += 1
        try:
            self.ws.send(frame)
            answer = self.answer(kind, client_id)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            self.closes[code or 0] += 1
            if code != 1008:
                self.violations.append(f"closed with {code} after {kind}")
            self.connect()
            return
        except TimeoutError:
            self.violations.append(f"no answer to {kind}: {str(frame)[:80]}")
            return
        self.answers[answer] += 1
        after = self.snapshot()
        if answer.startswith("error:") and after[0] != before[0] and after[1] == before[1]:
            self.violations.append(f"refused {kind} ({answer}) changed the table")
        if kind == "legal" and answer == "ack":
            self.others_move()

    def others_move(self) -> None:
        """The other seats (no sockets) move through the services until it is
        this player's turn again, so that the hand goes on."""
        from django.db import transaction

        from accounts.models import User
        from games import services
        from games.models import Hand, Table
        from kernel.errors import ServiceError

        users = {u.pk: u for u in User.objects.filter(pk__in=self.spec.users)}
        for _ in range(60):
            table = Table.objects.get(pk=self.spec.id)
            hand = Hand.objects.filter(pk=table.current_hand_id or 0, ended_at=None).first()
            if hand is None:
                if table.status == Table.Status.WAITING:  # between hands: they are ready
                    for user_id in self.spec.users[1:]:
                        with contextlib.suppress(ServiceError):
                            services.table_ready(table_id=table.pk, user=users[user_id])
                return
            state = self.engine.loads(hand.state)
            others = [
                i
                for i in self.engine.status(state).actors
                if hand.players[i]["user_id"] != self.spec.users[0]
            ]
            if not others:
                return
            player = others[0]
            action = self.engine.bot_action(
                self.engine.view(state, player), self.rng.getrandbits(32)
            )
            with transaction.atomic():
                services.table_act(
                    table_id=table.pk,
                    user=users[hand.players[player]["user_id"]],
                    action=action,
                    version=table.version,
                )

    def answer(self, kind: str, client_id: Any) -> str:
        deadline = time.monotonic() + 5
        while True:
            message = self.recv_json(max(0.05, deadline - time.monotonic()))
            kind_in = message.get("type")
            if kind_in == "error" and (message.get("id") == client_id or client_id is None):
                return f"error:{message.get('code')}"
            if kind_in == "ack" and message.get("id") == client_id and client_id is not None:
                return "ack"
            if kind_in == "pong" and kind == "ping":
                return "pong"
            if kind_in == "state" and kind == "sync" and message.get("resync"):
                return "state"

    # -- the messages -------------------------------------------------------------

    def my_cards(self) -> list[str]:
        view = (self.state.get("hand") or {}).get("view") or {}
        for key in ("hand", "hole"):
            if isinstance(view.get(key), list):
                return list(view[key])
        own = view.get("own") or {}
        return list(own.get("cards") or [])

    def legal_action(self) -> dict[str, Any] | None:
        hand = self.state.get("hand") or {}
        view = hand.get("view")
        if not view or hand.get("finished"):
            return None
        try:
            return dict(self.engine.bot_action(view, self.rng.getrandbits(32)))
        except Exception:
            return None  # not this player's move

    def junk_value(self) -> Any:
        return self.rng.choice(
            [None, True, -1, 0, 2**70, -(2**70), 1.5, 1e308, "", "x" * 300, [], {}, [1, 2],
             {"a": {"b": {"c": []}}}, "\u0000", "10x", "Zz", "🂡"]
        )  # fmt: skip

    def cards(self) -> Any:
        mine, rng = self.my_cards(), self.rng
        choice = rng.randrange(6)
        if choice == 0:
            return [rng.choice(["Zz", "1s", "10x", "", "AA", 42, None])]
        if choice == 1 and mine:
            return [mine[0], mine[0]]  # duplicate
        if choice == 2:
            others = [c for c in CARDS if c not in mine]
            return rng.sample(others, k=min(len(others), rng.randint(1, 5)))
        if choice == 3:
            return self.junk_value()
        if choice == 4 and mine:
            return rng.sample(mine, k=rng.randint(1, min(5, len(mine))))
        return rng.sample(CARDS, k=rng.randint(0, 13))

    def action(self) -> Any:
        rng = self.rng
        kind = rng.choice(["play", "pass", "submit", "fold", "check", "call", "raise", "all_in",
                           "dance", None, 7])  # fmt: skip
        action: dict[str, Any] = {"type": kind}
        if kind == "play" or rng.random() < 0.2:
            action["cards"] = self.cards()
        if kind == "submit":
            mine = self.my_cards()
            rng.shuffle(mine)
            action.update(chi1=mine[:5], chi2=mine[5:10], chi3=mine[10:13])
            if rng.random() < 0.5:
                action[rng.choice(["chi1", "chi2", "chi3"])] = self.cards()
        if kind == "raise":
            action["to"] = rng.choice([0, 1, -5, 10**30, "100", None, 3.7, 40, 400])
        if rng.random() < 0.1:
            return self.junk_value()
        return action

    def message(self) -> tuple[str, Any, Any]:
        """(kind, frame to send, client id expected in the answer)."""
        rng, v = self.rng, self.state.get("v", 0)
        cid = f"f{self.sent}-{rng.getrandbits(20)}"
        roll = rng.random()
        if roll < 0.06:
            return "bad_json", rng.choice(["{", "nope", '{"type":', "[1,2", "\u0000"]), None
        if roll < 0.10:
            return "not_object", json.dumps(rng.choice([[1], 3, "ping", None, True])), None
        if roll < 0.13:
            return "binary", bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64))), None
        if roll < 0.15:
            return "too_large", json.dumps({"type": "chat", "text": "x" * 9000}), None
        if roll < 0.20:
            return "unknown_type", json.dumps({"type": rng.choice(["dance", "", "ACT", 5])}), None
        if roll < 0.25:
            return "ping", json.dumps({"type": "ping", "t": self.junk_value()}), None
        if roll < 0.30:
            return "sync", json.dumps({"type": "sync", "v": self.junk_value()}), None
        if roll < 0.36:
            position = rng.choice([-1, 0, 1, 99, "a", 1e20, None])
            frame = {"type": "sit", "id": cid, "position": position, "buy_in": self.junk_value()}
            return "sit", json.dumps(frame), cid
        if roll < 0.42:
            text = rng.choice(["", " ", "x" * 201, None, 5, ["a"], "<script>alert(1)</script>"])
            return "chat", json.dumps({"type": "chat", "id": cid, "text": text}), cid
        if roll < 0.46:
            frame = {"type": "buy_in", "id": cid, "amount": self.junk_value()}
            return "buy_in", json.dumps(frame), cid
        if roll < 0.52:
            seed = rng.choice(["s" * 500, "fuzz", "", self.junk_value()])
            return "ready", json.dumps({"type": "ready", "id": cid, "client_seed": seed}), cid
        if roll < 0.56:
            legal = self.legal_action()
            if legal is not None:  # a real move: the hand goes on
                return "legal", json.dumps({"type": "act", "id": cid, "v": v, "action": legal}), cid
        if roll < 0.62:
            legal = self.legal_action() or {"type": "pass"}
            frame = {"type": "act", "id": cid, "v": max(0, v - rng.randint(1, 50)), "action": legal}
            return "stale", json.dumps(frame), cid
        bad_id = rng.random() < 0.15
        frame = {
            "type": "act",
            "id": self.junk_value() if bad_id else cid,
            "v": rng.choice([v, v + 10**6, -1, "v", None, 1.5]),
            "action": self.action(),
        }
        answer_id = frame["id"] if isinstance(frame["id"], str) and frame["id"] else None
        return "act", json.dumps(frame, default=str), answer_id

    # -- the run ------------------------------------------------------------------

    def run(self) -> None:
        self.connect()
        while self.sent < self.budget:
            if self.rng.random() < 0.004:
                self.flood()
                continue
            kind, frame, client_id = self.message()
            self.exchange(kind, frame, client_id)
            if self.sent % 25 == 0:
                self.others_move()
            time.sleep(SPACING_S)
        self.ws.close()
        from django.db import connection

        connection.close()

    def flood(self) -> None:
        """200 pings at once: refused with rate_limited, then closed with 1008."""
        from websockets.exceptions import ConnectionClosed

        try:
            for _ in range(200):
                self.ws.send(json.dumps({"type": "ping"}))
                self.sent += 1
            while True:
                message = self.recv_json(10)
                if message.get("type") == "error":
                    self.answers[f"error:{message.get('code')}"] += 1
        except ConnectionClosed as closed:
            self.closes[closed.rcvd.code if closed.rcvd else 0] += 1
        except TimeoutError:
            self.violations.append("a flood was not closed")
        time.sleep(10)  # the limit's window
        self.connect()


def fuzz(messages: int, tables: int, workdir: Path) -> dict[str, Any]:
    with Stack(workdir, extra_env={"WS_RATE_LIMIT": "30"}) as stack:
        setup_django()
        specs = [
            spec
            for n in range(tables)
            for spec in create_tables(1, GAMES[n % len(GAMES)], prefix=f"z{n}", **LONG)
        ]
        ready_tables(specs)
        per_table = messages // tables
        fuzzers = [
            Fuzzer(spec, f"ws://127.0.0.1:{stack.ports[n % 2]}/ws/tables/{spec.id}/", per_table, n)
            for n, spec in enumerate(specs)
        ]
        threads = [threading.Thread(target=f.run) for f in fuzzers]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        answers: Counter[str] = Counter()
        closes: Counter[int] = Counter()
        for f in fuzzers:
            answers.update(f.answers)
            closes.update(f.closes)
        violations = [v for f in fuzzers for v in f.violations]
        errors = stack.errors_in_logs()
        money = money_checks()
        result = {
            "messages": sum(f.sent for f in fuzzers),
            "tables": tables,
            "seconds": round(time.monotonic() - started, 1),
            "answers": dict(answers.most_common()),
            "closes": dict(closes),
            "violations": violations[:50],
            "violation_count": len(violations),
            "server_errors": errors[:20],
            "money": money,
        }
        result["passed"] = bool(not violations and not errors and money_ok(money))
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vipgame-fuzz-") as tmp:
        result = fuzz(args.messages, args.tables, Path(tmp))
        logs = RESULTS / "fuzz-logs"
        shutil.rmtree(logs, ignore_errors=True)
        shutil.copytree(tmp, logs, ignore=shutil.ignore_patterns("*.sock", "pg", "static"))
    print(json.dumps(result, indent=2, default=str))
    write_results(result, "fuzz")
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
