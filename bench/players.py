"""WebSocket players for the benchmarks and drills.

Each player holds one seat and moves the moment it is its turn (no think
time): Tiến Lên and Mậu Binh with the engines' bot policies on its own seat
view, Hold'em by checking or calling. It readies up between hands, buys in
again when broke, pings every ten seconds, and reconnects (to the next server
in its list) whenever its socket drops, resyncing by version. It keeps the
state as the browser does: a ``delta`` is applied to it (a stale message is
dropped; a delta that does not apply asks for a ``sync``). With ``chaos`` it
also drops its own socket now and then.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import random
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bench.stack import wait_until
from games.protocol import follow

GAMES = ("tienlen", "holdem", "maubinh")
PASSWORD = "Bench-Tien-Len-42"
#: Seconds between a player's pings: the most often docs/protocol.md lets a
#: client ping (10-20 s; the browser pings every 15 s: ``--ping 15``).
PING_S = 10.0
RECONNECT_FIRST_S, RECONNECT_MAX_S = 0.5, 8.0  # (static/js/socket.js)
#: The answers that mean "nothing was done: send it again" (docs/protocol.md),
#: how many times a move goes again, and the first wait (doubling).
RESEND_CODES = ("server_error", "busy")
RESENDS = 3
RESEND_FIRST_S = 0.5


@dataclass
class TableSpec:
    id: int
    game: str
    tokens: list[str]
    users: list[int] = field(default_factory=list)


def most_buy_in(table: Any) -> int | None:
    """The most a player may buy in with at ``table`` (None: its game has no buy-in)."""
    from games.plugins import plugin_for

    limits = plugin_for(table.game).money.buy_in_range(table)
    return None if limits is None else limits[1]


def create_tables(
    count: int, game: str, *, prefix: str = "b", seats: int = 4, **table: Any
) -> list[TableSpec]:
    """``count`` tables of ``game`` (or of each game in turn for ``mix``), a
    player with an API token sat at every seat. Needs Django set up."""
    from datetime import timedelta

    from django.conf import settings

    from accounts.sessions import token_issue
    from games import services
    from wallet.services import player_signup

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    specs = []
    tag = secrets.token_hex(2)
    for n in range(count):
        kind = GAMES[n % len(GAMES)] if game == "mix" else game
        users = [
            player_signup(
                username=f"{prefix}{tag}-{n}-{i}",
                display_name=f"P{tag}-{n}-{i}",
                password="Bench-Tien-Len-42",
            )
            for i in range(seats)
        ]
        created = services.table_create(
            owner=users[0], game=kind, stake=1, seat_count=seats, **table
        )
        for position, user in enumerate(users):
            buy_in = most_buy_in(created)
            # The players ready themselves (``Run.readying``), so that a run can
            # stop dealing: no auto-ready (on by default where bots sit).
            services.table_sit(
                table_id=created.pk, user=user, position=position, buy_in=buy_in, auto_ready=False
            )
        # a device session each, its access token good for the longest run
        day = timedelta(days=1)
        tokens = [token_issue(user=u, name="bench", access_ttl=day) for u in users]
        specs.append(TableSpec(created.pk, kind, tokens, [u.pk for u in users]))
    return specs


@dataclass
class Action:
    table: int
    sent: float
    version: int | None = None  # the table version the action produced (its ack says)
    duplicate: bool = False
    refused: str | None = None
    acked: float | None = None


class Run:
    """What every player saw: arrivals of versions per seat, actions, pings, errors."""

    def __init__(
        self, window: tuple[float, float], think: float = 0.0, ping: float = PING_S
    ) -> None:
        self.window = window
        self.think = think  # mean seconds a player waits before moving (0: at once)
        self.ping = ping  # seconds between a socket's pings
        self.acting = True
        self.readying = True  # False: finish the hands in play, start no more
        self.actions: dict[str, Action] = {}
        self.arrivals: dict[tuple[int, int], tuple[list[int], list[float]]] = {}
        self.pings: list[float] = []
        self.errors: Counter[str] = Counter()
        # Moves sent again with their id after server_error or busy, by code
        # (not counted in ``errors`` unless the last one failed too).
        self.resent: Counter[str] = Counter()
        self.reconnects = 0
        self.hands_seen: dict[int, set[int]] = {}
        self.error_times: list[float] = []
        # Table messages received in the window, and their bytes, by type.
        self.received: Counter[str] = Counter()
        self.received_bytes: Counter[str] = Counter()
        self.stopped = False
        self.loop: asyncio.AbstractEventLoop | None = None  # the players'
        self.sockets: set[Any] = set()  # the players' open sockets
        self.closing: set[asyncio.Future[None]] = set()

    def stop(self) -> None:
        """End the window now, and have every player close its socket and
        return (``play``'s own end may be minutes away). Any thread may call it."""
        self.window = (self.window[0], time.perf_counter())
        self.stopped = True
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._close_sockets)

    def _close_sockets(self) -> None:
        for ws in list(self.sockets):
            task = asyncio.ensure_future(ws.close())
            self.closing.add(task)
            task.add_done_callback(self.closing.discard)

    def arrived(self, table: int, position: int, version: int, at: float) -> None:
        versions, times = self.arrivals.setdefault((table, position), ([], []))
        if not versions or version > versions[-1]:
            versions.append(version)
            times.append(at)

    def reached_all(self, table: int, version: int, seats: int = 4) -> float | None:
        """When the last seat of the table first had ``version`` or a later one."""
        reached = self.reached_each(table, version, seats)
        return None if reached is None else max(reached)

    def reached_each(self, table: int, version: int, seats: int = 4) -> list[float] | None:
        """When each seat of the table first had ``version`` or a later one
        (None if one never had it)."""
        reached = []
        for position in range(seats):
            versions, times = self.arrivals.get((table, position), ([], []))
            i = bisect.bisect_left(versions, version)
            if i == len(versions):
                return None
            reached.append(times[i])
        return reached

    def in_window(self, at: float) -> bool:
        return self.window[0] <= at < self.window[1]


def failure_kind(exc: BaseException) -> str:
    """A socket's failure by its kind, and its close code when the server sent
    one (``ConnectionClosedError:1013``: shed while opening, try again)."""
    rcvd = getattr(exc, "rcvd", None)
    code = getattr(rcvd, "code", None)
    return type(exc).__name__ + (f":{code}" if code is not None else "")


class Dropped(Exception):
    """The player drops its own socket (chaos)."""


class Player:
    def __init__(
        self,
        run: Run,
        spec: TableSpec,
        position: int,
        urls: list[str],
        *,
        chaos: float = 0.0,
        pong_timeout: float = 0.0,
    ) -> None:
        from games.rules.holdem.engine import ENGINE as holdem
        from games.rules.maubinh.engine import ENGINE as maubinh
        from games.rules.tienlen.engine import ENGINE as tienlen

        self.engines: dict[str, Any] = {"holdem": holdem, "maubinh": maubinh, "tienlen": tienlen}
        self.run, self.spec, self.position = run, spec, position
        self.urls = [f"{u}/ws/tables/{spec.id}/" for u in urls]
        self.token = spec.tokens[position]
        self.chaos = chaos
        # As the page's socket.js: a ping not answered within this many seconds
        # means the path to the server froze (a host cut off): drop the socket
        # and reconnect. 0: wait on it (the server or TCP ends it).
        self.pong_timeout = pong_timeout
        self.last_pong = 0.0
        self.pending: str | None = None
        self.asked: str | None = None  # the id of the last ready or buy-in sent
        self.move: dict[str, Any] | None = None  # the pending move, to send again
        self.resent = 0  # times the pending move was sent again
        self.readied_for: int | None = None
        self.bought_for: int | None = None
        self.seeded_for: str | None = None  # the commitment our last seed answered
        self.submitted: int | None = None
        self.counter = 0
        self.thinking: set[asyncio.Task[None]] = set()
        self.state: dict[str, Any] | None = None  # the latest state (deltas applied)
        self.syncing: int | None = None  # the version a sync was asked from
        self.rng = random.Random(spec.id * 10 + position)
        self.server = position % len(self.urls)
        # As the browser's socket.js: 0.5 s doubling to 8 s, each wait drawn
        # between half and all of it; back to 0.5 s once connected.
        self.backoff = RECONNECT_FIRST_S

    async def play(self, until: float, ramp: float = 0.0) -> None:
        """Play until ``until``; the first connection at a random moment of the
        first ``ramp`` seconds (players arrive over time, not all at once)."""
        from websockets.asyncio.client import connect

        self.run.loop = asyncio.get_running_loop()
        if ramp:
            await asyncio.sleep(self.rng.random() * ramp)
        while time.perf_counter() < until and not self.run.stopped:
            try:
                async with connect(
                    self.urls[self.server],
                    additional_headers={"Authorization": f"Token {self.token}"},
                    max_size=2**20,
                    open_timeout=20,
                    ping_interval=None,
                ) as ws:
                    self.run.sockets.add(ws)
                    self.backoff = RECONNECT_FIRST_S
                    self.pending, self.syncing = None, None
                    # A ready or buy-in sent on the socket that dropped may be
                    # lost with its server: as on the page (the button shows
                    # again), the state after this sync decides whether to send it.
                    self.readied_for, self.bought_for = None, None
                    await ws.send(json.dumps({"type": "sync", "v": 0}))
                    pinger = asyncio.create_task(self._ping(ws, until))
                    try:
                        await self._listen(ws, until)
                    finally:
                        pinger.cancel()
                        self.run.sockets.discard(ws)
                    if time.perf_counter() >= until or self.run.stopped:
                        return
            except Dropped:
                self.run.reconnects += 1
                await asyncio.sleep(self.rng.random() * 2)
            except Exception as exc:  # the server went away: try the next one
                if self.run.stopped:
                    return  # (the run closed the socket)
                self.run.reconnects += 1
                self.run.errors[f"socket:{failure_kind(exc)}"] += 1
                self.run.error_times.append(time.perf_counter() - self.run.window[0])
                self.server = (self.server + 1) % len(self.urls)
                await asyncio.sleep(self.backoff / 2 + self.rng.random() * self.backoff / 2)
                self.backoff = min(self.backoff * 2, RECONNECT_MAX_S)

    async def _ping(self, ws: Any, until: float) -> None:
        """Every ``run.ping`` seconds (10-20 s, as docs/protocol.md asks of clients)."""
        every = self.run.ping
        await asyncio.sleep(self.rng.random() * every)
        while time.perf_counter() < until:
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "t": sent}))
            if not self.pong_timeout:
                await asyncio.sleep(every)
                continue
            await asyncio.sleep(self.pong_timeout)
            if self.last_pong < sent:
                self.run.errors["socket:pong_timeout"] += 1
                ws.transport.abort()  # (recv fails: the player reconnects)
                return
            await asyncio.sleep(max(0.0, every - self.pong_timeout))

    async def _listen(self, ws: Any, until: float) -> None:
        while True:
            left = until - time.perf_counter()
            if left <= 0 or self.run.stopped:
                return
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=left)
            except TimeoutError:
                return
            now = time.perf_counter()
            message = json.loads(raw)
            kind = message.get("type")
            if kind in ("state", "delta"):
                if self.run.in_window(now):
                    self.run.received[kind] += 1
                    self.run.received_bytes[kind] += len(raw)
                await self._take(ws, message, now)
            elif kind == "ack" and message.get("id") in self.run.actions:
                action = self.run.actions[message["id"]]
                action.version, action.duplicate = message.get("v"), bool(message.get("duplicate"))
                action.acked = now
                if message["id"] == self.pending:
                    self.pending = None
            elif kind == "error" and self._send_again(ws, message):
                self.run.resent[str(message.get("code"))] += 1
            elif kind == "error":
                self.run.errors[str(message.get("code"))] += 1
                if message.get("id") in self.run.actions:
                    self.run.actions[message["id"]].refused = message.get("code")
                if message.get("id") == self.pending:
                    self.pending = None
                if message.get("id") == self.asked and message.get("code") in RESEND_CODES:
                    self._ask_again(ws)
            elif kind == "pong":
                self.last_pong = now
                sent = message.get("t")
                if isinstance(sent, float) and self.run.in_window(sent):
                    self.run.pings.append(now - sent)
            if self.chaos and self.rng.random() < self.chaos:
                raise Dropped

    async def _take(self, ws: Any, message: dict[str, Any], now: float) -> None:
        """A state, or a delta applied to the state held (docs/protocol.md)."""
        state, sync = follow(self.state, message)
        if state is None:
            held = self.state["v"] if self.state else 0
            if sync and self.syncing != held:
                self.syncing = held
                await ws.send(json.dumps({"type": "sync", "v": held}))
            return
        self.state, self.syncing = state, None
        self.run.arrived(self.spec.id, self.position, state["v"], now)
        if state.get("hand"):
            self.run.hands_seen.setdefault(self.spec.id, set()).add(state["hand"]["id"])
        await self._decide(ws, state)

    async def _decide(self, ws: Any, state: dict[str, Any]) -> None:
        if not self.run.acting or time.perf_counter() >= self.run.window[1]:
            return
        table, hand = state["table"], state["hand"]
        seat = next((s for s in table["seats"] if s["position"] == self.position), None)
        if seat is None:
            return
        commitment = table.get("next_commitment")
        if commitment and self.seeded_for != commitment:
            # As the browser does: a new seed as soon as a new commitment shows
            # (docs/fairness.md), so that no deal waits for it.
            self.seeded_for = commitment
            seed = {"type": "seed", "id": self.next_id(), "client_seed": secrets.token_hex(16)}
            await ws.send(json.dumps({**seed, "commitment": commitment}))
        if table["status"] == "waiting" and not seat["ready"]:
            if not self.run.readying:
                return
            played = table["hands_played"]
            if self.spec.game == "holdem" and not seat["chips"] and self.bought_for != played:
                self.bought_for = played
                self.asked = self.next_id()
                await ws.send(json.dumps({"type": "buy_in", "id": self.asked, "amount": 200}))
            if self.readied_for != played or seat["sitting_out"]:
                self.readied_for = played
                self.asked = self.next_id()
                ready = {"type": "ready", "id": self.asked, "client_seed": secrets.token_hex(8)}
                await ws.send(json.dumps(ready))
            return
        if hand is None or hand["finished"] or self.pending is not None or not hand["view"]:
            return
        action = self.choose(state, hand["view"])
        if action is None or (self.spec.game == "maubinh" and self.submitted == hand["id"]):
            return  # a Mậu Binh player arranges once (a state older than its own
            # submission can still arrive, showing it not submitted)
        self.submitted = hand["id"]
        client_id = self.next_id()
        self.pending = client_id
        act = {"type": "act", "id": client_id, "v": state["v"], "action": action}
        self.move, self.resent = act, 0
        if not self.run.think:
            await self._send_act(ws, act)
            return
        # Think without holding up this socket's reading: arrival times stay exact.
        delay = self.rng.uniform(0.5, 1.5) * self.run.think
        task = asyncio.create_task(self._send_act(ws, act, delay))
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)

    async def _send_act(self, ws: Any, act: dict[str, Any], delay: float = 0.0) -> None:
        if delay:
            await asyncio.sleep(delay)
            if time.perf_counter() >= self.run.window[1]:
                self.pending = None
                return
        # (a move sent again keeps the time it was first sent)
        self.run.actions.setdefault(act["id"], Action(self.spec.id, time.perf_counter()))
        try:
            await ws.send(json.dumps(act))
        except Exception:
            if not delay:
                raise
            self.pending = None  # the socket went while thinking: the listener reconnects

    def _ask_again(self, ws: Any) -> None:
        """A ready or buy-in answered ``server_error`` or ``busy`` (nothing was
        done): as on the page, where its button shows again, it is sent again
        after RESEND_FIRST_S if the latest state still asks for it."""
        self.readied_for, self.bought_for, self.asked = None, None, None

        async def later() -> None:
            await asyncio.sleep(RESEND_FIRST_S)
            if self.state is not None:
                with contextlib.suppress(Exception):  # (the socket went: the listener reconnects)
                    await self._decide(ws, self.state)

        task = asyncio.create_task(later())
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)

    def _send_again(self, ws: Any, error: dict[str, Any]) -> bool:
        """As the browser's socket.js: the pending move answered ``server_error``
        or ``busy`` (nothing was done) goes again with its id, which the server
        does at most once, up to RESENDS times after 0.5, 1 and 2 s."""
        move = self.move
        if (
            move is None
            or error.get("id") != self.pending
            or error.get("id") != move["id"]
            or error.get("code") not in RESEND_CODES
            or self.resent >= RESENDS
        ):
            return False
        self.resent += 1
        wait = RESEND_FIRST_S * 2 ** (self.resent - 1)
        task = asyncio.create_task(self._send_act(ws, move, wait))
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)
        return True

    def choose(self, state: dict[str, Any], view: dict[str, Any]) -> dict[str, Any] | None:
        """Move at once when it is this player's move; Hold'em checks or calls."""
        if state["you"] is None or state["you"] not in state["actors"]:
            return None
        if self.spec.game == "holdem":
            return {"type": "check"} if not view["to_call"] else {"type": "call"}
        return dict(self.engines[self.spec.game].bot_action(view, self.counter))

    def next_id(self) -> str:
        self.counter += 1
        return f"{self.spec.id}.{self.position}.{self.counter}.{self.rng.getrandbits(24)}"


def players_for(
    run: Run, specs: list[TableSpec], urls: list[str], *, chaos: float = 0.0
) -> list[Player]:
    """Four players per table, seats spread over the servers in ``urls``."""
    return [Player(run, spec, p, urls, chaos=chaos) for spec in specs for p in range(4)]


def money_checks(ended_by: datetime | None = None) -> dict[str, Any]:
    """Σ balances = 0, no negative balance, every finished hand settled exactly once.

    ``ended_by`` (a datetime) counts only the hands that had ended by then as
    finished or unsettled: tables whose clocks still run go on dealing after
    the players stop, and a hand ending in the instant of the check is in
    flight, not left behind. Σ and "settled twice" cover everything.
    """
    from django.db.models import Sum

    from games.models import Hand
    from wallet.models import Account, LedgerTransaction

    finished = Hand.objects.filter(ended_at__isnull=False)
    if ended_by is not None:
        finished = finished.filter(ended_at__lte=ended_by)
    keys = Counter(
        LedgerTransaction.objects.filter(idempotency_key__startswith="hand:").values_list(
            "idempotency_key", flat=True
        )
    )
    return {
        "sum_of_balances": Account.objects.aggregate(total=Sum("balance"))["total"] or 0,
        "negative_balances": Account.objects.exclude(kind=Account.Kind.ISSUANCE)
        .filter(balance__lt=0)
        .count(),
        "hands_finished": finished.count(),
        "hands_unsettled": finished.filter(settled=False).count(),
        "settled_twice": sum(1 for n in keys.values() if n > 1),
    }


def settled_money_checks(timeout: float = 30) -> dict[str, Any]:
    """The money checks once every hand that had ended by now is settled.

    Waits up to ``timeout`` s for those hands' settlements, then checks; hands
    that end during the wait are not counted (their settlement is in flight).
    """
    from django.utils import timezone

    ended_by = timezone.now()
    wait_until(lambda: money_checks(ended_by)["hands_unsettled"] == 0, timeout, 0.5)
    return money_checks(ended_by)


def money_ok(money: dict[str, Any]) -> bool:
    return (
        money["sum_of_balances"] == 0
        and money["negative_balances"] == 0
        and money["hands_unsettled"] == 0
        and money["settled_twice"] == 0
    )


def stuck_hands(older_than_s: float = 30) -> list[int]:
    """Hands in play whose table clock is long overdue (nothing will move them)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Table

    limit = timezone.now() - timedelta(seconds=older_than_s)
    return list(
        Table.objects.filter(deadline__lt=limit)
        .exclude(status=Table.Status.CLOSED)
        .values_list("pk", flat=True)
    )
