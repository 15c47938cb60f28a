"""Settings, read from the environment (django-environ). Every setting is in
docs/operations.md and .env.example.

Production by default: ``DEBUG`` is off, and a system check (vipgame/checks.py)
refuses to run without ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL``.
Development (``make run`` sets ``DEBUG=1``): SQLite in ``var/`` and an embedded
Redis on a unix socket in ``var/``. Tests: ``DATABASE_URL`` and ``REDIS_URL``.
"""

import os
import socket
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from whitenoise.compress import Compressor

from kernel import redis_urls
from kernel.ops.errors import init as sentry_init
from kernel.ops.logconfig import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env")

VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.bool("DEBUG", default=False)
if DEBUG:
    SECRET_KEY = env.str("SECRET_KEY", default="dev-only-insecure-key-change-me")
else:
    SECRET_KEY = env.str("SECRET_KEY", default="")
    if len(SECRET_KEY) < 50:
        raise ImproperlyConfigured("Set SECRET_KEY (50+ random characters) when DEBUG=0")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "vipgame.apps.StaticFiles",  # django.contrib.staticfiles, without Redoc
    "django.contrib.humanize",
    "channels",
    "rest_framework",
    "rest_framework.authtoken",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "moderation.apps.AxesConfig",  # django-axes, named in the admin's language
    "csp",
    "accounts",
    "push",
    "moderation",
    "vipgame.ops",
    "wallet",
    "games",
    "tournaments",
]

MIDDLEWARE = [
    # /healthz, /readyz, /metrics: answered before sessions, redirects and host checks;
    # /metrics sees the raw X-Forwarded-For (a proxied request is refused unless
    # METRICS_ALLOW_PROXIED) and checks the client by the one address policy.
    "vipgame.ops.views.ProbeMiddleware",
    # 5xx responses counted by view (vipgame_http_server_errors_total).
    "vipgame.ops.middleware.ServerErrorCountMiddleware",
    # Then, before anything else reads them, forwarded headers from anyone but a
    # trusted proxy are dropped (kernel.net).
    "kernel.net.ProxyHeadersMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "vipgame.middleware.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The browser sessions' rows in the list of sessions (accounts.sessions).
    "accounts.middleware.BrowserSessionMiddleware",
    "vipgame.ops.middleware.RequestContextMiddleware",
    # RateLimit-Policy / RateLimit headers of the limits that counted an API request.
    "kernel.api.ratelimit.RateLimitHeadersMiddleware",
    "moderation.middleware.DeviceMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "accounts.limits.LoginLimitMiddleware",
]

ROOT_URLCONF = "vipgame.urls"
ASGI_APPLICATION = "vipgame.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "vipgame.context_processors.header",
            ],
        },
    },
]

# Threads running table services for the sockets of one Daphne process (each
# holds a pooled database connection while a call runs).
DB_THREADS = env.int("DB_THREADS", default=4)
# Python's garbage collector in each Daphne process (kernel.ops.pauses): its
# thresholds (gen0, gen1, gen2; CPython's own are 700, 10, 10) and whether what
# the process loaded at start is frozen out of its collections.
GC_THRESHOLDS = tuple(int(n) for n in env.list("GC_THRESHOLDS", default=["50000", "20", "100"]))
GC_FREEZE = env.bool("GC_FREEZE", default=True)
# A service whose transaction is chosen as a deadlock's victim (or fails to
# serialize) is run again from the start, at most DB_RETRY_ATTEMPTS times in
# all, after a jittered pause of up to DB_RETRY_BACKOFF_MS x the attempt's
# number; after the last it answers ``busy`` (503), never a server error
# (docs/architecture.md "Lock order", kernel/retry.py).
DB_RETRY_ATTEMPTS = env.int("DB_RETRY_ATTEMPTS", default=4)
DB_RETRY_BACKOFF_MS = env.int("DB_RETRY_BACKOFF_MS", default=25)
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # One writer at a time, taken at BEGIN: no "database is locked" upgrades mid-transaction.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    # Django's psycopg connection pool (one per process, shared by its threads):
    # under ASGI every thread that touches the database would otherwise keep a
    # connection of its own. A connection goes back to the pool when a request,
    # a socket's service call or a task ends (CONN_MAX_AGE must be 0 with it).
    # DB_POOL=0 (e.g. behind PgBouncer in transaction mode): a connection per
    # unit of work, or persistent ones with CONN_MAX_AGE.
    DB_POOL = env.bool("DB_POOL", default=True)
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"]["application_name"] = env.str(
        "DB_APPLICATION_NAME", default="vipgame"
    )
    DATABASES["default"]["OPTIONS"]["connect_timeout"] = env.int("DB_CONNECT_TIMEOUT", default=5)
    # What a session may hold, and for how long (docs/operations.md "Time-outs"):
    # a host that dies or is cut off mid-transaction releases its row locks
    # within DB_IDLE_IN_TRANSACTION_TIMEOUT_MS (its session waits on the client:
    # PostgreSQL ends it), a statement runs at most DB_STATEMENT_TIMEOUT_MS, and
    # a lock is waited for at most DB_LOCK_TIMEOUT_MS (then the service runs
    # again, and answers `busy` after its last attempt: kernel/retry.py).
    DB_LOCK_TIMEOUT_MS = env.int("DB_LOCK_TIMEOUT_MS", default=2000)
    DB_STATEMENT_TIMEOUT_MS = env.int("DB_STATEMENT_TIMEOUT_MS", default=15000)
    DB_IDLE_IN_TRANSACTION_TIMEOUT_MS = env.int("DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", default=5000)
    # TCP keepalives both ways: libpq's probes find a dead database (or pooler)
    # host, and the same bounds as the session's own settings (PostgreSQL's
    # tcp_keepalives_* and tcp_user_timeout) find a dead client while a
    # statement's reply is unacknowledged. A silent peer is dropped after
    # about DB_KEEPALIVE_IDLE_S + DB_KEEPALIVE_INTERVAL_S x DB_KEEPALIVE_COUNT
    # seconds, or DB_TCP_USER_TIMEOUT_MS of unacknowledged data.
    DB_KEEPALIVE_IDLE_S = env.int("DB_KEEPALIVE_IDLE_S", default=5)
    DB_KEEPALIVE_INTERVAL_S = env.int("DB_KEEPALIVE_INTERVAL_S", default=2)
    DB_KEEPALIVE_COUNT = env.int("DB_KEEPALIVE_COUNT", default=3)
    DB_TCP_USER_TIMEOUT_MS = env.int("DB_TCP_USER_TIMEOUT_MS", default=10000)
    DATABASES["default"]["OPTIONS"].update(
        keepalives=1,
        keepalives_idle=DB_KEEPALIVE_IDLE_S,
        keepalives_interval=DB_KEEPALIVE_INTERVAL_S,
        keepalives_count=DB_KEEPALIVE_COUNT,
        tcp_user_timeout=DB_TCP_USER_TIMEOUT_MS,
    )
    DB_SESSION_SETTINGS = {
        "lock_timeout": DB_LOCK_TIMEOUT_MS,
        "statement_timeout": DB_STATEMENT_TIMEOUT_MS,
        "idle_in_transaction_session_timeout": DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        "tcp_keepalives_idle": DB_KEEPALIVE_IDLE_S,
        "tcp_keepalives_interval": DB_KEEPALIVE_INTERVAL_S,
        "tcp_keepalives_count": DB_KEEPALIVE_COUNT,
        "tcp_user_timeout": DB_TCP_USER_TIMEOUT_MS,
    }
    # Sent as the connection's startup options (libpq ``options``). PgBouncer
    # refuses that parameter ("unsupported startup parameter: options"): behind
    # it, DB_STARTUP_OPTIONS=0 and the same settings on the role (ALTER ROLE
    # ... SET, docs/operations.md "PgBouncer"); /readyz shows what the session got.
    DB_STARTUP_OPTIONS = env.bool("DB_STARTUP_OPTIONS", default=True)
    if DB_STARTUP_OPTIONS:
        DATABASES["default"]["OPTIONS"]["options"] = " ".join(
            f"-c {name}={value}" for name, value in DB_SESSION_SETTINGS.items()
        )
    # Prepared statements for the table services' hot path and the access-token
    # lookup only (kernel.sql asks for them; nothing is prepared by how often
    # it runs): PostgreSQL parses and plans a move's statements once per
    # connection. `auto` (the default):
    # prepared on a direct connection, unnamed statements behind a pooler
    # (kernel.sql.behind_pooler: the backend's process id is not the one the
    # connection was given, as PgBouncer hands out its own). `1`: always
    # (PgBouncer 1.21+ with max_prepared_statements); `0`: never.
    DB_PREPARED = env.str("DB_PREPARED", default="auto").strip().lower()
    if DB_PREPARED not in ("auto", "0", "1", "true", "false", "on", "off", "yes", "no"):
        raise ImproperlyConfigured(f"DB_PREPARED must be auto, 1 or 0, not {DB_PREPARED!r}")
    DB_PREPARED = {"true": "1", "on": "1", "yes": "1", "false": "0", "off": "0", "no": "0"}.get(
        DB_PREPARED, DB_PREPARED
    )
    if DB_PREPARED != "0":
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 2**31 - 1
    if DB_POOL:
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": env.int("DB_POOL_MIN_SIZE", default=0),
            "max_size": env.int("DB_POOL_MAX_SIZE", default=DB_THREADS + 4),
            # Waiting longer than this for a free connection is an error.
            "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
            # Idle connections above min_size close after this many seconds.
            "max_idle": env.float("DB_POOL_MAX_IDLE", default=300.0),
        }
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
    # A health check is one more round trip per unit of work (every WebSocket
    # message that touches the database). Without it, the first query on a
    # connection the server dropped fails once and the connection is replaced.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=False)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Unset: the embedded Redis of `make run` (refused when DEBUG=0, vipgame/checks.py).
REDIS_URL_SET = bool(env.str("REDIS_URL", default=""))
REDIS_URL = env.str("REDIS_URL", default="") or f"unix://{VAR_DIR / 'redis.sock'}"
# Redis by role (docs/operations.md "Redis: roles, Sentinel, fail-over"), each
# REDIS_URL unless set: the channel layer, Celery's broker, and the cache with
# the rate limits, socket caps and heartbeats. Any of them may be
# redis+sentinel://host:port,.../<master>[/<db>] (kernel/redis_urls.py): a
# Sentinel-watched primary, followed through a fail-over.
REDIS_CHANNELS_URL = env.str("REDIS_CHANNELS_URL", default="") or REDIS_URL
REDIS_BROKER_URL = env.str("REDIS_BROKER_URL", default="") or REDIS_URL
REDIS_CACHE_URL = env.str("REDIS_CACHE_URL", default="") or REDIS_URL
# Every Redis connection (cache and limits, channel layer, Celery's broker)
# over TCP probes a silent peer: a Redis host that dies or is cut off is found
# within about REDIS_KEEPALIVE_IDLE_S + REDIS_KEEPALIVE_INTERVAL_S x
# REDIS_KEEPALIVE_COUNT seconds instead of the kernel's two hours. The cache's
# and the limits' commands wait at most REDIS_SOCKET_TIMEOUT_S for a reply, and
# every connection (to Redis or to a sentinel) at most that long to open.
REDIS_KEEPALIVE_IDLE_S = env.int("REDIS_KEEPALIVE_IDLE_S", default=5)
REDIS_KEEPALIVE_INTERVAL_S = env.int("REDIS_KEEPALIVE_INTERVAL_S", default=2)
REDIS_KEEPALIVE_COUNT = env.int("REDIS_KEEPALIVE_COUNT", default=3)
REDIS_SOCKET_TIMEOUT_S = env.float("REDIS_SOCKET_TIMEOUT_S", default=5.0)


REDIS_TCP_KEEPALIVE: dict[str, Any] = {
    "socket_keepalive": True,
    "socket_keepalive_options": {
        option: value
        for option, value in (
            (getattr(socket, "TCP_KEEPIDLE", None), REDIS_KEEPALIVE_IDLE_S),
            (getattr(socket, "TCP_KEEPINTVL", None), REDIS_KEEPALIVE_INTERVAL_S),
            (getattr(socket, "TCP_KEEPCNT", None), REDIS_KEEPALIVE_COUNT),
        )
        if option is not None
    },
}


def redis_keepalive(url: str) -> dict[str, Any]:
    return redis_urls.keepalive(url, REDIS_TCP_KEEPALIVE)


# (the cache's: kernel.limits, push.index and kernel.ops.heartbeat use it too)
REDIS_KEEPALIVE: dict[str, Any] = redis_keepalive(REDIS_CACHE_URL)
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        # (a list: a string is split at commas, which a Sentinel URL has)
        "LOCATION": [REDIS_CACHE_URL],
        "KEY_PREFIX": env.str("CACHE_PREFIX", default="vipgame"),
        "OPTIONS": {
            "pool_class": redis_urls.pool_class(REDIS_CACHE_URL),
            "socket_timeout": REDIS_SOCKET_TIMEOUT_S,
            "socket_connect_timeout": REDIS_SOCKET_TIMEOUT_S,
            **REDIS_KEEPALIVE,
        },
    }
}
CHANNEL_LAYERS = {
    "default": {
        # Redis PUB/SUB (channels_redis.pubsub; a change's publications in one
        # pipeline, kernel/channel_layer.py): a publish per group and one
        # subscription per process, about a quarter less CPU per move than the
        # list-based layer in bench/tables.py, and it re-subscribes by itself
        # after Redis restarts or fails over. Messages are best effort either
        # way: clients resync by version.
        "BACKEND": env.str(
            "CHANNEL_BACKEND", default="kernel.channel_layer.PipelinedPubSubChannelLayer"
        ),
        "CONFIG": {
            # redis-py 8 reads with a 5 s socket timeout by default, the same as the
            # list-based layer's blocking pop: its idle consumers would die every
            # 5 s (django/channels_redis#422). Reads must outlast the pop.
            "hosts": [
                redis_urls.channel_host(
                    REDIS_CHANNELS_URL,
                    socket_timeout=15,
                    socket_connect_timeout=REDIS_SOCKET_TIMEOUT_S,
                    health_check_interval=30,
                    **redis_keepalive(REDIS_CHANNELS_URL),
                )
            ],
            "prefix": env.str("CHANNEL_PREFIX", default="asgi"),
            "capacity": 1000,  # these two: the list-based layer only
            "expiry": 30,
        },
    }
}

# A socket whose client sent nothing for this long (it pings every 10-20 s) is
# closed with 4410: a frozen client or one whose network went without a close
# (docs/protocol.md "Close codes"). 0: never.
WS_SILENT_CLOSE_S = env.float("WS_SILENT_CLOSE_S", default=45.0)
# Sockets spread again across the Daphne processes (kernel.ops.spread): every
# WS_SPREAD_INTERVAL_S (0: never) a process holding more than the mean by
# WS_SPREAD_SLACK of it and at least WS_SPREAD_MIN sockets closes some (1012).
WS_SPREAD_INTERVAL_S = env.float("WS_SPREAD_INTERVAL_S", default=15.0)
WS_SPREAD_SLACK = env.float("WS_SPREAD_SLACK", default=0.2)
WS_SPREAD_MIN = env.int("WS_SPREAD_MIN", default=20)
# Every ROOM_BEAT_S each Daphne process serving players notes that it reaches
# PostgreSQL and Redis; a gap of more than games.services.outages.OUTAGE_GAP is an
# outage, and players' clocks that ran during it are given again (0: never).
ROOM_BEAT_S = env.float("ROOM_BEAT_S", default=3.0)
# WebSocket flood limit: messages per socket per 10 s (a person sends a few;
# the load benchmark's clients, with no think time, get a higher one).
WS_RATE_LIMIT = env.int("WS_RATE_LIMIT", default=30)

CELERY_BROKER_URL, _BROKER_SENTINEL_OPTIONS = redis_urls.celery_broker(
    REDIS_BROKER_URL, REDIS_SOCKET_TIMEOUT_S
)
# Named queues: table timers, settlement, bots and the rest (the sweeper, holds).
# A worker started without -Q consumes all of them; a busy site can give timers
# and settlement workers of their own (docs/operations.md). CELERY_QUEUE, when
# set, prefixes every name (the tests and benchmarks keep their runs apart).
QUEUE_PREFIX = env.str("CELERY_QUEUE", default="")


def celery_queue(name: str) -> str:
    return f"{QUEUE_PREFIX}-{name}" if QUEUE_PREFIX else name


QUEUES = {name: celery_queue(name) for name in ("default", "timers", "settle", "bots")}
CELERY_TASK_DEFAULT_QUEUE = QUEUES["default"]
CELERY_TASK_QUEUES: dict[str, dict[str, str]] = {queue: {} for queue in QUEUES.values()}
CELERY_TASK_ROUTES = {
    "games.tasks.table_timer": {"queue": QUEUES["timers"]},
    "games.tasks.settle_hand": {"queue": QUEUES["settle"]},
    "games.tasks.bot_move": {"queue": QUEUES["bots"]},
    "games.tasks.bot_ready": {"queue": QUEUES["bots"]},
}
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker (and beat) outlives its broker: at start and after losing it, it
# retries the connection without end instead of exiting (the default gives up
# after 100 tries, 2 s apart growing to 30 s: about 45 min), and a lost
# connection is found within the socket time-out or the health checks below
# (docs/operations.md "Redis: roles, Sentinel, fail-over"; tests/test_redis_roles.py
# restarts Redis under a worker).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_SOCKET_TIMEOUT_S
# (kombu drops the keepalive options on a unix socket by itself.) A reply
# waited for longer than the socket time-out (longer than kombu's blocking
# pop, 1 s), or a blocking pop overdue by the health check interval, drops the
# connection: a primary that hangs with its connections open (TCP keepalives
# are answered) is left within seconds (tests/test_redis_roles.py, "hung").
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_connect_timeout": REDIS_SOCKET_TIMEOUT_S,
    "socket_timeout": REDIS_SOCKET_TIMEOUT_S,
    "health_check_interval": 5,
    "socket_keepalive": True,
    "socket_keepalive_options": redis_keepalive(REDIS_BROKER_URL).get(
        "socket_keepalive_options", {}
    ),
    **_BROKER_SENTINEL_OPTIONS,
}
# No task runs for long: past the soft limit it gets SoftTimeLimitExceeded (the
# transaction rolls back; settlement retries), past the hard one its process is
# replaced. The sweeper has its own, shorter ones (games/tasks.py).
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=30)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=60)
CELERY_TIMEZONE = "Asia/Ho_Chi_Minh"
# Retention (vipgame/ops/retention.py): every RETENTION_EVERY_S, delete expired
# sessions, django-axes logs older than RETENTION_AXES_DAYS and moderation
# sightings not seen for RETENTION_SIGHTINGS_DAYS (keep it above INTEGRITY_DAYS:
# the integrity report reads them). Hands, events and the ledger are kept.
RETENTION_EVERY_S = env.float("RETENTION_EVERY_S", default=3600.0)
RETENTION_AXES_DAYS = env.int("RETENTION_AXES_DAYS", default=90)
RETENTION_SIGHTINGS_DAYS = env.int("RETENTION_SIGHTINGS_DAYS", default=180)
RETENTION_BATCH = env.int("RETENTION_BATCH", default=5000)
# Beat runs once (its own process in production). Each periodic task expires
# before its next run: with no worker to take them, they do not pile up in the
# queue to run all at once later (a worker discards an expired one unrun).
SWEEPER_INTERVAL_S = 2.0
CELERY_BEAT_SCHEDULE = {
    "push-rebuild-index": {
        "task": "push.tasks.rebuild_index",
        "schedule": env.float("PUSH_INDEX_REBUILD_S", default=600.0),
        "options": {"expires": 60.0},
    },
    "wallet-expire-holds": {
        "task": "wallet.tasks.expire_holds",
        "schedule": 60.0,
        "options": {"expires": 55.0},
    },
    "games-sweeper": {
        "task": "games.tasks.sweeper",
        "schedule": SWEEPER_INTERVAL_S,
        "options": {"expires": SWEEPER_INTERVAL_S * 0.9},
    },
    "tournaments-sit-and-gos": {
        "task": "tournaments.tasks.sit_and_gos",
        "schedule": env.float("SIT_AND_GO_EVERY_S", default=5.0),
        "options": {"expires": 4.5},
    },
    "games-close-idle-tables": {
        "task": "games.tasks.close_idle_tables",
        "schedule": 60.0,
        "options": {"expires": 55.0},
    },
    "ops-retention": {
        "task": "vipgame.ops.tasks.clean_up",
        "schedule": RETENTION_EVERY_S,
        # Not worth doing late: a run queued while no worker listened is dropped.
        "options": {"expires": RETENTION_EVERY_S * 0.9},
    },
}
# A table clock that runs out within this many seconds gets its timer task when
# it is set; a longer one from the sweeper (every 2 s) this long before it ends.
TIMER_QUEUE_AHEAD_S = env.float("TIMER_QUEUE_AHEAD_S", default=4.0)
# Everyone is ready but a connected player's seed for the next hand has not
# arrived: wait this long for it before the server draws one (docs/fairness.md).
SEED_GRACE_MS = env.int("SEED_GRACE_MS", default=1500)
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
# A worker's pool process keeps its database connection from task to task
# (vipgame/ops/celery_hooks.py): for this many seconds, closed sooner after an
# error. Celery's Django fix-up would close it around every task; it does so
# only every CELERY_DB_REUSE_MAX tasks.
WORKER_CONN_MAX_AGE = env.int("WORKER_CONN_MAX_AGE", default=300)
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)

AUTH_USER_MODEL = "accounts.User"
# API sessions, one per device (accounts.sessions, docs/api.md "Log-in and
# tokens"): django-rest-knox access tokens, hashed at rest, good for
# ACCESS_TOKEN_MINUTES; a refresh token, single-use, trades for a new pair
# until REFRESH_TOKEN_DAYS without use (and never past SESSION_MAX_DAYS).
KNOX_TOKEN_MODEL = "accounts.AccessToken"  # noqa: S105 (a model, not a secret)
# knox's own migrations would create its default token table even though the
# model is swapped out (an empty table whose key on users blocks the tests'
# flush): knox's only model is ours, so it has no migrations to run.
MIGRATION_MODULES = {"knox": None}
ACCESS_TOKEN_MINUTES = env.int("ACCESS_TOKEN_MINUTES", default=15)
REFRESH_TOKEN_DAYS = env.int("REFRESH_TOKEN_DAYS", default=30)
SESSION_MAX_DAYS = env.int("SESSION_MAX_DAYS", default=90)
# Account recovery (accounts/recovery.py, docs/api.md "E-mail and password reset"):
# a reset link is good for PASSWORD_RESET_MINUTES and once (Django's
# PasswordResetTokenGenerator: the new password retires it); a verification link
# for EMAIL_VERIFY_HOURS and once (django.core.signing, bound to the addresses).
PASSWORD_RESET_MINUTES = env.int("PASSWORD_RESET_MINUTES", default=60)
PASSWORD_RESET_TIMEOUT = PASSWORD_RESET_MINUTES * 60
EMAIL_VERIFY_HOURS = env.int("EMAIL_VERIFY_HOURS", default=48)
REST_KNOX = {"AUTH_HEADER_PREFIX": "Token", "AUTO_REFRESH": False, "TOKEN_TTL": None}
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "accounts.limits.AddressLimitBackend",  # trust-access: per-address limits
    # ModelBackend with its hash inside PASSWORD_CHECKS_AT_ONCE; it refuses a wrong
    # password itself, so the ModelBackend after it (kept for sessions opened before
    # it came) never hashes: docs/security.md.
    "accounts.limits.PasswordCheckBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# Failed log-ins: 5 per username and address, then 15 minutes' wait.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = 0.25
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_VERBOSE = False

LANGUAGE_CODE = "vi"
LANGUAGES = [("vi", _("Vietnamese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Asia/Ho_Chi_Minh"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# Source maps are fetched only by a browser's developer tools, which take them
# plain: compressing them slowed every deploy's collectstatic and served no
# player.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = [*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"]


def throttle_rate(name: str, default: str) -> str | None:
    rate = env.str(name, default=default)
    return None if rate.lower() == "none" else rate


REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.TokenAuthentication",
        "kernel.api.auth.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "kernel.api.pagination.Pages",
    "EXCEPTION_HANDLER": "kernel.api.errors.exception_handler",
    # Per user on every POST ("none" turns it off); log-in and sign-up limits per
    # address are SIGNUP_RATE / LOGIN_RATE / LOGIN_FAILURE_RATE (accounts.limits).
    "DEFAULT_THROTTLE_CLASSES": ["kernel.api.throttling.WriteThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "writes": throttle_rate("API_RATE_WRITES", "120/min"),
    },
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "VIPGAME card room API",
    "DESCRIPTION": (
        "Everything a browser player can do, for mobile apps. Log in with "
        "`POST /api/v1/auth/login` and send `Authorization: Bearer <token>` "
        "(`Token <token>` is accepted too): the same token opens the WebSocket "
        "(docs/protocol.md). Browsers may use their session cookie instead, with the "
        "`X-CSRFToken` header on POSTs. Every error is "
        '`{"code", "message", "details"}`: `code` is stable, `message` is in the '
        "request's language (`Accept-Language`: Vietnamese unless `en` is asked for). "
        "Each error response lists its `code`s as an enum. The lobby is paginated by "
        "`page` (`page_size` up to 100); your hands and ledger by cursor (follow "
        "`next`). POSTs are throttled per user, log-in and sign-up per address "
        "(`throttled`, with `details.wait` and `Retry-After`); `RateLimit-Policy` and "
        "`RateLimit` say where each limit stands. A POST that creates something takes an "
        "`Idempotency-Key` header: sent again with the same key and body, it answers the "
        "first answer and does nothing again (docs/api.md). "
        "The table state (`GET /api/v1/tables/{table_id}`) is the WebSocket's `state` "
        "envelope: the same names, one result shape, typed per game (`View`, `Result`, "
        "`Action` and the `Ws*` message components). The protocol and the envelope: "
        "[docs/protocol.md](/api/protocol.md). The sockets as AsyncAPI 3.0 (channels, "
        "messages, close codes, limits; the same components): "
        "[/api/asyncapi.json](/api/asyncapi.json), [YAML](/api/asyncapi.yaml)."
    ),
    "VERSION": "1.0.0",
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # (a push subscription's kind: its own name beside the other "kind" enums)
    "ENUM_NAME_OVERRIDES": {
        "PushKindEnum": "push.models.Subscription.Kind",
        "TournamentKindEnum": "tournaments.models.Tournament.Kind",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "TournamentEntryStatusEnum": "tournaments.models.Entry.Status",
        # A table's status keeps the name it had before tournaments had one.
        "StatusEnum": "games.models.Table.Status",
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # The games' typed views, results and actions and the WebSocket messages.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.add_components",
        # The one error shape the error responses narrow (kernel.api.schema.errors).
        "kernel.api.schema.error_component",
        # Request bodies the server reads strictly: additionalProperties false.
        "kernel.api.strict.close_request_bodies",
        # Idempotency-Key: the 409 and 422 of each operation that takes it.
        "kernel.api.idempotency.idempotency_keys",
        # docs/<name>.md in a description: a link to /api/<name>.md.
        "vipgame.api.documents.link_documents",
        # Last: what OpenAPI 3.0 forbids (an empty `required`), whoever wrote it.
        "kernel.api.schema.openapi_conformance",
    ],
}

# How long an Idempotency-Key and the answer it replays are kept (kernel.api.idempotency).
IDEMPOTENCY_KEY_HOURS = env.int("IDEMPOTENCY_KEY_HOURS", default=24)

# Play money (chips).
SIGNUP_GRANT = env.int("SIGNUP_GRANT", default=10_000)
DAILY_BONUS = env.int("DAILY_BONUS", default=2_000)
BONUS_TIME_ZONE = "Asia/Ho_Chi_Minh"
# Limits on what one player can open (staff are exempt): open tables they own,
# and bot seats they asked for at open tables. Bots are a pool of at most
# BOT_POOL_SIZE accounts reused across tables; their chips are lent by the
# house account (HOUSE_FLOAT chips from issuance once) and go back to it when
# they leave. A table with nothing happening for TABLE_IDLE_MINUTES is closed
# (0: never).
MAX_OPEN_TABLES_PER_USER = env.int("MAX_OPEN_TABLES_PER_USER", default=3)
MAX_BOT_SEATS_PER_USER = env.int("MAX_BOT_SEATS_PER_USER", default=6)
BOT_POOL_SIZE = env.int("BOT_POOL_SIZE", default=50)
# The pool is shared (issue 34, S-08): one player, and all the accounts of one
# client address together, may hold at most this percentage of BOT_POOL_SIZE
# (at least one bot; a player's cap is also MAX_BOT_SEATS_PER_USER). With 50
# bots: 4 per player, 15 per address, so ten accounts leave bots for others.
BOT_SHARE_PER_USER_PERCENT = env.int("BOT_SHARE_PER_USER_PERCENT", default=8)
BOT_SHARE_PER_ADDRESS_PERCENT = env.int("BOT_SHARE_PER_ADDRESS_PERCENT", default=30)
# A table whose people are all gone (none seated, or none with a socket open)
# for this long has its bots sent back to the pool between hands (the sweeper).
BOT_RELEASE_SECONDS = env.int("BOT_RELEASE_SECONDS", default=90)
HOUSE_FLOAT = env.int("HOUSE_FLOAT", default=1_000_000)
TABLE_IDLE_MINUTES = env.int("TABLE_IDLE_MINUTES", default=15)
# The house's Sit & Gos (docs/tournaments.md): one open for every game, table
# size and these buy-ins (empty: none), its fee this share of the buy-in,
# filled with bots after this wait (0: never), its levels this long.
HOUSE_SIT_AND_GOS = env.list("HOUSE_SIT_AND_GOS", default=["100", "1000"])
HOUSE_SIT_AND_GO_FEE_PERCENT = env.int("HOUSE_SIT_AND_GO_FEE_PERCENT", default=10)
HOUSE_SIT_AND_GO_BOTS_AFTER_S = env.int("HOUSE_SIT_AND_GO_BOTS_AFTER_S", default=120)
HOUSE_SIT_AND_GO_LEVEL_S = env.int("HOUSE_SIT_AND_GO_LEVEL_S", default=180)
# A tournament table's clocks (seconds): each turn, and the result's pause.
TOURNAMENT_TURN_SECONDS = env.int("TOURNAMENT_TURN_SECONDS", default=20)
TOURNAMENT_SUMMARY_SECONDS = env.int("TOURNAMENT_SUMMARY_SECONDS", default=4)
# The house's daily tournament of every game: its local start (HH:MM in
# BONUS_TIME_ZONE; empty: none), its buy-in (its fee HOUSE_SIT_AND_GO_FEE_PERCENT
# of it) and each level's length.
DAILY_TOURNAMENT_AT = env.str("DAILY_TOURNAMENT_AT", default="20:00")
DAILY_TOURNAMENT_BUY_IN = env.int("DAILY_TOURNAMENT_BUY_IN", default=500)
DAILY_TOURNAMENT_LEVEL_S = env.int("DAILY_TOURNAMENT_LEVEL_S", default=300)
# Staff balance adjustments (docs/security.md, "Balance adjustments"): one
# staff member posts alone at most ADJUST_APPROVAL_LIMIT chips (either way,
# summed as |amount|) to one player and ADJUST_APPROVAL_STAFF_LIMIT to all
# players together in any ADJUST_APPROVAL_WINDOW_HOURS; beyond that an
# adjustment waits for a second staff member's approval.
ADJUST_APPROVAL_LIMIT = env.int("ADJUST_APPROVAL_LIMIT", default=100_000)
ADJUST_APPROVAL_STAFF_LIMIT = env.int("ADJUST_APPROVAL_STAFF_LIMIT", default=300_000)
ADJUST_APPROVAL_WINDOW_HOURS = env.int("ADJUST_APPROVAL_WINDOW_HOURS", default=24)

# Moderation: the integrity report's default thresholds (staff can change them on the page).
INTEGRITY_DAYS = env.int("INTEGRITY_DAYS", default=30)
INTEGRITY_MIN_HANDS = env.int("INTEGRITY_MIN_HANDS", default=20)
INTEGRITY_MIN_CHIPS = env.int("INTEGRITY_MIN_CHIPS", default=2_000)
INTEGRITY_MIN_SHARE_PERCENT = env.int("INTEGRITY_MIN_SHARE_PERCENT", default=80)
# Reported chat lines: reports per player (web, API and socket together; "none": no
# limit) and how old a line may be to be reported.
CHAT_REPORT_RATE = env.str("CHAT_REPORT_RATE", default="10/hour")
CHAT_REPORT_MAX_AGE_HOURS = env.int("CHAT_REPORT_MAX_AGE_HOURS", default=24)
# Sightings: a random device cookie; a (user, address, device) is written at
# log-in and otherwise at most once per SIGHTING_REFRESH_S.
DEVICE_COOKIE_NAME = "device"
DEVICE_COOKIE_AGE = 2 * 365 * 24 * 3600
SIGHTING_REFRESH_S = env.int("SIGHTING_REFRESH_S", default=600)
# The games: their plugins (games.plugins.base.GamePlugin subclasses), in the
# lobby's order. Each names its rules package, registered in games.rules.registry.
VIPGAME_GAMES = [
    "games.plugins.maubinh.MauBinh",
    "games.plugins.tienlen.TienLen",
    "games.plugins.holdem.Holdem",
]
# Clocks and bot think times of the tables the lobby creates, e.g.
# TABLE_DEFAULTS=arrange_seconds=30,reveal_seconds=1,bot_delay_ms=100,bot_delay_max_ms=300
# (the clocks every table has: ready_seconds, turn_seconds, summary_seconds; a game's
# own clocks, its plugin's knobs, such as arrange_seconds: its tables alone take them;
# bot_delay_ms, bot_delay_max_ms; the browser tests use short ones). Unset: the
# defaults (90 s to arrange, 20 s a turn...). Each name and range is checked at start
# (games.apps).
TABLE_DEFAULTS = {key: int(value) for key, value in env.dict("TABLE_DEFAULTS", default={}).items()}

if not DEBUG:
    # Honoured only when the peer is one of TRUSTED_PROXIES: kernel.net.ProxyHeadersMiddleware
    # drops X-Forwarded-Proto from anyone else.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

# --- trust-access (issue 13 items 7-10): client addresses, limits, sockets, CSP ---------
# The one client-address policy (kernel.net): the socket peer, unless it is one of these
# proxies (addresses or CIDR networks, comma-separated); then the rightmost address of
# X-Forwarded-For that is not a trusted proxy. Empty: no forwarded header is believed.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])
AXES_CLIENT_IP_CALLABLE = "kernel.net.client_ip"
# Per client address ("none" turns one off; e.g. 10/hour, 20/min, 5/10s):
SIGNUP_RATE = env.str("SIGNUP_RATE", default="10/hour")  # accounts created, web + API together
LOGIN_RATE = env.str("LOGIN_RATE", default="20/min")  # log-in attempts: web, API and admin
LOGIN_FAILURE_RATE = env.str("LOGIN_FAILURE_RATE", default="30/hour")  # failures, any username
# Per account: wrong current passwords sent to the API's password change (which the
# write limit never refuses); reached, no change until the window lets it.
PASSWORD_CHANGE_FAILURE_RATE = env.str("PASSWORD_CHANGE_FAILURE_RATE", default="10/hour")
# Password checks (~2 s of CPU each) running at once per process, whatever the address
# (0: no cap); a log-in waits at most PASSWORD_CHECK_WAIT_S for a slot, then gets `busy`
# (503 with Retry-After) without any hash run.
PASSWORD_CHECKS_AT_ONCE = env.int("PASSWORD_CHECKS_AT_ONCE", default=2)
PASSWORD_CHECK_WAIT_S = env.float("PASSWORD_CHECK_WAIT_S", default=1.0)
# Open WebSockets per user and per address (0: no cap), and chat lines per user over all
# of their sockets.
WS_MAX_SOCKETS_PER_USER = env.int("WS_MAX_SOCKETS_PER_USER", default=10)
WS_MAX_SOCKETS_PER_ADDRESS = env.int("WS_MAX_SOCKETS_PER_ADDRESS", default=100)
WS_CHAT_RATE = env.str("WS_CHAT_RATE", default="5/10s")
# `sync` (a full state read from the database, ~7.5 ms of a process's CPU): per socket,
# and per client address over every socket and process. Past either: `sync_rate_limited`.
WS_SYNC_RATE = env.str("WS_SYNC_RATE", default="5/10s")
WS_SYNC_ADDRESS_RATE = env.str("WS_SYNC_ADDRESS_RATE", default="30/10s")
# Bytes written to one socket that its client has not read yet (Daphne's transport
# buffer); past it the socket is closed with 4408, too slow (games.ws_close). 0: no bound.
WS_MAX_PENDING_BYTES = env.int("WS_MAX_PENDING_BYTES", default=256 * 1024)
# Sockets one process may have opening at once (handshake to accepted); one more is
# closed at once with 1013, try again later (games.ws_auth.OpeningGate). 0: no cap.
WS_MAX_OPENING = env.int("WS_MAX_OPENING", default=32)
# Origins (scheme://host[:port]) whose pages may open a WebSocket with the session cookie.
# Default: CSRF_TRUSTED_ORIGINS, https:// on each ALLOWED_HOSTS name and, with DEBUG,
# http:// on WEB_PORT (make run's address).
_web_port = env.int("WEB_PORT", default=8000)
ALLOWED_ORIGINS = env.list(
    "ALLOWED_ORIGINS",
    default=[
        *CSRF_TRUSTED_ORIGINS,
        *(
            origin
            for host in ALLOWED_HOSTS
            if host and not host.startswith(".") and host != "*"
            for origin in ([f"https://{host}"] + ([f"http://{host}:{_web_port}"] if DEBUG else []))
        ),
    ],
)
# Content-Security-Policy (django-csp): no inline script or style, nothing from elsewhere.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# Account recovery, per client address / per e-mail address or username asked for
# (counted whether an account has it or not) and per account ("none": off):
PASSWORD_RESET_RATE = env.str("PASSWORD_RESET_RATE", default="10/hour")
PASSWORD_RESET_ACCOUNT_RATE = env.str("PASSWORD_RESET_ACCOUNT_RATE", default="3/hour")
EMAIL_VERIFY_RATE = env.str("EMAIL_VERIFY_RATE", default="5/hour")
# Push notifications (push/, docs/operations.md "Push"): PUSH_SENDER is webpush
# (browsers through their push service with the VAPID keys; FCM/APNs tokens are
# registered, and logged, not delivered), logging (nothing leaves the machine: each
# push is logged and, with PUSH_LOG_FILE, appended to that file as a JSON line) or
# off. make run (DEBUG=1) logs, with a VAPID pair of its own kept in VAR_DIR/vapid.json;
# production sends and a system check (vipgame.E005) refuses to start without keys.
PUSH_SENDER = env.str("PUSH_SENDER", default="logging" if DEBUG else "webpush")
PUSH_LOG_FILE = env.str("PUSH_LOG_FILE", default="")
PUSH_VAPID_PUBLIC_KEY = env.str("PUSH_VAPID_PUBLIC_KEY", default="")
PUSH_VAPID_PRIVATE_KEY = env.str("PUSH_VAPID_PRIVATE_KEY", default="")
if DEBUG and not PUSH_VAPID_PRIVATE_KEY:
    from push.keys import development_pair

    PUSH_VAPID_PUBLIC_KEY, PUSH_VAPID_PRIVATE_KEY = development_pair(VAR_DIR / "vapid.json")
# The contact push services may write to about this server's pushes (RFC 8292).
PUSH_VAPID_SUBJECT = env.str("PUSH_VAPID_SUBJECT", default="mailto:push@localhost")
PUSH_TIMEOUT_S = env.float("PUSH_TIMEOUT_S", default=5.0)
# How long a push service may hold a notice for an unreachable device: a turn or a
# hand's start is stale within a minute, an invitation keeps for an hour.
PUSH_TURN_TTL_S = env.int("PUSH_TURN_TTL_S", default=60)
PUSH_INVITE_TTL_S = env.int("PUSH_INVITE_TTL_S", default=3600)
PUSH_MAX_SUBSCRIPTIONS = env.int("PUSH_MAX_SUBSCRIPTIONS", default=10)
# Invitations to a table by name (games.services.invite_send, each pushed), per player.
INVITE_RATE = env.str("INVITE_RATE", default="30/hour")
PUSH_INDEX_REBUILD_S = env.float("PUSH_INDEX_REBUILD_S", default=600.0)
# --- end trust-access ------------------------------------------------------------------


# Mail (reset and verification links; docs/operations.md "Mail"). make run (DEBUG=1)
# writes each message to a file in VAR_DIR/mail (the start-up box says so); production
# sends through SMTP, and a system check (vipgame.E003) refuses to start without
# EMAIL_HOST and DEFAULT_FROM_EMAIL, or with a development backend.
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default=(
        "django.core.mail.backends.filebased.EmailBackend"
        if DEBUG
        else "django.core.mail.backends.smtp.EmailBackend"
    ),
)
EMAIL_FILE_PATH = VAR_DIR / "mail"
EMAIL_HOST = env.str("EMAIL_HOST", default="")
EMAIL_PORT = env.int("EMAIL_PORT", default=587)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=True)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="VIPGAME <noreply@localhost>")
# The site's address in mailed links, never taken from a request's Host header
# (a forged Host would send a reset link to another site). Default: make run's
# address with DEBUG, else https:// on the first ALLOWED_HOSTS name.
_web_host = env.str("WEB_HOST", default="127.0.0.1")
_web_host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(_web_host, _web_host)  # noqa: S104
_site_names = [host.lstrip(".") for host in ALLOWED_HOSTS if host.strip(".*")] or ["localhost"]
SITE_URL = env.str(
    "SITE_URL",
    default=(
        f"http://{f'[{_web_host}]' if ':' in _web_host else _web_host}:{_web_port}"
        if DEBUG
        else f"https://{_site_names[0]}"
    ),
).rstrip("/")

# Observability (docs/observability.md).
# Logs: JSON lines (production) or plain lines (development), UTC, with the
# request id, user, table and hand where known.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain" if DEBUG else "json")
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = logging_config(LOG_FORMAT, LOG_LEVEL)
# /readyz: each check's time-out (this process's database and Redis; the
# sweeper's age and the settlement backlog are metrics with alerts instead).
READY_TIMEOUT_S = env.float("READY_TIMEOUT_S", default=2.0)
# /metrics: answered to these networks only (the peer address); a request that
# came through a proxy (X-Forwarded-For) is refused unless METRICS_ALLOW_PROXIED.
METRICS_ALLOWED = env.list("METRICS_ALLOWED", default=["127.0.0.0/8", "::1/128"])
METRICS_ALLOW_PROXIED = env.bool("METRICS_ALLOW_PROXIED", default=False)
# Several processes on a host (Daphne, Celery): one empty directory they all
# share, emptied before they start (prometheus-client's multiprocess mode).
# Unset: each process counts for itself (development).
PROMETHEUS_MULTIPROC_DIR = env.str("PROMETHEUS_MULTIPROC_DIR", default="")
if PROMETHEUS_MULTIPROC_DIR:
    Path(PROMETHEUS_MULTIPROC_DIR).mkdir(parents=True, exist_ok=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = PROMETHEUS_MULTIPROC_DIR
# Error reporting (sentry-sdk) when SENTRY_DSN is set; no personal data, no
# request bodies, no local variables, seeds and cards scrubbed.
SENTRY_DSN = env.str("SENTRY_DSN", default="")
sentry_init(
    SENTRY_DSN,
    environment=env.str("SENTRY_ENVIRONMENT", default=""),
    release=env.str("SENTRY_RELEASE", default=""),
    traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
)
