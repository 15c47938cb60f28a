"""Several hosts on one machine, as Linux network namespaces (issue 33 item 6):
the multi-host topology of docs/operations.md ("Adding machines",
"PgBouncer") built for real, so that a drill can cut a host off the network,
kill it, or restart the database under it.

    client (this process) ─ veth ─ proxy: nginx, a Redis sentinel ─┐
                                                  ├─ bridge ─ app1: Daphne, Celery worker, beat
                                                  │         ─ app2: Daphne, Celery worker
                                                  │         ─ data2: the Redis replica, a sentinel
    this process (admin) ─ veth ─ data: PostgreSQL, PgBouncer (transaction mode),
                                        the Redis primary, a sentinel

The hosts share one bridge (``10.77.1.0/24``) inside a namespace of their own,
so nothing of it is in the machine's own network; only the two veth ends of
the client and admin links are (a /30 each in ``10.78.K.0``, K chosen free),
and each veth pair is made there before its ends move. tests/test_hosts.py
runs the drill under ``unshare --net``, so not even those reach the
machine's own network (a browser test beside it would take them for a
network change).
Every name carries this process's id (``vip<pid>-app1``), and ``__exit__``
removes the namespaces, links and processes even when the start failed.

The processes are the deploy/ ones: Daphne, the worker and beat from the
systemd units' ExecStart and Environment lines (Daphne bound to its host's
address, as "Adding machines" says), nginx from deploy/nginx/vipgame.conf
with the upstream listing both app hosts. PostgreSQL runs as the `postgres`
user from a fresh ``initdb`` in a temporary directory; the application
reaches it through PgBouncer with ``DB_STARTUP_OPTIONS=0`` and the session
bounds on the role, as "PgBouncer" documents (its ini and ALTER ROLE lines are
read from docs/operations.md). Its WAL is archived as "Backups and restore"
documents (the setup block run literally, ``conf.d/archive.conf``), to a
directory beside the data directory that stands for the backup host's disk.
Migrations run once, from app1, directly on PostgreSQL. Redis runs as
"Redis: roles, Sentinel, fail-over" sets out its minimal set: the primary on
the data host, its replica on data2, a sentinel on each of those and one on
the proxy host, each with the
documented ``sentinel.conf`` lines (bench/sentinel.py writes them; the
documented ``down-after-milliseconds`` 3000, not that module's 1000), and
every app process's ``REDIS_URL`` names the three sentinels
(``redis+sentinel://…/vipgame/0``). ``redis_failover`` kills the primary and
waits for the promotion; ``Hosts(sentinel=False)`` runs one plain Redis on
the data host instead. Needs root (``ip netns``).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from bench.sentinel import MASTER, majority, sees_the_set, sentinel_lines, write_sentinel_conf
from bench.stack import errors_in, kill_group, raise_file_limit, stop_groups, wait_until
from push.keys import vapid_environment

from .topology import (
    BIN,
    NGINX_MAIN,
    ROOT,
    SITE,
    exec_start,
    self_signed,
    unit,
    unit_environment,
)

PG_BIN = Path("/usr/lib/postgresql/15/bin")
HOST_NET = "10.77.1"
ADDRESSES = {"proxy": f"{HOST_NET}.2", "data": f"{HOST_NET}.10",
             "app1": f"{HOST_NET}.11", "app2": f"{HOST_NET}.12"}  # fmt: skip
APP_HOSTS = ("app1", "app2")
# A host the drill may add ("Adding machines"): its namespace is built only
# when asked for (``Hosts(spare=True)``), nothing runs on it until then.
SPARE = {"app3": f"{HOST_NET}.13"}
# Redis under Sentinel, the minimal set of docs/operations.md "Redis: roles,
# Sentinel, fail-over": the primary on ``data``, its replica on a host of its
# own, a sentinel on each of those two and one on a third (the proxy).
REPLICA = {"data2": f"{HOST_NET}.20"}
SENTINEL_HOSTS = ("data", "data2", "proxy")
SENTINEL_PORT = 26379
# The documented times (docs/operations.md), not bench/sentinel.py's shorter
# ones: the drill runs what production would.
DOWN_AFTER_MS = 3000
FAILOVER_TIMEOUT_MS = 30_000
WEB_PORTS = (8001, 8002)  # the vipgame-web@PORT units of each app host
OPERATIONS = ROOT / "docs" / "operations.md"


def documented(start: str, fence: str) -> str:
    """The first ``fence`` code block after ``start`` in docs/operations.md."""
    text = OPERATIONS.read_text()
    after = text[text.index(start) :]
    block = after[after.index(f"```{fence}\n") + len(fence) + 4 :]
    return block[: block.index("```")]


def role_settings() -> list[str]:
    """The ``ALTER ROLE vipgame SET ...`` lines of "PgBouncer", as documented."""
    sql = documented("every server connection PgBouncer opens gets them", "sql")
    lines = [line.rstrip(";") for line in sql.splitlines() if line.startswith("ALTER ROLE")]
    assert len(lines) >= 3, sql
    return lines


def pgbouncer_ini(auth_file: Path) -> str:
    """The documented /etc/pgbouncer/pgbouncer.ini with the data host's
    address, no password (trust) and no unix socket; every swap must apply."""
    ini = documented("**Setup** (`/etc/pgbouncer/pgbouncer.ini`", "ini")
    swaps = [
        ("listen_addr = 10.0.0.10", f"listen_addr = {ADDRESSES['data']}\nunix_socket_dir ="),
        ("auth_type = scram-sha-256", "auth_type = trust"),
        ("auth_file = /etc/pgbouncer/userlist.txt", f"auth_file = {auth_file}"),
    ]
    for old, new in swaps:
        assert ini.count(old) == 1, f"operations.md's pgbouncer.ini no longer has {old!r}"
        ini = ini.replace(old, new)
    return ini


def documented_sentinel_lines() -> list[str]:
    """The ``sentinel ...`` lines of "Redis: roles, Sentinel, fail-over", as
    the hosts use them: the example primary's address swapped for the data
    host's, no ``auth-pass`` (these servers have no password); each must
    be the line bench/sentinel.py writes."""
    text = OPERATIONS.read_text()
    text = text[text.index("A minimal set: the primary and one replica") :]
    lines = re.findall(r"^    (sentinel [^\n]*)$", text[: text.index("Replication is")], re.M)
    assert lines, "operations.md: no sentinel.conf lines under 'A minimal set'"
    swapped = [
        line.replace("10.0.0.5 6379", f"{ADDRESSES['data']} 6379")
        for line in lines
        if " auth-pass " not in line
    ]
    ours = sentinel_lines(
        (ADDRESSES["data"], 6379),
        len(SENTINEL_HOSTS),
        down_after_ms=DOWN_AFTER_MS,
        failover_timeout_ms=FAILOVER_TIMEOUT_MS,
    )
    assert swapped == ours, f"operations.md's sentinel.conf lines {swapped} are not {ours}"
    return ours


def unit_name(name: str) -> str:
    """The systemd unit of an app host's process (``app1-web-8001``)."""
    kind = name.split("-")[1]
    return {"web": "vipgame-web@.service", "worker": "vipgame-worker@.service"}.get(
        kind, "vipgame-beat.service"
    )


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def free_link_net() -> int:
    """K of a ``10.78.K.0/24`` no address or route of this machine uses."""
    taken = ip("-o", "-4", "addr").stdout + ip("-4", "route").stdout
    start = os.getpid() % 200 + 20
    for k in [*range(start, 250), *range(20, start)]:
        if f"10.78.{k}." not in taken:
            return k
    raise RuntimeError("no free 10.78.K.0/24")


class Hosts:
    """``with Hosts(workdir) as hosts:`` builds everything; see the module's doc."""

    def __init__(
        self,
        workdir: Path,
        *,
        daphnes: int = 2,
        extra_env: dict[str, str] | None = None,
        spare: bool = False,
        sentinel: bool = True,
    ):
        self.workdir = workdir
        self.tag = str(os.getpid())
        # Redis under Sentinel (every role's URL ``redis+sentinel://``), or
        # one plain Redis on the data host.
        self.sentinel = sentinel
        self.addresses = {
            **ADDRESSES,
            **(REPLICA if sentinel else {}),
            **(SPARE if spare else {}),
        }
        self.ns = {role: f"vip{self.tag}-{role}" for role in ("sw", *self.addresses)}
        # The app hosts in nginx's upstreams (a spare one joins: ``add_host``).
        self.app_hosts = list(APP_HOSTS)
        # Settings of a host's own (its VAR_DIR: a host added later has its own).
        self.host_env: dict[str, dict[str, str]] = {}
        self.k = free_link_net()
        self.client_ip, self.proxy_ip = f"10.78.{self.k}.1", f"10.78.{self.k}.2"
        self.admin_ip, self.data_ip = f"10.78.{self.k}.5", f"10.78.{self.k}.6"
        self.web_ports = WEB_PORTS[:daphnes]
        self.extra_env = extra_env or {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.logs = workdir / "logs"
        self.var_dir = workdir / "var"
        self.nginx_dir = workdir / "nginx"
        # (PostgreSQL's and PgBouncer's files: readable by their user, outside
        # a private pytest directory)
        self.data_dir = Path(tempfile.mkdtemp(prefix=f"vipgame-hosts-{self.tag}-"))
        self.env: dict[str, str] = {}
        self.cert = Path()
        self.key = Path()
        self.partitioned: set[str] = set()
        # Each app host's release: the settings its processes start with
        # (none: this one).
        self.release: dict[str, dict[str, str]] = {}
        self.log_offsets: dict[str, int] = {}
        self.stopped_in: dict[str, float] = {}
        self.sentinels_started_in = 0.0

    # -- the network ----------------------------------------------------------------

    def _link_name(self, role: str, end: str) -> str:
        return f"v{self.tag}{role[0]}{role[-1]}{end}"[:15]

    def build_network(self) -> None:
        for name in self.ns.values():
            ip("netns", "add", name)
            ip("-n", name, "link", "set", "lo", "up")
        ip("-n", self.ns["sw"], "link", "add", "br0", "type", "bridge")
        ip("-n", self.ns["sw"], "link", "set", "br0", "up")
        for role, address in self.addresses.items():
            host, switch = self._link_name(role, "h"), self._link_name(role, "s")
            ip("link", "add", host, "type", "veth", "peer", "name", switch)
            ip("link", "set", host, "netns", self.ns[role])
            ip("link", "set", switch, "netns", self.ns["sw"])
            ip("-n", self.ns[role], "link", "set", host, "name", "eth0")
            ip("-n", self.ns[role], "addr", "add", f"{address}/24", "dev", "eth0")
            ip("-n", self.ns[role], "link", "set", "eth0", "up")
            ip("-n", self.ns["sw"], "link", "set", switch, "master", "br0")
            ip("-n", self.ns["sw"], "link", "set", switch, "up")
        # The client's link to the proxy, the admin's to the data host: the only
        # addresses outside the namespaces.
        for role, mine, theirs, end in (
            ("proxy", self.client_ip, self.proxy_ip, "c"),
            ("data", self.admin_ip, self.data_ip, "a"),
        ):
            here, there = self._link_name(role, end), self._link_name(role, end.upper())
            ip("link", "add", here, "type", "veth", "peer", "name", there)
            ip("link", "set", there, "netns", self.ns[role])
            ip("addr", "add", f"{mine}/30", "dev", here)
            ip("link", "set", here, "up")
            ip("-n", self.ns[role], "addr", "add", f"{theirs}/30", "dev", there)
            ip("-n", self.ns[role], "link", "set", there, "up")

    def remove_network(self) -> None:
        for role, end in (("proxy", "c"), ("data", "a")):
            ip("link", "del", self._link_name(role, end), check=False)
        for name in self.ns.values():
            ip("netns", "del", name, check=False)

    def partition(self, role: str) -> None:
        """Cut ``role`` off the hosts' network (its switch port down): its
        connections go silent, nothing is closed."""
        ip("-n", self.ns["sw"], "link", "set", self._link_name(role, "s"), "down")
        self.partitioned.add(role)

    def heal(self, role: str) -> None:
        ip("-n", self.ns["sw"], "link", "set", self._link_name(role, "s"), "up")
        self.partitioned.discard(role)

    # -- processes ------------------------------------------------------------------

    def spawn(self, name: str, role: str, command: list[str], env: dict[str, str]) -> None:
        log = self.logs / f"{name}.log"
        self.log_offsets[name] = log.stat().st_size if log.exists() else 0
        with log.open("ab") as out:
            self.processes[name] = subprocess.Popen(
                ["ip", "netns", "exec", self.ns[role], *command],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=raise_file_limit,
            )

    def as_postgres(self, command: list[str]) -> list[str]:
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", *command]

    def answers(self, role: str, address: str, port: int) -> bool:
        """Whether something listens on ``address:port`` as seen from ``role``."""
        probe = f"exec 3<>/dev/tcp/{address}/{port}"
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns[role], "timeout", "2", "bash", "-c", probe],
            capture_output=True,
            check=False,
        )
        return done.returncode == 0

    def since_start(self, name: str) -> str:
        """What the process logged since it was (last) started."""
        with (self.logs / f"{name}.log").open("rb") as log:
            log.seek(self.log_offsets.get(name, 0))
            return log.read().decode(errors="replace")

    def readyz(self, role: str, port: int) -> int:
        """The status of ``/readyz`` on one Daphne, asked from the proxy host
        (docs/operations.md "Upgrades while serving": ``curl`` from the nginx
        host to the process's private address); 0 when nothing answers."""
        url = f"http://{self.addresses[role]}:{port}/readyz"
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns["proxy"], "curl", "-s", "-o", "/dev/null",
             "-w", "%{http_code}", "--max-time", "3", url],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        return int(done.stdout or 0)

    def wait_ready(self, name: str, timeout: float = 120) -> None:
        log = self.logs / f"{name}.log"
        kind = name.split("-")[1] if name.startswith("app") else name
        if kind == "web":
            role, port = name.split("-")[0], int(name.split("-")[2])
            ready = wait_until(lambda: self.readyz(role, port) == 200, timeout, 0.5)
        elif kind in ("worker", "beat"):
            marker = " ready." if kind == "worker" else "beat: Starting"
            ready = wait_until(lambda: marker in self.since_start(name), timeout)
        elif kind == "postgres":
            ready = wait_until(lambda: self.answers("data", "127.0.0.1", 5432), timeout, 0.3)
        elif kind == "pgbouncer":
            ready = wait_until(lambda: self.answers("data", ADDRESSES["data"], 6432), timeout, 0.3)
        elif kind.startswith(("redis", "sentinel")):  # redis (data's), redis-data2, sentinel-proxy
            role = name.partition("-")[2] or "data"
            port = SENTINEL_PORT if kind.startswith("sentinel") else 6379
            address = self.addresses[role]
            ready = wait_until(lambda: self.answers(role, address, port), timeout, 0.3)
        else:  # nginx
            ready = wait_until(lambda: self.answers("proxy", self.proxy_ip, 443), timeout, 0.3)
        if not ready:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise AssertionError(f"{name} did not start:\n{tail}")

    def kill(self, name: str) -> None:
        """``kill -9`` the process and its children."""
        kill_group(self.processes.pop(name))

    def app_names(self, role: str) -> list[str]:
        names = [f"{role}-web-{port}" for port in self.web_ports] + [f"{role}-worker-1"]
        return names + ([f"{role}-beat"] if role == "app1" else [])

    def kill_host(self, role: str) -> None:
        """Every process of the app host, ``kill -9`` (the machine lost)."""
        for name in self.app_names(role):
            self.kill(name)

    def stop_host(self, role: str) -> None:
        """Every process of the app host stopped as ``systemctl stop`` stops
        its unit: SIGTERM to the main process alone (``KillMode=mixed``: the
        worker's warm shutdown finishes its tasks) or to every process of it
        (the default), SIGKILL to what is left after ``TimeoutStopSec``.
        ``stopped_in`` says when each had exited."""
        processes = {name: self.processes.pop(name) for name in self.app_names(role)}
        began = time.monotonic()
        limits = {}
        for name, process in processes.items():
            settings = unit(unit_name(name))
            limits[name] = float(settings.get("TimeoutStopSec", ["90"])[-1])
            with contextlib.suppress(ProcessLookupError):
                if settings.get("KillMode", ["control-group"])[-1] == "mixed":
                    os.kill(process.pid, signal.SIGTERM)
                else:
                    os.killpg(process.pid, signal.SIGTERM)
        self.stopped_in = {}
        for name, process in processes.items():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.0, began + limits[name] - time.monotonic()))
            kill_group(process)  # (what is left of it: KillMode=mixed's SIGKILL)
            self.stopped_in[name] = round(time.monotonic() - began, 1)

    def start_host(self, role: str) -> None:
        """Start the host's processes and wait until each is ready: every
        Daphne's ``/readyz`` answers 200, every worker logged ``ready.``."""
        for name in self.app_names(role):
            self.start_app(name)
        for name in self.app_names(role):
            self.wait_ready(name)

    def edit_site(self, command: str) -> None:
        """Run a shell ``command`` that edits the nginx host's site file
        (``/etc/nginx/sites-available/vipgame`` in it stands for the proxy's
        own), then ``nginx -t`` and ``nginx -s reload`` (``systemctl reload
        nginx``): the old workers finish what they hold, new connections see
        the new upstreams."""
        site = str(self.nginx_dir / "site.conf")
        command = command.replace("/etc/nginx/sites-available/vipgame", site)
        subprocess.run(["bash", "-c", command], check=True)
        for args in (["-t"], ["-s", "reload"]):
            done = subprocess.run(
                ["ip", "netns", "exec", self.ns["proxy"], *self.nginx_command(), *args],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr

    # -- the data host ----------------------------------------------------------------

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pg"

    def init_database(self) -> None:
        self.data_dir.chmod(0o755)
        self.pgdata.mkdir()
        shutil.chown(self.pgdata, "postgres", "postgres")
        subprocess.run(
            self.as_postgres([str(PG_BIN / "initdb"), "-D", str(self.pgdata), "-U", "postgres",
                              "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]),
            capture_output=True, check=True,
        )  # fmt: skip
        self.socket_dir.mkdir()
        shutil.chown(self.socket_dir, "postgres", "postgres")
        self.conf_d.mkdir()
        with (self.pgdata / "postgresql.conf").open("a") as conf:
            conf.write(
                "listen_addresses = '*'\nport = 5432\n"
                f"unix_socket_directories = '{self.socket_dir}'\n"
                "max_connections = 100\nshared_buffers = 64MB\nfsync = off\n"
                f"include_dir = '{self.conf_d}'\n"
            )
        with (self.pgdata / "pg_hba.conf").open("a") as hba:
            hba.write("host all all 0.0.0.0/0 trust\n")
        self.archive_setup()

    # The paths of docs/operations.md "Backups and restore" and this data
    # host's: the backup host's disk (``/mnt/pgbackup``) is a directory beside
    # the data directory, not in it, so losing the one leaves the other.
    @property
    def socket_dir(self) -> Path:
        return self.data_dir / "run"  # (Debian's /var/run/postgresql)

    @property
    def conf_d(self) -> Path:
        return self.data_dir / "conf.d"

    @property
    def backup_dir(self) -> Path:
        return self.data_dir / "pgbackup"

    def backup_paths(self, text: str) -> str:
        """A documented backup or restore step with this data host's paths."""
        swaps = {
            "/var/lib/postgresql/15/main": str(self.pgdata),
            "/etc/postgresql/15/main/conf.d": str(self.conf_d),
            "/mnt/pgbackup": str(self.backup_dir),
            "/usr/local/bin/vipgame-basebackup": str(self.data_dir / "vipgame-basebackup"),
            "/etc/cron.d/vipgame-backup": str(self.data_dir / "cron.d-vipgame-backup"),
            "10.0.0.10": ADDRESSES["data"],
        }
        for old, new in swaps.items():
            text = text.replace(old, new)
        # (run as root: a path of the real machine left in would be its own)
        for real in ("/var/lib/postgresql", "/etc/postgresql", "/mnt/", "/usr/local/", "/etc/cron"):
            assert real not in text, f"a documented step names {real} the drill has no swap for"
        return text

    def run_documented(self, script: str, timeout: float = 300) -> str:
        """A documented shell step, with this data host's paths, run as root
        on the data host (``bash -e``); PostgreSQL's programs and socket as on
        Debian (its binaries on the PATH, ``PGHOST`` its socket directory).
        Returns what it printed."""
        env = {"PATH": f"{PG_BIN}:{os.environ['PATH']}", "PGHOST": str(self.socket_dir),
               "HOME": "/root", "LANG": "C.UTF-8"}  # fmt: skip
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns["data"], "bash", "-e", "-c", self.backup_paths(script)],
            capture_output=True, text=True, env=env, timeout=timeout, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def archive_setup(self) -> None:
        """docs/operations.md "Backups and restore", once on the data host:
        the backup directories, the nightly script and its cron file (run
        literally, paths swapped), then the archive settings in conf.d."""
        self.run_documented(documented("nightly script, its cron lines", "sh"))
        archive = documented("Then the archiving, in", "ini")
        assert "archive_mode = on" in archive, archive
        assert "archive_timeout" in archive, archive
        (self.conf_d / "archive.conf").write_text(self.backup_paths(archive))

    def base_backup(self) -> str:
        """The nightly script, run as cron runs it (as postgres); its output."""
        script = self.data_dir / "vipgame-basebackup"
        return self.run_documented(f"runuser -u postgres -- {script}")

    def lose_database(self) -> None:
        """The data host's database lost: PostgreSQL ``kill -9``'d (and its
        children), its data directory deleted."""
        postmaster = self.processes["postgres"].pid
        self.kill("postgres")
        shutil.rmtree(self.pgdata)
        # (the small System V segment a postmaster keeps, left by the kill:
        # this postmaster's own, by its creator's pid)
        listing = subprocess.run(["ipcs", "-m", "-p"], capture_output=True, text=True).stdout
        for line in listing.splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[0].isdigit() and fields[2] == str(postmaster):
                subprocess.run(["ipcrm", "-m", fields[0]], check=False)

    def stop_postgres(self) -> None:
        """``systemctl stop postgresql@15-main``: a fast shutdown, if it runs."""
        process = self.processes.pop("postgres", None)
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT)
            process.wait(timeout=60)

    def stop_pgbouncer(self) -> None:
        """``systemctl stop pgbouncer``: SIGTERM, and its end awaited."""
        process = self.processes.pop("pgbouncer")
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        finally:
            kill_group(process)

    def start_postgres(self) -> None:
        command = self.as_postgres([str(PG_BIN / "postgres"), "-D", str(self.pgdata)])
        self.spawn("postgres", "data", command, {"PATH": os.environ["PATH"]})
        self.wait_ready("postgres")

    def restart_postgres(self) -> float:
        """A fast shutdown (SIGINT: sessions ended, as a restart for a minor
        upgrade does) and a start; returns the seconds it was down."""
        process = self.processes.pop("postgres")
        began = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=60)
        self.start_postgres()
        return time.monotonic() - began

    def create_role(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url("postgres", "postgres"), autocommit=True) as conn:
            conn.execute("CREATE ROLE vipgame LOGIN")
            for statement in role_settings():
                conn.execute(statement)
            conn.execute("CREATE DATABASE vipgame OWNER vipgame")

    def start_pgbouncer(self) -> None:
        here = self.data_dir / "pgbouncer"
        if (here / "pgbouncer.ini").exists():  # (started again: its files are there)
            self.spawn("pgbouncer", "data", self.pgbouncer_command(), {"PATH": os.environ["PATH"]})
            self.wait_ready("pgbouncer")
            return
        here.mkdir()
        here.chmod(0o755)
        (here / "users.txt").write_text('"vipgame" ""\n')
        (here / "pgbouncer.ini").write_text(pgbouncer_ini(here / "users.txt"))
        for name in ("users.txt", "pgbouncer.ini"):
            (here / name).chmod(0o644)
        self.spawn("pgbouncer", "data", self.pgbouncer_command(), {"PATH": os.environ["PATH"]})
        self.wait_ready("pgbouncer")

    def pgbouncer_command(self) -> list[str]:
        ini = self.data_dir / "pgbouncer" / "pgbouncer.ini"
        return ["/usr/sbin/pgbouncer", "-u", "postgres", str(ini)]

    def start_redis(self, role: str = "data", *extra: str) -> None:
        """The Redis server of ``role`` (``redis`` on the data host,
        ``redis-data2`` on the replica's), ``extra`` its further options.
        Nothing is saved; its ``dir`` is its own, for the file a replica's
        full sync loads."""
        name = "redis" if role == "data" else f"redis-{role}"
        here = self.data_dir / name
        here.mkdir(exist_ok=True)
        command = ["redis-server", "--bind", "0.0.0.0", "--port", "6379", "--protected-mode",
                   "no", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction",
                   "--tcp-keepalive", "5", "--dir", str(here), *extra]  # fmt: skip
        self.spawn(name, role, command, {"PATH": os.environ["PATH"]})
        self.wait_ready(name)

    # -- Redis under Sentinel -----------------------------------------------------------

    def start_sentinels(self) -> float:
        """The replica on data2 and a sentinel on each of ``SENTINEL_HOSTS``
        (the documented lines), then wait until each sentinel knows the
        replica and the other two and the replica is in sync; returns the
        seconds that took."""
        began = time.monotonic()
        self.start_redis("data2", "--replicaof", ADDRESSES["data"], "6379")
        lines = documented_sentinel_lines()
        for role in SENTINEL_HOSTS:
            here = self.data_dir / f"sentinel-{role}"
            here.mkdir()
            conf = write_sentinel_conf(here, SENTINEL_PORT, "0.0.0.0", lines, "protected-mode no")
            command = ["redis-server", str(conf), "--sentinel"]
            self.spawn(f"sentinel-{role}", role, command, {"PATH": os.environ["PATH"]})
        for role in SENTINEL_HOSTS:
            self.wait_ready(f"sentinel-{role}")
        if not wait_until(self.sentinels_settled, 60, 0.3):
            raise AssertionError("the sentinels did not find the replica and each other")
        return time.monotonic() - began

    def redis_url(self) -> str:
        """The application's ``REDIS_URL``: the sentinels' (every role
        follows the primary they name), or the data host's Redis."""
        if not self.sentinel:
            return f"redis://{ADDRESSES['data']}:6379/0"
        sentinels = ",".join(f"{self.addresses[r]}:{SENTINEL_PORT}" for r in SENTINEL_HOSTS)
        return f"redis+sentinel://{sentinels}/{MASTER}/0"

    def redis_cli(self, role: str, port: int, *command: str) -> list[str]:
        """``redis-cli`` on ``role`` to its own server (6379) or sentinel
        (26379): the reply's lines, none if nothing answered within 2 s."""
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns[role], "timeout", "2",
             "redis-cli", "-p", str(port), "--raw", *command],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        return done.stdout.splitlines() if done.returncode == 0 else []

    def sentinels_settled(self) -> bool:
        """Every sentinel knows the replica and the other two, and the
        replica is in sync (bench/sentinel.py's test, asked by redis-cli)."""
        for role in SENTINEL_HOSTS:
            reply = self.redis_cli(role, SENTINEL_PORT, "SENTINEL", "MASTER", MASTER)
            if not reply or not sees_the_set(reply, len(SENTINEL_HOSTS)):
                return False
        return "master_link_status:up" in self.redis_cli("data2", 6379, "INFO", "replication")

    def redis_primary(self) -> str | None:
        """The host of the primary a majority of the sentinels name."""
        said = []
        for role in SENTINEL_HOSTS:
            reply = self.redis_cli(
                role, SENTINEL_PORT, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER
            )
            if reply:
                said.append(reply[0])
        address = majority(said, len(SENTINEL_HOSTS))
        return next((r for r, a in self.addresses.items() if a == address), None)

    def redis_role(self, role: str) -> list[str]:
        """``ROLE`` of ``role``'s Redis: ``master``, …; or ``slave``, its
        primary's address, port, link state, offset."""
        return self.redis_cli(role, 6379, "ROLE")

    def redis_failover(self, timeout: float = 60) -> tuple[str, str | None, float]:
        """``kill -9`` the Redis primary (the host stays up: its clients'
        connections are reset) and wait until a majority of the sentinels
        name another, which says it is the primary: (the old primary's host,
        the new one's or None after ``timeout``, the seconds it took, as
        asked every 0.1 s through ``redis-cli`` in the namespaces)."""
        old = self.redis_primary()
        assert old is not None, "the sentinels name no primary"
        began = time.monotonic()
        self.kill("redis" if old == "data" else f"redis-{old}")

        def promoted() -> str | None:
            new = self.redis_primary()
            ok = new not in (None, old) and self.redis_role(new)[:1] == ["master"]
            return new if ok else None

        new: str | None = wait_until(promoted, timeout, 0.1)
        return old, new, time.monotonic() - began

    def replica_of(self, role: str, primary: str) -> bool:
        """Whether ``role``'s Redis is a replica of ``primary``'s, in sync."""
        reply = self.redis_role(role)
        return reply[:2] == ["slave", self.addresses[primary]] and reply[3:4] == ["connected"]

    def admin_url(self, user: str = "vipgame", database: str = "vipgame") -> str:
        """PostgreSQL directly, from this process (the admin link)."""
        return f"postgres://{user}@{self.data_ip}:5432/{database}"

    # -- the app hosts and the proxy --------------------------------------------------

    def app_env(self) -> dict[str, str]:
        """/etc/vipgame/vipgame.env of every app host (docs/operations.md)."""
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "REDIS_"))}
        keep.pop("SSL_CERT_FILE", None)
        data = ADDRESSES["data"]
        return {
            **keep,
            "PATH": f"{BIN}:{os.environ['PATH']}",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": f"{self.proxy_ip},localhost",
            "DATABASE_URL": f"postgres://vipgame@{data}:6432/vipgame",
            "DB_STARTUP_OPTIONS": "0",
            "REDIS_URL": self.redis_url(),
            "TRUSTED_PROXIES": ADDRESSES["proxy"],
            "VAR_DIR": str(self.var_dir),
            "EMAIL_HOST": "127.0.0.1",
            "DEFAULT_FROM_EMAIL": "VIPGAME <noreply@cards.example.com>",
            **vapid_environment(),
            "LOG_LEVEL": "WARNING",
            "WS_RATE_LIMIT": "1000",
            "CELERY_QUEUE": f"hosts-{self.tag}",
            **self.extra_env,
        }

    def start_app(self, name: str) -> None:
        role, kind, *rest = name.split("-")
        run_dir = self.workdir / "run" / role
        run_dir.mkdir(parents=True, exist_ok=True)
        host_env = self.host_env.get(role, {})
        paths = {
            "/srv/vipgame/.venv/bin/": f"{BIN}/",
            "/var/lib/vipgame": host_env.get("VAR_DIR", str(self.var_dir)),
            "/run/vipgame-beat": str(run_dir),
        }
        command = exec_start(unit_name(name), rest[0] if rest else "", paths)
        if kind == "web":  # "Adding machines": Daphne listens on the host's private address
            command[command.index("--bind") + 1] = self.addresses[role]
        if kind == "worker":  # (one machine's name for both hosts: the node names differ)
            command[command.index("--hostname") + 1] = f"worker{rest[0]}@{role}"
        env = {**self.env, **host_env, **self.release.get(role, {}),
               **unit_environment(unit_name(name)),
               "TRUSTED_PROXIES": ADDRESSES["proxy"]}  # fmt: skip
        self.spawn(name, role, command, env)

    def render_site(self, key: Path) -> str:
        """deploy/nginx/vipgame.conf for the proxy host: its client-side
        address, this certificate, and the upstream listing both app hosts."""
        acme = self.nginx_dir / "acme"
        acme.mkdir(exist_ok=True)
        swaps = [
            ("listen 80;", f"listen {self.proxy_ip}:80;"),
            ("listen [::]:80;", ""),
            ("listen 443 ssl;", f"listen {self.proxy_ip}:443 ssl;"),
            ("listen [::]:443 ssl;", ""),
            ("/etc/letsencrypt/live/cards.example.com/fullchain.pem", str(self.cert)),
            ("/etc/letsencrypt/live/cards.example.com/privkey.pem", str(key)),
            ("alias /var/lib/vipgame/static/;", f"alias {self.var_dir}/static/;"),
            ("root /var/www/html;", f"root {acme};"),
        ]
        text = SITE.read_text()
        for old, new in swaps:
            assert text.count(old) == 1, f"{SITE.name} no longer has {old!r}"
            text = text.replace(old, new)
        # Each upstream (pages and API; sockets) lists every app host's processes.
        for name in ("vipgame_web", "vipgame_ws"):
            head = f"upstream {name} {{\n"
            body = text[text.index(head) + len(head) :]
            body = body[: body.index("}")]
            lines = re.findall(r"^ *server 127\.0\.0\.1:\d+ (.*);$", body, flags=re.M)
            assert lines, f"{SITE.name}: no server lines in {name}"
            kept = re.sub(r"^ *server 127\.0\.0\.1:\d+ .*;\n", "", body, flags=re.M)
            servers = "".join(
                f"    server {self.addresses[role]}:{port} {lines[0]};\n"
                for role in self.app_hosts
                for port in self.web_ports
            )
            text = text.replace(head + body, head + servers + kept)
        return text

    def nginx_command(self) -> list[str]:
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        return [nginx, "-p", f"{self.nginx_dir}/", "-c", str(self.nginx_dir / "nginx.conf"),
                "-e", str(self.nginx_dir / "error.log")]  # fmt: skip

    def start_proxy(self) -> None:
        self.nginx_dir.mkdir(exist_ok=True)
        self.cert, self.key = self_signed(self.nginx_dir, addresses=[self.proxy_ip])
        (self.nginx_dir / "site.conf").write_text(self.render_site(self.key))
        (self.nginx_dir / "nginx.conf").write_text(
            NGINX_MAIN.format(dir=self.nginx_dir, user="user root;")
        )
        command = self.nginx_command()
        check = subprocess.run(
            ["ip", "netns", "exec", self.ns["proxy"], *command, "-t"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert check.returncode == 0, check.stderr
        self.spawn("nginx", "proxy", command, {"PATH": os.environ["PATH"]})
        self.wait_ready("nginx")

    # -- lifecycle ------------------------------------------------------------------

    def __enter__(self) -> Hosts:
        assert os.geteuid() == 0, "network namespaces need root"
        for directory in (self.logs, self.var_dir, self.nginx_dir):
            directory.mkdir(parents=True, exist_ok=True)
        try:
            self.build_network()
            self.init_database()
            self.start_postgres()
            self.create_role()
            self.start_pgbouncer()
            self.start_redis()
            if self.sentinel:
                self.sentinels_started_in = self.start_sentinels()
            self.env = self.app_env()
            # Deploying: migrations once, from app1, directly on PostgreSQL (not
            # through PgBouncer, no statement bound: docs/operations.md).
            direct = f"postgres://vipgame@{ADDRESSES['data']}:5432/vipgame"
            migrate = [str(BIN / "python"), "manage.py", "migrate", "-v", "0"]
            subprocess.run(
                ["ip", "netns", "exec", self.ns["app1"], *migrate],
                cwd=ROOT,
                env={**self.env, "DATABASE_URL": direct, "DB_STARTUP_OPTIONS": "1",
                     "DB_STATEMENT_TIMEOUT_MS": "0", "DB_LOCK_TIMEOUT_MS": "0"},
                check=True,
            )  # fmt: skip
            subprocess.run(
                [str(BIN / "python"), "manage.py", "collectstatic", "--noinput", "-v", "0"],
                cwd=ROOT,
                env=self.env,
                check=True,
            )
            for role in self.app_hosts:
                for name in self.app_names(role):
                    self.start_app(name)
            self.start_proxy()
            for role in self.app_hosts:
                for name in self.app_names(role):
                    self.wait_ready(name)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        """Every process (SIGTERM, then SIGKILL after 10 s), the links, the
        namespaces, PostgreSQL's files: always, whatever failed."""
        for role in list(self.partitioned):
            with contextlib.suppress(Exception):
                self.heal(role)
        stop_groups(list(self.processes.values()), timeout=10)
        self.processes.clear()
        self.remove_network()
        shutil.rmtree(self.data_dir, ignore_errors=True)

    # -- looking at it --------------------------------------------------------------

    @property
    def wss(self) -> str:
        return f"wss://{self.proxy_ip}"

    @property
    def https(self) -> str:
        return f"https://{self.proxy_ip}"

    def errors_in_logs(self) -> list[str]:
        """Tracebacks and ERROR lines the application processes logged."""
        return errors_in(self.logs.glob("app*.log"))
