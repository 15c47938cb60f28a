"""The production-like stack for benchmarks and drills: PostgreSQL, Redis, two
Daphne processes and one Celery worker with beat, all started here.

PostgreSQL and Redis come from ``DATABASE_URL`` / ``REDIS_URL`` or are embedded
ones; the benchmark gets a fresh database ``<name>_bench``. Drills that restart
Redis always get a Redis server of their own; the fail-over drill gets a
Sentinel-watched primary and replica (``sentinels=True``, bench/sentinel.py),
one database per role. Processes can be killed and restarted by name
(``daphne-a``, ``daphne-b``, ``celery``).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from push.keys import vapid_environment

if TYPE_CHECKING:
    from bench.sentinel import SentinelGroup

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RESULTS = ROOT / "bench" / "results"


_HANDED_OUT: set[int] = set()
_HANDING_OUT = threading.Lock()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now, and never one this
    process handed out before: the port is bound later, by another process,
    and the kernel may give the same free port to two binds in a row (a
    topology test's nginx was given one of its own Daphnes' ports, proxied
    sockets and log-ins to itself and answered them 301: 2026-11-30)."""
    import socket

    with _HANDING_OUT:
        while True:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = int(s.getsockname()[1])
            if port not in _HANDED_OUT:
                _HANDED_OUT.add(port)
                return port


def raise_file_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def fresh_database(url: str, suffix: str = "_bench") -> str:
    """An empty database ``<name><suffix>`` on the server of ``url``."""
    import psycopg

    parts = urlsplit(url)
    name = (parts.path.lstrip("/") or "vipgame") + suffix
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


def django_in_process(**environment: str) -> None:
    """Django in this process against a fresh ``<name>_bench`` database made
    from ``DATABASE_URL`` (PostgreSQL) and migrated, as production runs it
    (``DEBUG=0``: no query kept in memory), with no mail or push to send
    (the in-process benchmarks send none); ``environment``: more settings."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("DATABASE_URL must name a PostgreSQL server (a fresh <name>_bench is made)")
    os.environ["DATABASE_URL"] = fresh_database(url)
    os.environ["DEBUG"] = "0"
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ.setdefault("EMAIL_HOST", "127.0.0.1")
    os.environ.setdefault("DEFAULT_FROM_EMAIL", "VIPGAME <noreply@bench.example.com>")
    os.environ.setdefault("PUSH_SENDER", "off")
    os.environ.update(environment)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, check=True)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def write_results(data: Any, name: str) -> Path:
    """Write a benchmark's results as JSON to ``bench/results/<name>.json``
    and say where."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(data, indent=2, default=str))
    print(f"\nwrote {path}")
    return path


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of ``values``; None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def wait_until(predicate: Any, timeout: float, step: float = 0.25) -> Any:
    """The predicate's first true value within ``timeout`` seconds, else None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return None


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """``kill -9`` a process started in its own session, and its children."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def stop_group(process: subprocess.Popen[bytes], timeout: float) -> None:
    """SIGTERM to the process group; SIGKILL if it is still there after ``timeout``."""
    stop_groups([process], timeout)


def stop_groups(processes: list[subprocess.Popen[bytes]], timeout: float) -> None:
    """SIGTERM to each process group at once; SIGKILL to those still there
    after ``timeout``."""
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for process in processes:
        try:
            process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            kill_group(process)


class PortTaken(RuntimeError):
    """Another process listens on the port the server was started on."""


def listens_on(process: subprocess.Popen[Any], port: int) -> bool:
    """Whether ``process`` (or a process it started) holds the listening
    socket of ``port``."""
    import psutil

    try:
        root = psutil.Process(process.pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return False
    for member in tree:
        with contextlib.suppress(psutil.Error):
            for found in member.net_connections(kind="tcp"):
                if found.status == psutil.CONN_LISTEN and found.laddr and found.laddr.port == port:
                    return True
    return False


def wait_http(port: int, timeout: float = 60, process: subprocess.Popen[Any] | None = None) -> None:
    """Wait until the port answers HTTP. With ``process``: until it answers
    from that process; ``PortTaken`` if it exits first, or if what answers is
    another's. A port from ``free_port`` is free when it is handed out, not
    when the server binds it: a process of another pytest worker can bind it
    in between, and the server then fails to listen while the port answers
    (a browser module's pages were served by another worker's Daphne, on
    another database, and got 404 for their own tables: 2026-12-01)."""
    import requests

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise PortTaken(f"the server for port {port} exited ({process.returncode})")
        # A first request can outlast a short read time-out on a loaded machine
        # (the application is imported on it): wait for it, then try again.
        with contextlib.suppress(requests.RequestException):
            requests.get(f"http://127.0.0.1:{port}/", timeout=10)
            if process is not None and not listens_on(process, port):
                raise PortTaken(f"port {port} answers from another process")
            return
        time.sleep(0.2)
    raise RuntimeError(f"no server on port {port}")


class Stack:
    """Start with ``with Stack(workdir) as stack:``; Django is set up in this
    process against the same database, for creating tables and checking money.

    ``database_url``: use this database as it is (tests pass theirs); otherwise
    a fresh ``<name>_bench`` is created and migrated. ``own_redis``: start a
    Redis server for this stack alone (needed to restart it). ``sentinels``:
    a primary, a replica and three sentinels of its own (``self.sentinels``),
    every role on its ``redis+sentinel://`` URL.
    """

    def __init__(
        self,
        workdir: Path,
        *,
        database_url: str | None = None,
        own_redis: bool = False,
        sentinels: bool = False,
        log_level: str = "WARNING",
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.database_url = database_url
        self.own_redis = own_redis
        self.use_sentinels = sentinels
        self.sentinels: SentinelGroup | None = None
        self.log_level = log_level
        self.extra_env = extra_env or {}
        self.ports = (free_port(), free_port())
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.redis: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] = {}
        self.restarts: dict[str, int] = {}
        self._supervising = threading.Event()
        self._unsupervised = threading.Event()
        self._supervisor: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------

    def __enter__(self) -> Stack:
        raise_file_limit()
        run = secrets.token_hex(4)
        env = dict(os.environ)
        if self.database_url:
            env["DATABASE_URL"] = self.database_url
        else:
            if not env.get("DATABASE_URL"):
                from vipgame import devpostgres

                env["DATABASE_URL"] = devpostgres.start(self.workdir)
            env["DATABASE_URL"] = fresh_database(env["DATABASE_URL"])
        if self.use_sentinels:
            from bench.sentinel import SentinelGroup

            self.sentinels = SentinelGroup(self.workdir).__enter__()
            # (REDIS_URL too: production refuses to start without it)
            env["REDIS_URL"] = env["REDIS_CHANNELS_URL"] = self.sentinels.url(0)
            env["REDIS_BROKER_URL"] = self.sentinels.url(1)
            env["REDIS_CACHE_URL"] = self.sentinels.url(2)
        elif self.own_redis or not env.get("REDIS_URL"):
            self.start_redis()
            env["REDIS_URL"] = f"unix://{self.redis_socket}"
            for role in ("REDIS_CHANNELS_URL", "REDIS_BROKER_URL", "REDIS_CACHE_URL"):
                env.pop(role, None)  # (every role on this one)
        env.update(
            DEBUG="0",
            SECRET_KEY=secrets.token_urlsafe(50),
            SECURE_SSL_REDIRECT="0",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            # Mail through a server that is not there: no benchmark sends any.
            EMAIL_HOST="127.0.0.1",
            DEFAULT_FROM_EMAIL="VIPGAME <noreply@bench.example.com>",
            # Web Push with a pair of its own (no benchmark player subscribes).
            **vapid_environment(),
            LOG_LEVEL=self.log_level,
            CHANNEL_PREFIX=f"bench-{run}",
            CACHE_PREFIX=f"bench-{run}",
            CELERY_QUEUE=f"bench-{run}",
            DB_APPLICATION_NAME=f"bench-{run}",
            VAR_DIR=str(self.workdir),
            # The players here move the instant it is their turn: more than a
            # person's 30 messages in 10 s. The flood limit itself is tested in
            # tests/consumers and by the fuzzer.
            WS_RATE_LIMIT="1000",
            # Every client of the benchmarks is on 127.0.0.1 (thousands of sockets):
            # the per-address cap is tested in tests/consumers/test_limits.py.
            WS_MAX_SOCKETS_PER_ADDRESS="0",
            # ... and the syncs per address (30 in 10 s): thousands of sockets
            # from one address each sync as they connect, and the refused ones
            # stay without a state (3,658 refusals in a 1,000-table run). The
            # limit is tested in tests/consumers.
            WS_SYNC_ADDRESS_RATE="none",
            # Metrics of all the processes, as in production (docs/observability.md).
            PROMETHEUS_MULTIPROC_DIR=str(self.workdir / "prometheus"),
            PATH=f"{BIN}:{env.get('PATH', '')}",
        )
        env.update(self.extra_env)
        self.env = env
        try:
            if not self.database_url:
                os.environ.update(env)
                subprocess.run(
                    [sys.executable, "manage.py", "migrate", "-v", "0"],
                    cwd=ROOT,
                    env=env,
                    check=True,
                )
            # DEBUG=0 serves hashed static files: they must be collected first.
            subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                cwd=ROOT,
                env=env,
                check=True,
            )
            for name in ("daphne-a", "daphne-b", "celery"):
                self.start(name)
            for name in ("daphne-a", "daphne-b"):
                self.wait_listening(name)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._supervising.clear()
        self._unsupervised.set()
        if self._supervisor is not None:
            self._supervisor.join()
        # Every process told at once, then waited for together: a Celery worker's
        # warm shutdown can take seconds, and the others need not queue behind it.
        stop_groups([self.processes.pop(name) for name in list(self.processes)], timeout=10)
        if self.redis is not None:
            self.redis.terminate()
            self.redis.wait()
        if self.sentinels is not None:
            self.sentinels.__exit__(None, None, None)

    # -- processes ----------------------------------------------------------------

    def command(self, name: str) -> list[str]:
        if name == "celery":
            return [str(BIN / "celery"), "-A", "vipgame", "worker", "--beat",
                    "-l", self.log_level, "--concurrency", "2",
                    "--schedule", str(self.workdir / "beat-schedule")]  # fmt: skip
        port = self.ports[0 if name == "daphne-a" else 1]
        return [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port),
                "vipgame.asgi:application"]  # fmt: skip

    def log(self, name: str) -> Path:
        return self.workdir / f"{name}.log"

    def start(self, name: str) -> None:
        with self.log(name).open("ab") as out:
            self.processes[name] = subprocess.Popen(
                self.command(name),
                cwd=ROOT,
                env={**self.env, "DB_APPLICATION_NAME": self.server_connections},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=raise_file_limit,
            )

    def supervise(self) -> None:
        """Restart a server process that exits by itself, as systemd's
        ``Restart=always`` would (processes this stack kills are not restarted)."""

        def loop() -> None:
            while not self._unsupervised.wait(0.5):
                for name, process in list(self.processes.items()):
                    if process.poll() is not None and self._supervising.is_set():
                        self.restarts[name] = self.restarts.get(name, 0) + 1
                        self.start(name)

        self._supervising.set()
        self._supervisor = threading.Thread(target=loop, daemon=True)
        self._supervisor.start()

    def kill(self, name: str) -> None:
        """``kill -9`` the process and everything it started."""
        kill_group(self.processes.pop(name))

    def stop(self, name: str) -> None:
        stop_group(self.processes.pop(name), timeout=10)

    def wait_listening(self, name: str, tries: int = 3) -> None:
        """Until the Daphne ``name`` answers on its port itself; started again
        on another port if another process had bound that one (``PortTaken``:
        the tests run beside each other)."""
        index = 0 if name == "daphne-a" else 1
        for tries_left in reversed(range(tries)):
            try:
                wait_http(self.ports[index], process=self.processes[name])
                return
            except PortTaken:
                if not tries_left:
                    raise
                stop_group(self.processes.pop(name), timeout=10)
                ports = list(self.ports)
                ports[index] = free_port()
                self.ports = (ports[0], ports[1])
                self.start(name)

    def wait_ready(self, name: str, timeout: float = 60) -> None:
        if name.startswith("daphne"):
            wait_http(self.ports[0 if name == "daphne-a" else 1], timeout)
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "ready" in self.log(name).read_text(errors="replace"):
                return
            time.sleep(0.2)
        raise RuntimeError(f"{name} did not start")

    # -- redis ------------------------------------------------------------------

    @property
    def redis_socket(self) -> Path:
        return self.workdir / "redis.sock"

    def start_redis(self) -> None:
        from vipgame import devredis

        self.redis = devredis.start(self.redis_socket)

    @property
    def server_connections(self) -> str:
        """The ``application_name`` of the server processes' connections."""
        return f"{self.env['DB_APPLICATION_NAME']}-servers"

    def drop_database_connections(self) -> int:
        """PostgreSQL ends every connection of this stack's server processes,
        as a restart or a fail-over would (``pg_terminate_backend``); returns
        how many it ended."""
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                "FROM pg_stat_activity WHERE application_name = %s",
                [self.server_connections],
            )
            return int(cursor.fetchone()[0])

    def restart_redis(self, down_for: float = 1.0) -> None:
        """Stop this stack's own Redis (all its data is lost) and start it again."""
        assert self.redis is not None, "only a stack with its own Redis can restart it"
        self.redis.kill()
        self.redis.wait()
        time.sleep(down_for)
        self.start_redis()

    # -- looking at the servers --------------------------------------------------

    def errors_in_logs(self) -> list[str]:
        """Tracebacks and ERROR lines the servers logged."""
        return errors_in(self.workdir.glob("*.log"))


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vipgame.settings")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


class Monitor:
    """Samples the server processes' CPU time and memory twice a second."""

    def __init__(self, processes: dict[str, subprocess.Popen[bytes]]) -> None:
        import psutil

        self.procs = {name: psutil.Process(p.pid) for name, p in processes.items()}
        self.peak: dict[str, int] = dict.fromkeys(self.procs, 0)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _tree(self, name: str) -> list[Any]:
        proc = self.procs[name]
        try:
            return [proc, *proc.children(recursive=True)]
        except Exception:
            return []  # the process is gone

    def rss(self, name: str) -> int:
        total = 0
        for proc in self._tree(name):
            with contextlib.suppress(Exception):
                total += proc.memory_info().rss
        return total

    def cpu(self) -> dict[str, float]:
        times = {}
        for name in self.procs:
            total = 0.0
            for proc in self._tree(name):
                with contextlib.suppress(Exception):
                    t = proc.cpu_times()
                    # (and of its children that have ended: a Celery pool
                    # process replaced during the run)
                    total += t.user + t.system + t.children_user + t.children_system
            times[name] = total
        return times

    def machine_cpu(self) -> dict[str, float]:
        """The servers' CPU seconds so far, with PostgreSQL's, Redis's and this
        process's threads' (``service_cpu``)."""
        return {**self.cpu(), **service_cpu()}

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            for name in self.procs:
                self.peak[name] = max(self.peak[name], self.rss(name))

    def __enter__(self) -> Monitor:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


# Everything else the machine runs for a benchmark, by name: the database and
# the channel layer's server (bench.tables and bench.transport add them to the
# servers' CPU to account for the machine's time per action).
SERVICE_PROCESSES = {"postgres": ("postgres", "postmaster"), "redis": ("redis-server",)}


def service_cpu() -> dict[str, float]:
    """CPU seconds used so far by every PostgreSQL and Redis process on the
    machine (a PostgreSQL backend that has ended counts through its parent's
    ``children`` times) and by this process: ``client`` is its main thread
    (the load client's event loop), ``harness`` its other threads (probes,
    samplers, this monitor)."""
    import psutil

    totals = dict.fromkeys([*SERVICE_PROCESSES, "client", "harness"], 0.0)
    for proc in psutil.process_iter(["name"]):
        for key, names in SERVICE_PROCESSES.items():
            if proc.info["name"] not in names:
                continue
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                totals[key] += times.user + times.system
                # (only the postmaster reaps backends; elsewhere these are 0)
                totals[key] += times.children_user + times.children_system
    me = psutil.Process()
    mine = me.cpu_times()
    main = threading.main_thread().native_id
    for thread in me.threads():
        if thread.id == main:
            totals["client"] = thread.user_time + thread.system_time
    # (the other threads, those that have ended too)
    totals["harness"] = mine.user + mine.system - totals["client"]
    return totals


def machine_time(cpu_s: dict[str, float], actions: int, seconds: float) -> dict[str, Any]:
    """Each part's CPU per action (ms), their sum, and how many cores were busy."""
    total = sum(cpu_s.values())
    return {
        "cpu_s": {name: round(value, 2) for name, value in cpu_s.items()},
        "ms_per_action": {
            name: round(1000 * value / actions, 3) if actions else None
            for name, value in cpu_s.items()
        },
        "total_ms_per_action": round(1000 * total / actions, 3) if actions else None,
        "cores_busy": round(total / seconds, 2),
    }


def cpu_used(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: after[name] - before.get(name, 0.0) for name in after}


def errors_in(logs: Iterable[Path]) -> list[str]:
    """The tracebacks and ERROR lines of these log files, each named by its file."""
    found = []
    for path in logs:
        lines = path.read_text(errors="replace").splitlines()
        for number, line in enumerate(lines):
            if "Traceback" in line or " ERROR" in line or "ERROR/" in line:
                found.append(f"{path.name}: {line.strip()[:400]}{_raised(lines, number)}")
    return found


def _raised(lines: list[str], start: int) -> str:
    """What a logged traceback ended with, as " -> " and the exception, so a
    failed drill says what was raised: from a JSON line's ``exc_info``, or
    for a plain ``Traceback`` line its first unindented line after the frames."""
    line = lines[start].strip()
    if line.startswith("{"):
        try:
            record = json.loads(line)
        except ValueError:
            return ""
        text = record.get("exc_info") if isinstance(record, dict) else None
        last = [part for part in str(text or "").splitlines() if part.strip()]
        return f" -> {last[-1].strip()[:300]}" if last else ""
    if not line.startswith("Traceback"):
        return ""
    for after in lines[start + 1 : start + 200]:
        if after and not after[0].isspace():
            return f" -> {after.strip()[:300]}"
    return ""
