"""The production topology of deploy/ started on one machine, from the files
themselves: the ExecStart and Environment lines of the systemd units and the
nginx site, with only their paths and ports swapped for test ones.

nginx runs as an ordinary process (no daemon, its own prefix, temporary
directories and loopback ports, a self-signed certificate) in front of
``WEB_PORTS`` Daphne processes; Celery workers and one beat; PostgreSQL and
Redis are the tests' own. Processes can be killed and started again by name
(``web-8001``, ``worker-1``, ``beat``) as systemd's ``Restart=always`` would.
"""

from __future__ import annotations

import dataclasses
import datetime
import ipaddress
import os
import re
import secrets
import shlex
import shutil
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import requests

from bench.players import TableSpec
from bench.stack import (
    errors_in,
    free_port,
    kill_group,
    raise_file_limit,
    stop_group,
    stop_groups,
    wait_until,
)
from push.keys import vapid_environment

from . import processes

ROOT = processes.ROOT
BIN = processes.BIN
DEPLOY = ROOT / "deploy"
SYSTEMD = DEPLOY / "systemd"
SITE = DEPLOY / "nginx" / "vipgame.conf"
# The ports the site's upstream lists (one vipgame-web@PORT unit each).
WEB_PORTS = (8001, 8002, 8003)


def unit(name: str) -> dict[str, list[str]]:
    """The [Service] settings of a unit file: key -> every value given."""
    text = (SYSTEMD / name).read_text().replace("\\\n", " ")
    section = ""
    found: dict[str, list[str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def local_paths(var_dir: Path, run_dir: Path) -> dict[str, str]:
    """The install's paths (docs/operations.md) -> this machine's."""
    return {
        "/srv/vipgame/.venv/bin/": f"{BIN}/",
        "/var/lib/vipgame": str(var_dir),
        "/run/vipgame-beat": str(run_dir),
    }


def exec_start(name: str, instance: str, paths: dict[str, str]) -> list[str]:
    """The unit's command with its specifiers (%i, %H, %%) expanded."""
    [line] = unit(name)["ExecStart"]
    line = re.sub(
        "%[iH%]",
        lambda m: {"%i": instance, "%H": socket.gethostname(), "%%": "%"}[m.group()],
        line,
    )
    for installed, here in paths.items():
        line = line.replace(installed, here)
    return shlex.split(line)


def unit_environment(name: str) -> dict[str, str]:
    env = {}
    for value in unit(name).get("Environment", []):
        for assignment in shlex.split(value):
            key, _, val = assignment.partition("=")
            env[key] = val
    return env


def render_site(ports: dict[str, int], static: Path, cert: Path, key: Path, acme: Path) -> str:
    """deploy/nginx/vipgame.conf for this machine; every swap must apply."""
    swaps = [
        ("listen 80;", f"listen 127.0.0.1:{ports['http']};"),
        ("listen [::]:80;", ""),
        ("listen 443 ssl;", f"listen 127.0.0.1:{ports['https']} ssl;"),
        ("listen [::]:443 ssl;", ""),
        ("/etc/letsencrypt/live/cards.example.com/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/cards.example.com/privkey.pem", str(key)),
        ("alias /var/lib/vipgame/static/;", f"alias {static}/;"),
        ("root /var/www/html;", f"root {acme};"),
    ]
    swaps += [
        (f"server 127.0.0.1:{p} ", f"server 127.0.0.1:{ports[f'web-{p}']} ") for p in WEB_PORTS
    ]
    text = SITE.read_text()
    for old, new in swaps:
        # (each process is in both upstreams: pages and API, and sockets)
        expected = 2 if old.startswith("server ") else 1
        assert text.count(old) == expected, f"{SITE.name} no longer has {old!r} {expected}x"
        text = text.replace(old, new)
    return text


def self_signed(directory: Path, addresses: Sequence[str] = ()) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1, localhost and ``addresses``, and its key."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    *(x509.IPAddress(ipaddress.ip_address(a)) for a in ("127.0.0.1", *addresses)),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


NGINX_MAIN = """\
daemon off;
master_process on;
worker_processes 1;
{user}
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/site.conf;
}}
"""


class Topology:
    """``with Topology(tmp, workers=2) as topo:`` (needs the test database)."""

    def __init__(self, workdir: Path, *, workers: int = 2, extra_env: dict[str, str] | None = None):
        self.workdir = workdir
        self.var_dir = workdir / "var"
        self.run_dir = workdir / "run"
        self.nginx_dir = workdir / "nginx"
        self.logs = workdir / "logs"
        self.workers = workers
        self.extra_env = extra_env or {}
        self.ports = {"http": free_port(), "https": free_port()}
        self.ports |= {f"web-{p}": free_port() for p in WEB_PORTS}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.env: dict[str, str] = {}
        self.cert = Path()

    # -- what runs ----------------------------------------------------------------

    def names(self) -> list[str]:
        webs = [f"web-{p}" for p in WEB_PORTS]
        return [*webs, *(f"worker-{n}" for n in range(1, self.workers + 1)), "beat", "nginx"]

    def command(self, name: str) -> tuple[list[str], dict[str, str]]:
        paths = local_paths(self.var_dir, self.run_dir)
        kind, _, instance = name.partition("-")
        if kind == "nginx":
            nginx = shutil.which("nginx") or "/usr/sbin/nginx"
            return [nginx, "-p", f"{self.nginx_dir}/", "-c", str(self.nginx_dir / "nginx.conf"),
                    "-e", str(self.nginx_dir / "error.log")], {}  # fmt: skip
        unit_name = {"web": "vipgame-web@.service", "worker": "vipgame-worker@.service"}.get(
            kind, "vipgame-beat.service"
        )
        if kind == "web":
            instance = str(self.ports[name])  # the unit's port, moved to a free one
        return exec_start(unit_name, instance, paths), unit_environment(unit_name)

    def start(self, name: str) -> None:
        command, unit_env = self.command(name)
        env = {**self.env, **unit_env}
        with (self.logs / f"{name}.log").open("ab") as out:
            self.processes[name] = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=raise_file_limit,
            )

    def kill(self, name: str) -> None:
        """``kill -9`` the process and its children."""
        kill_group(self.processes.pop(name))

    def stop(self, name: str) -> None:
        stop_group(self.processes.pop(name), timeout=15)

    def wait_ready(self, name: str, timeout: float = 90) -> None:
        log = self.logs / f"{name}.log"
        marker = {"worker": " ready.", "beat": "beat: Starting"}
        if name == "nginx":
            ready = wait_until(lambda: self._answers(self.ports["https"]), timeout)
        elif name.startswith("web-"):
            # The application's own /healthz, not just a listener on the port
            # (when another process holds it, Daphne logs "Listen failure").
            ready = wait_until(lambda: self._healthy(self.ports[name]), timeout)
        else:
            text = marker[name.partition("-")[0]]
            ready = wait_until(lambda: text in log.read_text(errors="replace"), timeout)
        if not ready:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise AssertionError(f"{name} did not start:\n{tail}")

    @staticmethod
    def _healthy(port: int) -> bool:
        try:
            return (
                requests.get(
                    f"http://127.0.0.1:{port}/healthz", timeout=5, allow_redirects=False
                ).status_code
                == 200
            )
        except requests.RequestException:
            return False

    @staticmethod
    def _answers(port: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    # -- lifecycle ----------------------------------------------------------------

    def __enter__(self) -> Topology:
        for directory in (self.var_dir, self.run_dir, self.nginx_dir, self.logs):
            directory.mkdir(parents=True, exist_ok=True)
        self.env = processes.process_env(
            self.var_dir,
            # /etc/vipgame/vipgame.env of this machine (docs/operations.md).
            DEBUG="0",
            SECRET_KEY=secrets.token_urlsafe(50),
            ALLOWED_HOSTS="127.0.0.1,localhost",
            # Mail through a server that is not there: nothing here sends any.
            EMAIL_HOST="127.0.0.1",
            DEFAULT_FROM_EMAIL="VIPGAME <noreply@cards.example.com>",
            # Web Push with a pair of its own (no push is sent here: nobody subscribes).
            **vapid_environment(),
            LOG_LEVEL="WARNING",
            # The players here move the instant it is their turn.
            WS_RATE_LIMIT="1000",
            # Queues of its own: tasks left queued by an earlier test of this
            # pytest worker (for tables that are gone) are not this topology's.
            CELERY_QUEUE=f"topology-{secrets.token_hex(4)}",
            **self.extra_env,
        )
        for name in ("SSL_CERT_FILE",):
            self.env.pop(name, None)
        try:
            # Deploying: static files collected for nginx (the test database is migrated).
            subprocess.run(
                [str(BIN / "python"), "manage.py", "collectstatic", "--noinput", "-v", "0"],
                cwd=ROOT,
                env=self.env,
                check=True,
            )
            self.cert, key = self_signed(self.nginx_dir)
            acme = self.nginx_dir / "acme"
            acme.mkdir()
            (self.nginx_dir / "site.conf").write_text(
                render_site(self.ports, self.var_dir / "static", self.cert, key, acme)
            )
            # As root (CI), nginx's workers would switch to `nobody`, who cannot
            # read this private temporary directory: they stay this user.
            user = "user root;" if os.geteuid() == 0 else ""
            (self.nginx_dir / "nginx.conf").write_text(
                NGINX_MAIN.format(dir=self.nginx_dir, user=user)
            )
            check = subprocess.run(
                [*self.command("nginx")[0], "-t"], capture_output=True, text=True, check=False
            )
            assert check.returncode == 0, check.stderr
            for name in self.names():
                self.start(name)
            for name in self.names():
                self.wait_ready(name)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        """SIGTERM to everything at once, SIGKILL to what is left after 15 s."""
        stop_groups(list(self.processes.values()), timeout=15)
        self.processes.clear()

    # -- looking at it ------------------------------------------------------------

    @property
    def https(self) -> str:
        return f"https://127.0.0.1:{self.ports['https']}"

    @property
    def wss(self) -> str:
        return f"wss://127.0.0.1:{self.ports['https']}"

    def errors_in_logs(self) -> list[str]:
        """Tracebacks and ERROR lines the application processes logged."""
        return errors_in(p for p in self.logs.glob("*.log") if p.name != "nginx.log")

    def copy_logs(self, destination: Path) -> None:
        shutil.copytree(self.logs, destination, dirs_exist_ok=True)

    def describe(self) -> dict[str, Any]:
        return {name: process.args for name, process in self.processes.items()}


# Short clocks for the drills: a move lost with a killed process or host costs
# a clock, not 90 s.
CLOCKS: dict[str, Any] = {
    "turn_seconds": 8,
    "arrange_seconds": 15,
    "summary_seconds": 2,
    "reveal_seconds": 1,
}
BOTS: dict[str, Any] = {"bot_delay_ms": 100, "bot_delay_max_ms": 300}


def bot_tables(count: int, prefix: str = "seat") -> list[TableSpec]:
    """Tables with one socket player (seat 0) and three bots, Hold'em and Mậu
    Binh in turn (Tiến Lên, 35 moves a hand, is on the tables of four players:
    with bots each move is a Celery task, too slow a hand on a loaded machine)."""
    from accounts.sessions import token_issue
    from bench.players import most_buy_in
    from games import services
    from wallet.services import player_signup

    specs = []
    for n in range(count):
        game = ("holdem", "maubinh")[n % 2]
        name = f"{prefix}-{n}-{secrets.token_hex(2)}"
        user = player_signup(username=name, display_name=f"T{n}", password="Bench-Tien-Len-42")
        table = services.table_create(
            owner=user, game=game, stake=1, seat_count=4, fill_with_bots=True, **CLOCKS, **BOTS
        )
        buy_in = most_buy_in(table)
        # The socket player readies itself (``Run.readying``), so the test can
        # stop the dealing: no auto-ready, on by default where bots sit.
        services.table_sit(
            table_id=table.pk, user=user, position=0, buy_in=buy_in, auto_ready=False
        )
        token = token_issue(user=user)
        specs.append(TableSpec(table.pk, game, [token], [user.pk]))
    return specs


# -- the Sit & Go of the drill (issue 31, deliverable 5) -------------------------

#: Its table's clocks in the processes' environment (settings): an absent
#: person's turn costs 3 s, a result shows for 2 s.
SIT_AND_GO_CLOCKS = {"TOURNAMENT_TURN_SECONDS": "3", "TOURNAMENT_SUMMARY_SECONDS": "2"}
#: The shortest Sit & Go the rules allow (100 chips, 30-s levels): Hold'em for
#: six, so that players go out one after another, before and after the kills.
SIT_AND_GO: dict[str, Any] = {
    "game": "holdem",
    "seats": 6,
    "buy_in": 100,
    "fee": 10,
    "starting_chips": 100,
    "level_seconds": 30,
}
#: Its schedule starts at the level whose big blind is this (10 big blinds
#: deep: the drill's hands matter, not the first levels' folds), the levels
#: after it as any Sit & Go of these numbers has them (``FIRST_BIG_BLIND``).
FIRST_BIG_BLIND = 10
#: The bound on it, from its start to its end. From its level 8 (3.5
#: minutes in) the big blind is 100 (ante 10), a whole starting stack:
#: each hand puts whoever is in the blinds all in; 8 minutes leaves four and
#: a half more minutes of those. (It took 238 s, 19 hands, on a loaded
#: machine; with the schedule from level 1, 5 to 8 minutes and 26 to 38 hands.)
SIT_AND_GO_WITHIN_S = 480


class SitAndGo:
    """One person registers (and never comes: the time-outs play for them);
    beat (``tournaments.tasks.sit_and_gos``) fills the other places with bots
    and starts it in the stack's processes."""

    def __init__(self, tournament_id: int, person_id: int, wallet_before: int) -> None:
        self.id = tournament_id
        self.person = person_id
        self.wallet_before = wallet_before
        self.table_id = 0
        self.kills: list[dict[str, Any]] = []

    @classmethod
    def register(cls) -> SitAndGo:
        from tournaments import levels, services
        from tournaments.models import Tournament
        from wallet.services import account_for_user, player_signup

        person = player_signup(
            username=f"sng-{secrets.token_hex(3)}", display_name="SNG", password="Bench-Tien-Len-42"
        )
        tournament = services.tournament_create(
            **SIT_AND_GO, by=person, allow_bots=True, bots_after_seconds=0
        )
        # (test data: the schedule from FIRST_BIG_BLIND on, before anyone registers)
        schedule = levels.loads(tournament.levels)
        steep = [
            dataclasses.replace(level, number=n)
            for n, level in enumerate(
                (level for level in schedule if level.big_blind >= FIRST_BIG_BLIND), 1
            )
        ]
        levels.check(steep)
        Tournament.objects.filter(pk=tournament.pk).update(levels=levels.dumps(steep))
        before = account_for_user(user=person).balance
        services.tournament_register(tournament_id=tournament.pk, user=person)
        return cls(tournament.pk, person.pk, before)

    def tournament(self) -> Any:
        from tournaments.models import Tournament

        return Tournament.objects.get(pk=self.id)

    def wait_started(self, timeout: float = 60) -> None:
        """Beat filled it and its table is open; its bots think as fast as the
        other tables' (``BOTS``), so that many hands play in each level."""
        from games.models import Table
        from tournaments.models import TournamentTable

        found = wait_until(
            lambda: (
                TournamentTable.objects.filter(tournament=self.id)
                .values_list("table_id", flat=True)
                .first()
            ),
            timeout,
        )
        assert found, f"beat did not start the Sit & Go: {self.tournament().status}"
        self.table_id = found
        Table.objects.filter(pk=found).update(**BOTS)

    def mid_hand(self) -> int | None:
        """The hand in play at its table (None: between hands)."""
        from bench.drills import hands_in_play

        return hands_in_play([TableSpec(self.table_id, SIT_AND_GO["game"], [])]).get(self.table_id)

    def someone_out(self) -> bool:
        """A player is out and at least two play on."""
        from tournaments.models import Entry

        entries = Entry.objects.filter(tournament=self.id)
        return (
            entries.filter(status="finished").exists()
            and entries.filter(status="playing").count() >= 2
        )

    def before_the_kill(self, hand_id: int) -> None:
        """What it is as the processes are killed: running, several players
        left, this hand in play."""
        from games.models import Hand
        from tournaments.models import Entry

        self.kills.append(
            {
                "at": datetime.datetime.now(datetime.UTC),
                "status": self.tournament().status,
                "players_left": Entry.objects.filter(tournament=self.id, status="playing").count(),
                "hands_settled": Hand.objects.filter(table=self.table_id, settled=True).count(),
                "in_play": hand_id,
            }
        )

    def time_left(self) -> float:
        started = self.tournament().started_at
        assert started is not None
        bound = started + datetime.timedelta(seconds=SIT_AND_GO_WITHIN_S)
        return max(1.0, (bound - datetime.datetime.now(datetime.UTC)).total_seconds())

    def finished(self) -> bool:
        from games.models import Table

        table = Table.objects.get(pk=self.table_id)
        return self.tournament().status == "finished" and table.status == Table.Status.CLOSED

    def describe(self) -> str:
        from games.models import Table
        from tournaments.models import Entry

        table = Table.objects.get(pk=self.table_id)
        hand = table.current_hand
        entries = Entry.objects.filter(tournament=self.id).values_list("status", "place")
        return (
            f"Sit & Go {self.id}: {self.tournament().status}, entries {list(entries)}; "
            f"table {table.pk} {table.status} clock={table.clock} deadline={table.deadline} "
            f"level={table.carry.get('level')}; hand "
            f"{hand and (hand.number, hand.ended_at, hand.settled)}; at the kills {self.kills}"
        )

    def summary(self) -> str:
        from games.models import Hand, Table

        tournament = self.tournament()
        table = Table.objects.get(pk=self.table_id)
        took = (tournament.ended_at - tournament.started_at).total_seconds()
        hands = Hand.objects.filter(table=self.table_id).count()
        return (
            f"sit & go: {hands} hands in {took:.0f} s (bound {SIT_AND_GO_WITHIN_S} s), "
            f"level {table.carry.get('level', {}).get('number')} at the end; killed "
            + ", and ".join(
                f"{(k['at'] - tournament.started_at).total_seconds():.0f} s after its start "
                f"({k['players_left']} players left after {k['hands_settled']} hands)"
                for k in self.kills
            )
        )

    def assert_complete(self) -> None:
        """Finished with nothing lost: every entry placed, the pool paid exactly
        once and empty, every hand settled once (its chips replayed from the
        start give every player's going out and place), the table closed."""
        from games.models import Departure, Hand, HandPlayer, Seat, Table
        from tournaments.models import Entry
        from wallet.models import Account, LedgerTransaction
        from wallet.services import account_for_user

        tournament = self.tournament()
        first, at_kill = self.kills  # (at the start, and once a player was out)
        for kill in self.kills:
            assert kill["status"] == "running", kill
            assert kill["in_play"], kill  # (mid-hand: that hand, settled once below)
        assert first["players_left"] >= 2, first
        assert 2 <= at_kill["players_left"] < SIT_AND_GO["seats"], at_kill
        assert tournament.status == "finished"
        assert tournament.started_at
        assert tournament.ended_at
        assert tournament.ended_at > at_kill["at"]
        took = (tournament.ended_at - tournament.started_at).total_seconds()
        assert took <= SIT_AND_GO_WITHIN_S, took

        entries = {e.player_id: e for e in Entry.objects.filter(tournament=self.id)}
        seats = SIT_AND_GO["seats"]
        assert len(entries) == seats
        assert sum(e.is_bot for e in entries.values()) == seats - 1
        assert all(e.status == Entry.Status.FINISHED and e.place for e in entries.values())
        [winner] = [e for e in entries.values() if e.place == 1]
        pool = SIT_AND_GO["buy_in"] * seats
        assert sum(e.prize or 0 for e in entries.values()) == pool
        assert Account.objects.get(key=tournament.pool_key).balance == 0
        prizes = LedgerTransaction.objects.filter(idempotency_key=f"tournament:{self.id}:prizes")
        assert prizes.count() == 1
        mine = entries[self.person]
        paid = SIT_AND_GO["buy_in"] + SIT_AND_GO["fee"]
        person = entries[self.person].player
        assert account_for_user(user=person).balance == self.wallet_before - paid + (
            mine.prize or 0
        )

        table = Table.objects.get(pk=self.table_id)
        assert table.status == Table.Status.CLOSED
        assert not Seat.objects.filter(table=table).exists()
        # (the person is told why their seat went; bots are told nothing)
        gone = dict(Departure.objects.filter(table=table).values_list("user_id", "reason"))
        won = self.person == winner.player_id
        assert gone == {self.person: "closed" if won else "out"}, gone

        # Every hand dealt, finished and settled, none voided, and its chips
        # add up to nothing; replayed from the starting chips they put every
        # player out exactly at the hand that took their last chip, in the
        # place that hand left them, and the winner with every chip.
        hands = list(Hand.objects.filter(table=table).order_by("number"))
        assert [h.number for h in hands] == list(range(1, len(hands) + 1))
        assert all(h.ended_at and h.settled and not h.voided for h in hands)
        # (the hands in play at the kills were settled after them)
        for kill in self.kills:
            assert Hand.objects.get(pk=kill["in_play"]).settled_at > kill["at"], kill
        nets: dict[int, dict[int, int]] = {}
        for hand_id, user_id, net in HandPlayer.objects.filter(hand__table=table).values_list(
            "hand_id", "user_id", "net"
        ):
            assert net is not None, hand_id
            nets.setdefault(hand_id, {})[user_id] = net
        chips = dict.fromkeys(entries, SIT_AND_GO["starting_chips"])
        total = sum(chips.values())
        for hand in hands:
            moved = nets[hand.pk]
            assert sum(moved.values()) == 0, hand.number
            # every player with chips is dealt in (nobody sits out a tournament)
            assert set(moved) == {u for u, c in chips.items() if c > 0}, hand.number
            for user, net in moved.items():
                chips[user] += net
            assert min(chips.values()) >= 0, hand.number
            out = [u for u in moved if chips[u] == 0]
            left = sum(1 for c in chips.values() if c > 0)
            for user in out:
                assert entries[user].place == left + 1, (hand.number, user)
        assert chips == {u: total if u == winner.player_id else 0 for u in entries}
