"""The multi-host drills (issue 33 item 6) on tests/hosts.py's namespaces:
socket players and bot tables play through nginx on the proxy host while

* ``partition``: app1 (Daphne, worker and beat) is cut off the network for
  ``--partition-s`` seconds (its switch port down: its connections go
  silent, nothing is closed), then let back;
* ``kill``: every process of app2 is ``kill -9``'d (the host lost), its
  players reconnect through nginx to app1, then the host is started again;
* ``postgres``: PostgreSQL on the data host restarts (fast shutdown: every
  session ended, PgBouncer's server connections with them);
* ``rolling``: a rolling release and its rollback, in the steps of
  docs/operations.md "Upgrades while serving", run literally: the new
  release's collectstatic and its migration (one that only adds: a column
  on ``games_hand``, tests/release_next) while the old release serves; then
  one app host at a time taken out of nginx's upstreams (drain), its
  processes restarted on the new release, each Daphne's ``/readyz`` asked
  until 200 and each worker ready, and the host put back; then the same
  back to the previous release, and only then the migration reversed
  (contract). Every hand the new release dealt wrote the column;
* ``restore`` (long form): docs/operations.md "Backups and restore" on the
  data host: the nightly base backup taken while the tables play, more
  hands, a noted point (the settled hands and the ledger) whose WAL segment
  is switched and archived, a few seconds more, then the database lost
  (PostgreSQL ``kill -9``'d, its data directory deleted) and the documented
  restore run literally (every app host stopped, the base backup unpacked,
  the archived WAL replayed, the tables' versions moved past the clients',
  everything started again). Every row of the noted point must be there as
  it was, nothing half there, and the room back within its bound;
* ``redis-failover``: the Redis primary on the data host is ``kill -9``'d
  mid-hand; the sentinels (data, data2, proxy) promote the replica on data2
  and every process follows it without a restart (none may exit); once every
  table has finished a hand since the kill, the old primary is started again
  and must become a replica of the new one (Sentinel reconfigures it).
  Prints the promotion's and the rejoin's seconds.

Each drill prints the longest pause of every table (the longest time its
version did not move, sampled every 0.25 s from the drill's start until
every table has finished a hand after it), the errors the players got, and
the hands finished during and after it. At the end the hands in play finish
and no more start, then the money checks: Σ balances = 0, no negative
balance, nothing settled twice, no hand unsettled, no table overdue.

    sudo .venv/bin/python -m tests.hostdrill --short     # what CI runs (tests/test_hosts.py)
    sudo .venv/bin/python -m tests.hostdrill --short --drills redis-failover
    sudo .venv/bin/python -m tests.hostdrill --short --plain-redis   # one Redis, no sentinels

Runs as its own process: Django is set up here against the data host's
PostgreSQL and Redis (through the admin link), not the tests' database.
Prints one JSON line ``RESULT {...}`` and exits 0 when every check passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from bench.players import Player, Run, create_tables, money_ok, settled_money_checks
from bench.stack import setup_django, wait_until

from .hosts import ADDRESSES, DOWN_AFTER_MS, OPERATIONS, Hosts, documented
from .topology import BIN, CLOCKS, ROOT, bot_tables

T = TypeVar("T")

# The page's pong time-out (static/js/socket.js): a socket through a host that
# was cut off is given up after this long without its pong, and reopened.
PONG_TIMEOUT_S = 6.0
# After a drill, every table must finish a hand within this long.
RECOVERY_S = 90.0
# Rolling release: after nginx's reload takes a host out, this long for the
# requests in flight on it to finish before its processes are stopped.
DRAIN_S = 1.0


class Pauses:
    """Samples every table's version every 0.25 s in a thread of its own:
    ``longest()`` is each table's longest stretch without a new version since
    ``reset()``."""

    def __init__(self, tables: list[int]) -> None:
        self.tables = tables
        self.lock = threading.Lock()
        self.seen: dict[int, tuple[int, float]] = {}
        self.gaps: dict[int, float] = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        from django.db import connection

        from games.models import Table

        try:
            while not self.stopped.wait(0.25):
                now = time.monotonic()
                rows = fresh(
                    lambda: dict(
                        Table.objects.filter(pk__in=self.tables).values_list("pk", "version")
                    )
                )
                if rows is not None:
                    with self.lock:
                        for table, version in rows.items():
                            last = self.seen.get(table)
                            if last is None or last[0] != version:
                                self.seen[table] = (version, now)
                            else:
                                gap = now - last[1]
                                self.gaps[table] = max(self.gaps.get(table, 0.0), gap)
        finally:
            connection.close()

    def reset(self) -> None:
        with self.lock:
            now = time.monotonic()
            self.seen = {t: (v, now) for t, (v, _) in self.seen.items()}
            self.gaps = {}

    def longest(self) -> dict[int, float]:
        with self.lock:
            return {t: round(self.gaps.get(t, 0.0), 1) for t in self.tables}

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=10)


class Playing:
    """The socket players, in an event loop of their own thread."""

    def __init__(self, players: list[Player], run: Run) -> None:
        self.run = run
        self.thread = threading.Thread(target=self._main, args=(players,), daemon=True)
        self.thread.start()

    def _main(self, players: list[Player]) -> None:
        async def everyone() -> None:
            await asyncio.gather(*(p.play(self.run.window[1]) for p in players))

        asyncio.run(everyone())

    def stop(self) -> None:
        self.run.stop()
        self.thread.join(timeout=30)


def hands_finished_since(tables: list[int], after: float) -> dict[int, int]:
    """table -> hands finished and settled since ``after`` (a time.time())."""
    from datetime import UTC, datetime

    from django.db.models import Count

    from games.models import Hand

    moment = datetime.fromtimestamp(after, tz=UTC)
    rows = (
        Hand.objects.filter(table__in=tables, ended_at__gt=moment, settled=True)
        .values("table")
        .annotate(n=Count("pk"))
    )
    return {row["table"]: row["n"] for row in rows}


def fresh(query: Callable[[], T]) -> T | None:
    """``query()``, or None if the database connection failed (PostgreSQL
    restarting): the connection is closed, the next call opens a new one."""
    from django.db import DatabaseError, connection

    try:
        return query()
    except DatabaseError:
        connection.close()
        return None


def versions(tables: list[int]) -> dict[int, int]:
    from games.models import Table

    return dict(Table.objects.filter(pk__in=tables).values_list("pk", "version"))


def every_table_moved_on(tables: list[int], after: float) -> bool:
    moved = fresh(lambda: hands_finished_since(tables, after))
    return moved is not None and len(moved) == len(tables)


def drill(
    name: str, hosts: Hosts, run: Run, pauses: Pauses, tables: list[int], args: Any
) -> dict[str, Any]:
    errors_before = dict(run.errors)
    reconnects_before = run.reconnects
    pauses.reset()
    began = time.time()
    detail: dict[str, Any] = {}
    if name == "partition":
        before = versions(tables)
        hosts.partition("app1")
        time.sleep(args.partition_s)
        after = versions(tables)
        detail["tables_that_moved_while_app1_was_cut_off"] = sum(
            1 for t in tables if after.get(t, 0) > before.get(t, 0)
        )
        detail["hands_finished_while_app1_was_cut_off"] = sum(
            hands_finished_since(tables, began).values()
        )
        hosts.heal("app1")
    elif name == "kill":
        hosts.kill_host("app2")
        detail["moved_on_without_app2"] = bool(
            wait_until(lambda: every_table_moved_on(tables, began), RECOVERY_S, 1)
        )
        hosts.start_host("app2")  # systemd's Restart=always, or the operator
    elif name == "postgres":
        detail["postgres_down_s"] = round(hosts.restart_postgres(), 1)
    elif name == "rolling":
        detail.update(rolling(hosts, tables))
    elif name == "add-host":
        detail.update(add_host(hosts))
    elif name == "restore":
        detail.update(restore(hosts, tables))
    elif name == "redis-failover":
        detail.update(redis_failover(hosts, tables))
    back = time.time()
    recovered = wait_until(lambda: every_table_moved_on(tables, back), RECOVERY_S, 1)
    longest = pauses.longest()
    result = {
        "drill": name,
        "seconds": round(time.time() - began, 1),
        "longest_pause_s": longest,
        "worst_pause_s": max(longest.values(), default=0.0),
        "every_table_finished_a_hand_after": bool(recovered),
        "errors_to_players": {
            code: n - errors_before.get(code, 0)
            for code, n in run.errors.items()
            if n - errors_before.get(code, 0)
        },
        "reconnects": run.reconnects - reconnects_before,
        **detail,
    }
    print(f"\n[{name}] " + json.dumps(result), flush=True)
    return result


# The releases of the rolling drill: the settings an app host's processes run
# with. "next" is the project plus tests/release_next (its migration adds a
# column, its code writes it); "previous" is the project as it is.
NEXT = {"DJANGO_SETTINGS_MODULE": "tests.settings_next", "SENTRY_RELEASE": "next"}
PREVIOUS = {"DJANGO_SETTINGS_MODULE": "vipgame.settings", "SENTRY_RELEASE": "previous"}


def manage(
    hosts: Hosts, release: dict[str, str], *command: str, role: str = "app1"
) -> subprocess.Popen[bytes]:
    """``manage <command>`` on app1 with ``release``'s code, started: directly
    on PostgreSQL (not through PgBouncer) with no statement time-out but the
    role's lock time-out, so an ALTER that cannot get its lock within 2 s
    fails instead of queueing every move behind it (docs/operations.md
    "Upgrades while serving")."""
    env = {**hosts.env, **hosts.host_env.get(role, {}), **release,
           "DB_STARTUP_OPTIONS": "1", "DB_STATEMENT_TIMEOUT_MS": "0",
           "DATABASE_URL": f"postgres://vipgame@{ADDRESSES['data']}:5432/vipgame"}  # fmt: skip
    return subprocess.Popen(
        ["ip", "netns", "exec", hosts.ns[role], str(BIN / "python"), "manage.py", *command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
    )


def done(process: subprocess.Popen[bytes], began: float) -> float:
    """Its seconds since ``began``, once it has exited 0."""
    assert process.wait(timeout=120) == 0, process.args
    return round(time.monotonic() - began, 1)


def documented_steps() -> tuple[str, str]:
    """docs/operations.md's steps for one app host ("Many app hosts"): the
    drain's and the return's ``sed`` lines, checked to come in the order
    drain, reload, restart, readiness, return, reload."""
    block = documented("Then for each app host in turn", "sh")
    edits = [line for line in block.splitlines() if line.startswith("sed -i ")]
    assert len(edits) == 2, block
    order = [edits[0], "nginx -t && systemctl reload nginx", "systemctl restart vipgame.target",
             "/readyz", edits[1], "nginx -t && systemctl reload nginx"]  # fmt: skip
    at = 0
    for step in order:
        at = block.index(step, at) + len(step)
    return edits[0], edits[1]


def roll(hosts: Hosts, role: str, release: dict[str, str]) -> dict[str, Any]:
    """One app host onto ``release`` as docs/operations.md says: drain (its
    documented ``sed``, the example host's address swapped for this one's),
    restart, ready, back in (the other ``sed``)."""
    drain, back = (
        line.replace("10\\.0\\.0\\.12", re.escape(hosts.addresses[role]))
        for line in documented_steps()
    )
    began = time.monotonic()
    hosts.edit_site(drain)
    time.sleep(DRAIN_S)  # requests in flight on the host finish
    drained = time.monotonic()
    hosts.stop_host(role)
    stopped = time.monotonic()
    hosts.release[role] = release
    hosts.start_host(role)  # waits for /readyz 200 on each Daphne, "ready." of each worker
    ready = time.monotonic()
    hosts.edit_site(back)
    return {
        "stopped_in_s": hosts.stopped_in,
        "stop_s": round(stopped - drained, 1),
        "start_to_ready_s": round(ready - stopped, 1),
        "out_of_nginx_s": round(time.monotonic() - began, 1),
    }


def dealt_by(tables: list[int], release: str, since: float = 0.0) -> dict[int, int]:
    """table -> hands dealt since ``since`` (a time.time()) by the new release
    (``release="next"``: it writes its column on every hand) or by the
    previous one on the expanded schema (``"previous"``: the column left NULL)."""
    from datetime import UTC, datetime

    from django.db import connection

    written = "\"release_next\" = 'next'" if release == "next" else '"release_next" IS NULL'
    with connection.cursor() as cursor:
        cursor.execute(
            'SELECT "table_id", count(*) FROM "games_hand" WHERE "table_id" = ANY(%s) '
            f'AND "started_at" > %s AND {written} GROUP BY "table_id"',
            [tables, datetime.fromtimestamp(since, tz=UTC)],
        )
        return dict(cursor.fetchall())


def has_next_column() -> bool:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM information_schema.columns "
            "WHERE table_name = 'games_hand' AND column_name = 'release_next'"
        )
        return cursor.fetchone() is not None


def rolling(hosts: Hosts, tables: list[int]) -> dict[str, Any]:
    """docs/operations.md "Upgrades while serving", with many hosts: the
    release, host by host, then its rollback, host by host, then the
    contract. (The drill's own wait after it: every table finishes a hand on
    the previous release and the contracted schema.)"""
    steps: dict[str, Any] = {}
    # The new release checked out beside the old one: static files, then migrate.
    began = time.monotonic()
    static = manage(hosts, NEXT, "collectstatic", "--noinput", "-v", "0")
    steps["collectstatic_s"] = done(static, began)
    began = time.monotonic()
    steps["migrate_s"] = done(manage(hosts, NEXT, "migrate", "--noinput", "-v", "0"), began)
    steps["column_added"] = has_next_column()
    for role in hosts.app_hosts:
        steps[f"release_{role}"] = roll(hosts, role, NEXT)
    # Every table dealt a hand on the new release (most did while the second
    # host was out, with every socket on the first).
    steps["every_table_dealt_by_next"] = bool(
        wait_until(lambda: len(fresh(lambda: dealt_by(tables, "next")) or {}) == len(tables),
                   RECOVERY_S, 0.5)
    )  # fmt: skip
    steps["hands_dealt_by_next"] = sum((fresh(lambda: dealt_by(tables, "next")) or {}).values())
    # The rollback: the previous release on every host; the schema stays as
    # it is. (Its collectstatic, which puts its manifest back, is left out
    # here: both releases have the same static files, so it would show
    # nothing for its ~10 s.)
    rollback = time.time()
    for role in hosts.app_hosts:
        steps[f"rollback_{role}"] = roll(hosts, role, PREVIOUS)
    # The previous release dealt on the expanded schema (it does not know the column).
    wait_until(lambda: fresh(lambda: dealt_by(tables, "previous", rollback)), 30, 0.5)
    steps["hands_dealt_by_previous_on_the_added_column"] = sum(
        (fresh(lambda: dealt_by(tables, "previous", rollback)) or {}).values()
    )
    # Contract, only now that no process runs the new release (and with its
    # code: the previous release does not have the migration).
    began = time.monotonic()
    contract = manage(hosts, NEXT, "migrate", "--noinput", "-v", "0", "release_next", "zero")
    steps["contract_s"] = done(contract, began)
    steps["column_dropped"] = not has_next_column()
    if "app3" in hosts.app_hosts:  # added by the add-host drill: it served sockets
        steps["sockets_opened_on_app3"] = sum(
            (hosts.logs / f"{name}.log").read_text(errors="replace").count('"WSCONNECT /ws/tables/')
            for name in hosts.app_names("app3")
            if "-web-" in name
        )
    return steps


def upstream_lines() -> tuple[str, str]:
    """The `server ...;` lines "Adding machines" gives a new host's Daphne,
    for the ``vipgame_web`` upstream and for ``vipgame_ws``."""
    text = OPERATIONS.read_text()
    text = text[text.index("**The upstream entries**") :]
    web = re.search(r"`(server 10\.0\.0\.12:8001 max_fails=2 [^`]*;)`", text)
    ws = re.search(r"`(server 10\.0\.0\.12:8001 max_fails=0;)`", text)
    assert web, "operations.md: no vipgame_web line for a new host"
    assert ws, "operations.md: no vipgame_ws line for a new host"
    return web.group(1), ws.group(1)


def add_host(hosts: Hosts, role: str = "app3") -> dict[str, Any]:
    """docs/operations.md "Adding machines", "More Daphne hosts": a host with
    its own VAR_DIR (so its static files are its own), its collectstatic,
    its units started and every Daphne's /readyz 200 from the nginx host
    (its database through PgBouncer and its Redis: the namespaces have no
    firewall, so that is the access check), then its upstream lines and a
    reload. Its processes: the same settings; no beat."""
    steps: dict[str, Any] = {}
    var_dir = hosts.workdir / f"var-{role}"
    var_dir.mkdir(exist_ok=True)
    hosts.host_env[role] = {"VAR_DIR": str(var_dir)}
    began = time.monotonic()
    steps["collectstatic_s"] = done(
        manage(hosts, {}, "collectstatic", "--noinput", "-v", "0", role=role), began
    )
    steps["manifest"] = (var_dir / "static" / "staticfiles.json").exists()
    began = time.monotonic()
    hosts.start_host(role)  # waits for /readyz 200 on each Daphne, "ready." of each worker
    steps["start_to_ready_s"] = round(time.monotonic() - began, 1)
    web, ws = upstream_lines()
    site = hosts.nginx_dir / "site.conf"
    text = site.read_text()
    for upstream, line in (("vipgame_web", web), ("vipgame_ws", ws)):
        head = f"upstream {upstream} {{\n"
        added = "".join(
            "    " + line.replace("10.0.0.12:8001", f"{hosts.addresses[role]}:{port}") + "\n"
            for port in hosts.web_ports
        )
        assert text.count(head) == 1, head
        text = text.replace(head, head + added)
    site.write_text(text)
    hosts.edit_site("true")  # (the file is written: nginx -t, reload)
    hosts.app_hosts.append(role)
    return steps


# The restore drill: the play between the base backup and the noted point,
# and between the noted point (its segment switched and archived) and the loss.
RESTORE_PLAY_S = 5.0
RESTORE_LOST_PLAY_S = 5.0
# What the drill notes of the database (in one snapshot): the settled hands
# and the ledger, each as ids and a digest of their rows.
SETTLED_HANDS = "SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM games_hand WHERE settled"
TRANSACTIONS = "SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM wallet_ledgertransaction"
HANDS_DIGEST = (
    "SELECT count(*), md5(coalesce(string_agg(concat_ws('|', id, table_id, number, started_at, "
    "ended_at, settled_at, result::text, event_count), ',' ORDER BY id), '')) "
    "FROM games_hand WHERE id = ANY(%s)"
)
LEDGER_DIGEST = (
    "SELECT count(*), coalesce(sum(e.amount), 0), coalesce(sum(abs(e.amount)), 0), "
    "md5(coalesce(string_agg(concat_ws('|', e.id, t.id, t.idempotency_key, t.kind, t.hand_id, "
    "t.fingerprint, t.created_at, e.account_id, e.amount, e.balance_after), ',' "
    "ORDER BY e.id), '')) "
    "FROM wallet_ledgerentry e JOIN wallet_ledgertransaction t ON t.id = e.transaction_id "
    "WHERE t.id = ANY(%s)"
)
# Nothing half there: a settled hand that moved chips in the ledger without
# its settlement (a hand of a game whose chips are its players' wallets, at a
# table of the game's own money, where someone's net is not 0: a Hold'em hand
# moves the table's escrowed stacks, a drawn hand moves nothing, and neither
# posts one), a settlement without its settled hand, an account whose balance
# is not its last entry's (docs/operations.md "Alerts"), Σ balances.
HALF_THERE = {
    "settled_hands_without_their_settlement": (
        "SELECT count(*) FROM games_hand h JOIN games_table tb ON tb.id = h.table_id "
        "WHERE h.settled AND tb.money = '' AND tb.game = ANY(%(wallet_games)s) "
        "AND EXISTS (SELECT 1 FROM games_handplayer p WHERE p.hand_id = h.id AND p.net <> 0) "
        "AND NOT EXISTS (SELECT 1 FROM wallet_ledgertransaction t "
        "WHERE t.idempotency_key = 'hand:' || h.id || ':settle')"
    ),
    "settlements_without_their_settled_hand": (
        "SELECT count(*) FROM wallet_ledgertransaction t WHERE t.idempotency_key LIKE "
        "'hand:%%:settle' AND NOT EXISTS (SELECT 1 FROM games_hand h WHERE h.id = t.hand_id "
        "AND h.settled)"
    ),
    "balances_off": (
        "SELECT count(*) FROM wallet_account a LEFT JOIN LATERAL (SELECT balance_after FROM "
        "wallet_ledgerentry WHERE account_id = a.id ORDER BY id DESC LIMIT 1) e ON true "
        "WHERE a.balance <> coalesce(e.balance_after, 0)"
    ),
    "sum_of_balances": "SELECT coalesce(sum(balance), 0) FROM wallet_account",
}


def noted(hosts: Hosts) -> dict[str, Any]:
    """The settled hands and the ledger, in one snapshot, directly on
    PostgreSQL (the admin link): their ids, their rows' digests, the newest
    write (a hand event: one a move), and the checks of ``HALF_THERE``."""
    import psycopg

    from games.plugins import PLUGINS

    wallet = {"wallet_games": [g for g, p in PLUGINS.items() if p.money.chips_source == "wallet"]}
    with psycopg.connect(hosts.admin_url("postgres"), autocommit=False) as conn:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        hands = conn.execute(SETTLED_HANDS).fetchone()[0]  # type: ignore[index]
        transactions = conn.execute(TRANSACTIONS).fetchone()[0]  # type: ignore[index]
        point = {
            "hands": hands,
            "transactions": transactions,
            "hands_digest": list(conn.execute(HANDS_DIGEST, [hands]).fetchone() or ()),
            "ledger_digest": list(conn.execute(LEDGER_DIGEST, [transactions]).fetchone() or ()),
            "newest_event": conn.execute(
                "SELECT extract(epoch FROM max(created_at)) FROM games_handevent"
            ).fetchone()[0],  # type: ignore[index]
            **{k: int(conn.execute(q, wallet).fetchone()[0]) for k, q in HALF_THERE.items()},  # type: ignore[index]
        }
        point["newest_event"] = float(point["newest_event"] or 0)
        for digest in ("hands_digest", "ledger_digest"):  # (sums: Decimal)
            point[digest] = [v if isinstance(v, str) else int(v) for v in point[digest]]
        conn.rollback()
    return point


def same_rows(hosts: Hosts, point: dict[str, Any]) -> dict[str, Any]:
    """The noted hands and ledger rows as the restored database has them."""
    import psycopg

    with psycopg.connect(hosts.admin_url("postgres"), autocommit=True) as conn:
        return {
            "hands_digest": list(conn.execute(HANDS_DIGEST, [point["hands"]]).fetchone() or ()),
            "ledger_digest": list(
                conn.execute(LEDGER_DIGEST, [point["transactions"]]).fetchone() or ()
            ),
        }


def switch_and_archive(hosts: Hosts, timeout: float = 60) -> dict[str, Any]:
    """``SELECT pg_switch_wal()`` ("Backups and restore": the segment in
    progress sent at once), and the wait until the archiver has copied it."""
    import psycopg

    began = time.monotonic()
    with psycopg.connect(hosts.admin_url("postgres"), autocommit=True) as conn:
        segment = conn.execute("SELECT pg_walfile_name(pg_switch_wal())").fetchone()[0]  # type: ignore[index]

        def archived() -> bool:
            row = conn.execute("SELECT last_archived_wal FROM pg_stat_archiver").fetchone()
            return bool(row and row[0] and row[0] >= segment)

        ok = wait_until(archived, timeout, 0.2)
    return {
        "segment": segment,
        "archived": bool(ok) and (hosts.backup_dir / "wal" / segment).exists(),
        "archived_in_s": round(time.monotonic() - began, 1),
    }


# The restore's systemctl lines, in the documented order, and what each is here.
RESTORE_UNITS = [
    "systemctl stop vipgame.target",
    "systemctl stop pgbouncer",
    "systemctl stop postgresql@15-main",
    "systemctl start postgresql@15-main",
    "systemctl start pgbouncer",
    "systemctl start vipgame.target",
]


def restore_steps() -> list[str]:
    """docs/operations.md's "Restore to the latest point": its lines, each
    ``systemctl`` line on its own and the shell between them in one piece;
    the ``systemctl`` lines checked to come in the order of ``RESTORE_UNITS``
    (the app hosts stopped first, started last)."""
    block = documented("**Restore to the latest point**", "sh")
    steps: list[str] = []
    shell: list[str] = []
    for line in block.splitlines():
        if line.startswith("systemctl "):
            if "".join(shell).strip():
                steps.append("\n".join(shell))
            shell = []
            steps.append(line.strip())
        else:
            shell.append(line)
    if "".join(shell).strip():
        steps.append("\n".join(shell))
    units = [step for step in steps if step.startswith("systemctl ")]
    assert units == RESTORE_UNITS, units
    return steps


def every_host(hosts: Hosts, action: Callable[[str], None]) -> None:
    """``action`` on every app host at once (an operator with a shell on each)."""
    threads = [threading.Thread(target=action, args=(role,)) for role in hosts.app_hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def restore(hosts: Hosts, tables: list[int]) -> dict[str, Any]:
    """docs/operations.md "Backups and restore" on the data host: the nightly
    base backup while the tables play, more hands, the noted point (settled
    hands and ledger) and its segment switched and archived, a few more
    seconds of play, then the database lost (PostgreSQL ``kill -9``'d, its
    data directory deleted) and the documented restore run literally, step
    by step. Then what the restored database holds, before the app hosts
    start: everything of the noted point, row for row; nothing half there."""
    steps: dict[str, Any] = {}
    began = time.monotonic()
    out = hosts.base_backup()
    steps["base_backup_s"] = round(time.monotonic() - began, 1)
    backups = sorted(p.name for p in (hosts.backup_dir / "base").iterdir())
    steps["base_backups"] = backups
    assert backups, out
    assert (hosts.backup_dir / "base" / backups[-1] / "base.tar.gz").exists(), out
    after_backup = time.time()
    time.sleep(RESTORE_PLAY_S)
    steps["hands_after_the_backup"] = sum(hands_finished_since(tables, after_backup).values())
    point = noted(hosts)
    steps["switch"] = switch_and_archive(hosts)
    time.sleep(RESTORE_LOST_PLAY_S)
    at_loss = noted(hosts)
    lost_at = time.time()
    hosts.lose_database()
    timings: dict[str, float] = {}
    for step in restore_steps():
        began = time.monotonic()
        if step == "systemctl stop vipgame.target":
            every_host(hosts, hosts.stop_host)
        elif step == "systemctl stop pgbouncer":
            hosts.stop_pgbouncer()
        elif step == "systemctl stop postgresql@15-main":
            hosts.stop_postgres()  # (lost already: nothing runs)
        elif step == "systemctl start postgresql@15-main":
            hosts.start_postgres()
        elif step == "systemctl start pgbouncer":
            restored = noted(hosts)  # (before anything connects)
            hosts.start_pgbouncer()
        elif step == "systemctl start vipgame.target":
            every_host(hosts, hosts.start_host)
        else:
            steps["check_printed"] = hosts.run_documented(step).strip().splitlines()
            lines = [line for line in step.splitlines() if line and not line.startswith("#")]
            step = f"{lines[0][:50]} ... ({len(lines)} lines)" if lines else "(comments)"
        timings[step] = round(time.monotonic() - began, 1)
    steps["restore_s"] = round(time.time() - lost_at, 1)
    steps["step_s"] = timings
    # What the restored database holds of the noted point and of the loss.
    noted_hands, restored_hands = set(point["hands"]), set(restored["hands"])
    lost_hands = set(at_loss["hands"]) - restored_hands
    steps["noted_point"] = {
        "settled_hands": len(noted_hands),
        "ledger_transactions": len(point["transactions"]),
        "ledger": point["ledger_digest"][:3],
    }
    steps["noted_hands_missing"] = len(noted_hands - restored_hands)
    steps["noted_transactions_missing"] = len(
        set(point["transactions"]) - set(restored["transactions"])
    )
    again = same_rows(hosts, point)
    for digest in ("hands_digest", "ledger_digest"):
        again[digest] = [v if isinstance(v, str) else int(v) for v in again[digest]]
    steps["noted_rows_identical"] = (
        again["hands_digest"] == point["hands_digest"]
        and again["ledger_digest"] == point["ledger_digest"]
    )
    steps["hands_settled_after_the_point_before_the_loss"] = len(
        set(at_loss["hands"]) - noted_hands
    )
    steps["of_which_restored"] = len((set(at_loss["hands"]) - noted_hands) & restored_hands)
    steps["settled_hands_lost"] = len(lost_hands)
    steps["newest_write_restored_s_before_the_loss"] = round(lost_at - restored["newest_event"], 1)
    steps["half_there"] = {k: restored[k] for k in HALF_THERE}
    steps["half_there_at_the_point"] = {k: point[k] for k in HALF_THERE}
    # The room back: every table finished a hand since the loss.
    moved = wait_until(lambda: every_table_moved_on(tables, lost_at), RECOVERY_S, 0.5)
    steps["room_down_s"] = round(time.time() - lost_at, 1) if moved else None
    return steps


def restored_ok(result: dict[str, Any]) -> bool:
    """The restore drill's own checks."""
    half = result["half_there"]
    return bool(
        result["switch"]["archived"]
        and result["noted_hands_missing"] == 0
        and result["noted_transactions_missing"] == 0
        and result["noted_rows_identical"]
        and not any(half.values())
        and result["room_down_s"] is not None
        and result["room_down_s"] <= result["bound_s"]
    )


# After the sentinels promote the replica, the old primary started again must
# be a replica of the new one, in sync, within this long (Sentinel
# reconfigures it some seconds after it answers as a primary again: 10 s in
# the drill's logs, then 5 s of full sync; 15.5-16.5 s in all, measured).
REJOIN_S = 60.0


def redis_failover(hosts: Hosts, tables: list[int]) -> dict[str, Any]:
    """docs/operations.md "Redis: roles, Sentinel, fail-over", across hosts:
    the Redis primary on the data host ``kill -9``'d mid-hand; the sentinels
    (data, data2, proxy) promote the replica on data2 and every process
    follows it, none exits or is restarted. Once every table has finished a
    hand since the kill, the old primary is started again as its unit starts
    it (no ``replicaof``) and Sentinel must make it a replica of the new one."""
    steps: dict[str, Any] = {}
    in_play = fresh(lambda: open_hands(tables)) or []
    killed = time.time()
    old, new, took = hosts.redis_failover()
    steps["primary_killed_on"] = old
    steps["primary_now_on"] = new
    steps["promoted_after_s"] = round(took, 1) if new else None
    steps["every_table_finished_a_hand_after_the_kill"] = bool(
        wait_until(lambda: every_table_moved_on(tables, killed), RECOVERY_S, 1)
    )
    steps["hands_in_play_at_the_kill"] = len(in_play)
    still_open = fresh(lambda: open_hands(tables))
    steps["those_hands_finished"] = still_open is not None and not set(in_play) & set(still_open)
    steps["old_primary_a_replica_of_the_new_after_s"] = None
    if new is not None:
        began = time.monotonic()
        hosts.start_redis(old)
        if wait_until(lambda: hosts.replica_of(old, new), REJOIN_S, 0.5):
            steps["old_primary_a_replica_of_the_new_after_s"] = round(time.monotonic() - began, 1)
    steps["processes_exited"] = sorted(
        name for name, process in hosts.processes.items() if process.poll() is not None
    )
    steps["seats_freed_since_the_kill"] = fresh(lambda: departures_since(tables, killed))
    return steps


def departures_since(tables: list[int], after: float) -> list[str]:
    """Every seat freed since ``after`` (a time.time()), as "table:user reason"."""
    from datetime import UTC, datetime

    from games.models import Departure

    moment = datetime.fromtimestamp(after, tz=UTC)
    rows = Departure.objects.filter(table__in=tables, at__gt=moment)
    return [f"{t}:{u} {r}" for t, u, r in rows.values_list("table", "user", "reason")]


def failed_over(result: dict[str, Any]) -> bool:
    """The redis-failover drill's own checks."""
    return bool(
        result["primary_now_on"]
        and result["every_table_finished_a_hand_after_the_kill"]
        and result["those_hands_finished"]
        and result["old_primary_a_replica_of_the_new_after_s"] is not None
        and not result["processes_exited"]
        and result["seats_freed_since_the_kill"] == []
    )


def bound_for(name: str, args: Any) -> float:
    """The longest a table may stand still in each drill (docs/operations.md
    "Multi-host drills"): a turn clock (8 s) plus how long the fault lasts
    and is noticed, plus 15 s for a loaded 2-core machine."""
    turn = CLOCKS["turn_seconds"]
    return {
        # a player's socket through app1 is given up after a ping + pong
        # time-out (10 + 6 s); clocks held by app1's worker wait for it to return
        "partition": args.partition_s + turn + 10 + PONG_TIMEOUT_S + 15,
        # sockets to app2 drop at once; nginx moves the next ones to app1
        "kill": turn + 10 + 15,
        # sessions ended; a move in flight is answered server_error and sent again
        "postgres": turn + 10 + 15,
        # a host's sockets close when its processes stop (drained first: no
        # new ones reach it) and reconnect to the other host at once
        "rolling": turn + 10 + 15,
        # nothing stops: the new host only joins
        "add-host": turn + 10 + 15,
        # the room stops for the whole restore (app hosts stopped, the base
        # backup unpacked, the WAL replayed, everything started: 90 s here),
        # from the loss until every table has finished a hand (``room_down_s``:
        # the versions jump at the restore, so the pauses sampled do not span it)
        "restore": 90 + turn + 15,
        # the sentinels notice after down-after-milliseconds (then a vote:
        # promoted 3.8-4.8 s after the kill, measured); what was published
        # meanwhile is lost, so the others at a table catch up at their next
        # ping (10 s) or when the turn's clock fires. (bench.drills' one-host
        # bound, SENTINEL_MOVES_AGAIN_S + the 2 s longer down-after here, is
        # 22 s: one measured pause here was 18.9 s, at load 15.)
        "redis-failover": DOWN_AFTER_MS / 1000 + turn + 10 + 15,
    }[name]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="CI's form: small and quick")
    parser.add_argument("--tables", type=int, default=6, help="socket tables (of four players)")
    parser.add_argument("--bot-tables", type=int, default=4)
    parser.add_argument("--daphnes", type=int, default=2, help="Daphne processes an app host")
    parser.add_argument("--partition-s", type=float, default=60.0)
    parser.add_argument(
        "--drills",
        default=None,
        help="partition,kill,postgres,rolling,redis-failover (short); add-host before "
        "rolling, restore before redis-failover (long)",
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--plain-redis",
        action="store_true",
        help="one Redis on the data host, no replica or sentinels (no redis-failover)",
    )
    args = parser.parse_args()
    if args.short:
        args.tables, args.bot_tables, args.daphnes, args.partition_s = 3, 2, 1, 20.0
    if args.drills is None:
        args.drills = "partition,kill,postgres," + (
            "rolling" if args.short else "add-host,rolling,restore"
        )
        args.drills += "" if args.plain_redis else ",redis-failover"
    if args.plain_redis and "redis-failover" in args.drills.split(","):
        parser.error("redis-failover needs the sentinels (no --plain-redis)")

    # A SIGTERM (the test's time-out) still runs every clean-up below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="vipgame-hostdrill-"))
    began = time.monotonic()
    summary: dict[str, Any] = {"drills": [], "workdir": str(workdir)}
    spare = "add-host" in args.drills.split(",")
    hosts = Hosts(
        workdir,
        daphnes=args.daphnes,
        extra_env=APP_LIMITS_OFF,
        spare=spare,
        sentinel=not args.plain_redis,
    )
    with hosts:
        summary["started_s"] = round(time.monotonic() - began, 1)
        summary["redis"] = hosts.redis_url()
        summary["sentinels_started_s"] = round(hosts.sentinels_started_in, 1)
        # This process: the data host through the admin link, the same queues.
        # (Its Redis is the data host's, used only while the tables are set
        # up: the namespaces' other addresses are out of its reach.)
        os.environ.update(
            DATABASE_URL=hosts.admin_url(),
            REDIS_URL=f"redis://{hosts.data_ip}:6379/0",
            CELERY_QUEUE=hosts.env["CELERY_QUEUE"],
            SECRET_KEY=hosts.env["SECRET_KEY"],
            SSL_CERT_FILE=str(hosts.cert),
        )
        setup_django()
        humans = create_tables(args.tables, "mix", prefix="hs", **CLOCKS)
        bots = bot_tables(args.bot_tables, prefix="hb")
        specs = humans + bots
        tables = [s.id for s in specs]
        start = time.perf_counter()
        run = Run((start, start + 3600))
        players = [
            Player(run, spec, p, [hosts.wss], pong_timeout=PONG_TIMEOUT_S)
            for spec in humans
            for p in range(4)
        ]
        players += [Player(run, s, 0, [hosts.wss], pong_timeout=PONG_TIMEOUT_S) for s in bots]
        playing = Playing(players, run)
        pauses = Pauses(tables)
        try:
            dealt = wait_until(lambda: every_table_moved_on(tables, time.time() - 600), 120, 1)
            summary["every_table_dealt_and_finished_a_hand"] = bool(dealt)
            for name in args.drills.split(","):
                result = drill(name, hosts, run, pauses, tables, args)
                result["bound_s"] = bound_for(name, args)
                result["passed"] = bool(
                    result["every_table_finished_a_hand_after"]
                    and result["worst_pause_s"] <= result["bound_s"]
                    and result.get("moved_on_without_app2", True)
                    and rolled(result)
                )
                summary["drills"].append(result)
            # Finish the hands in play, start no more.
            run.readying = False
            stopped_readying = time.time()
            settled = wait_until(lambda: fresh(lambda: open_hands(tables)) == [], 120, 1)
            summary["all_hands_finished"] = bool(settled)
        finally:
            pauses.stop()
            playing.stop()
        summary["money"] = settled_money_checks(30)
        summary["overdue_tables"] = overdue(tables)
        summary["seats_lost"] = seats_lost(specs, stopped_readying)
        summary["freed_once_readying_stopped"] = freed_once_readying_stopped(
            specs, stopped_readying
        )
        summary["players"] = {"reconnects": run.reconnects, "errors": dict(run.errors)}
        summary["server_errors"] = hosts.errors_in_logs()[:30]
        from django.db import connections

        connections.close_all()
    summary["seconds"] = round(time.monotonic() - began, 1)
    summary["passed"] = bool(
        summary["every_table_dealt_and_finished_a_hand"]
        and all(d["passed"] for d in summary["drills"])
        and summary["all_hands_finished"]
        and money_ok(summary["money"])
        and not summary["overdue_tables"]
        and not summary["seats_lost"]
    )
    print("RESULT " + json.dumps(summary, default=str), flush=True)
    return 0 if summary["passed"] else 1


# The application's own log-in limits are off (every player comes from one
# address, the client link's), as in tests/test_topology.py.
APP_LIMITS_OFF = {
    "LOGIN_RATE": "none",
    "LOGIN_FAILURE_RATE": "none",
    "AXES_ENABLED": "0",
    "WS_MAX_SOCKETS_PER_ADDRESS": "0",
}


def rolled(result: dict[str, Any]) -> bool:
    """The rolling and add-host drills' own checks (true for the others)."""
    if result["drill"] == "add-host":
        return bool(result["manifest"])
    if result["drill"] == "restore":
        return restored_ok(result)
    if result["drill"] == "redis-failover":
        return failed_over(result)
    if result["drill"] != "rolling":
        return True
    return bool(
        result["column_added"]
        and result["every_table_dealt_by_next"]
        and result["hands_dealt_by_previous_on_the_added_column"]
        and result["column_dropped"]
        and result.get("sockets_opened_on_app3", 1) > 0
    )


def freed_once_readying_stopped(specs: list[Any], stopped: float) -> Any:
    """The departures ``seats_lost`` leaves out: a player freed by the ready
    clock after the drill's players stopped readying (the last phase: a
    table whose hand ended first waits for Ready while the others finish,
    and its ready clock frees whoever did not press it, as the ready rule
    frees any player who does not). Not an outage's doing."""
    return [f"{t}:{u}" for t, u in late_not_ready(specs, stopped).values_list("table", "user")]


def late_not_ready(specs: list[Any], stopped: float) -> Any:
    from datetime import UTC, datetime

    from games.models import Departure

    return Departure.objects.filter(
        table__in=[spec.id for spec in specs],
        reason=Departure.Reason.NOT_READY,
        at__gte=datetime.fromtimestamp(stopped, tz=UTC),
    )


def seats_lost(specs: list[Any], stopped: float) -> list[str]:
    """Players who no longer hold the seat they sat down in ("table:user"):
    the seat freed (a departure written) or gone, except those freed for not
    pressing Ready once the drill's players stopped readying
    (``freed_once_readying_stopped``)."""
    from games.models import Departure, Seat

    late = late_not_ready(specs, stopped)
    freed_late = set(late.values_list("table", "user"))
    lost = []
    for spec in specs:
        held = set(
            Seat.objects.filter(table=spec.id, user__in=spec.users).values_list("user", flat=True)
        )
        left = set(
            Departure.objects.filter(table=spec.id, user__in=spec.users)
            .exclude(pk__in=late.values("pk"))
            .values_list("user", flat=True)
        )
        lost += [
            f"{spec.id}:{u}"
            for u in spec.users
            if u in left or (u not in held and (spec.id, u) not in freed_late)
        ]
    return lost


def open_hands(tables: list[int]) -> list[int]:
    from games.models import Hand

    unfinished = Hand.objects.filter(table__in=tables).exclude(ended_at__isnull=False, settled=True)
    return list(unfinished.values_list("pk", flat=True))


def overdue(tables: list[int]) -> list[int]:
    """Tables whose clock is more than 15 s past its deadline (nothing moves them)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Table

    limit = timezone.now() - timedelta(seconds=15)
    late = Table.objects.filter(pk__in=tables, deadline__lt=limit)
    return list(late.values_list("pk", flat=True))


if __name__ == "__main__":
    sys.exit(main())
