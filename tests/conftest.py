import itertools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from accounts.models import User

    from .seeds import Dealer
    from .tables import Harness

_names = itertools.count()


# The longest tests (whole stacks killed and restarted, minutes each) run first,
# then the other real-process and browser tests, then the rest: under
# pytest-xdist a long test collected last would run alone at the end.
LONGEST_FIRST = ("tests/test_topology.py", "tests/test_drills.py", "tests/test_hosts.py")


def _run_order(item: pytest.Item) -> int:
    path = item.path.relative_to(item.config.rootpath).as_posix()
    if path in LONGEST_FIRST:
        return LONGEST_FIRST.index(path)
    if item.get_closest_marker("slow") or item.get_closest_marker("e2e"):
        return len(LONGEST_FIRST)
    return len(LONGEST_FIRST) + 1


def _unique_node_ids(items: list[pytest.Item]) -> None:
    """Give every test its own node id. schemathesis names each operation's
    test ``test_x[POST /api/v1/...]`` but leaves them one node id; pytest-xdist's
    ``loadgroup`` scheduler keys the tests by node id, and kept one of each
    such set (70 generated API tests silently not run, 2026-11-28). Any other
    duplicate is refused rather than dropped."""
    for item in items:
        last = item.nodeid.rpartition("::")[2]
        if item.parent is not None and item.name.startswith(f"{last}["):
            item._id = item.parent.id.child(item.name)  # as pytest names a parametrized test
    seen: set[str] = set()
    for item in items:
        if item.nodeid in seen:
            raise pytest.UsageError(f"two tests have the node id {item.nodeid}")
        seen.add(item.nodeid)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the run (see LONGEST_FIRST); the fairness tests and the browser
    tests (the JS verifier) check real draws: a stacked deck (the ``dealer``
    fixture) is refused there."""
    items.sort(key=_run_order)  # stable: the collection order within each group
    xdist = config.pluginmanager.hasplugin("xdist")
    _unique_node_ids(items)
    for item in items:
        path = item.path.relative_to(item.config.rootpath).as_posix()
        if xdist and path.startswith("tests/e2e/") and "site" in getattr(item, "fixturenames", ()):
            # One worker runs a browser module's tests (``make test``: --dist
            # loadgroup), on the one Daphne + Celery stack of that module.
            item.add_marker(pytest.mark.xdist_group(path))
        real = "fair" in item.path.name or path.startswith("tests/e2e/")
        if real and "dealer" in getattr(item, "fixturenames", ()):
            raise pytest.UsageError(f"{item.nodeid}: a fairness test deals real decks only")


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> None:
    from django.conf import settings

    if not settings.configured:  # the pure rules tests run without Django
        return
    from .settings_browser import PASSWORD_HASHERS  # as the browser tests' processes hash

    settings.PASSWORD_HASHERS = PASSWORD_HASHERS


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """pytest-django's test database; before it is dropped, the sessions still
    connected to it end: those of the threads that ran the sockets' database
    work (each keeps its own connection). PostgreSQL waits up to 5 s for them
    before refusing to drop the database (each worker's last test took 5 s
    more, and the database stayed behind with a warning). A run none of whose
    tests uses the database (tests/test_edge.py alone) made none: then this
    touches nothing (it ended the sessions of the database DATABASE_URL names,
    and failed where that database did not exist)."""
    yield
    from django.db import connection
    from django.db.backends.base.creation import TEST_DATABASE_PREFIX

    if connection.vendor != "postgresql":
        return
    if not connection.settings_dict["NAME"].startswith(TEST_DATABASE_PREFIX):
        return
    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


@pytest.fixture(autouse=True, scope="session")
def _fast_flush() -> None:
    """Transactional tests empty the database for less (tests/flush.py)."""
    from django.conf import settings

    if not settings.configured:
        return
    from .flush import install

    install()


@pytest.fixture(autouse=True)
def _fresh_limits() -> None:
    """Each test counts its own rate-limit hits and open sockets (kernel.limits)."""
    from django.conf import settings

    if not settings.configured:
        return
    import uuid

    from kernel import limits

    limits.NAMESPACE = uuid.uuid4().hex[:12]


@pytest.fixture
def make_user(db: None) -> Callable[..., "User"]:
    """A registered player (with the sign-up grant), or staff with ``is_staff=True``."""
    from wallet.services import player_signup

    def make(*, username: str | None = None, is_staff: bool = False, **extra: object) -> "User":
        name = username or f"player{next(_names)}"
        # Staff may carry a staff word ("Admin"), which sign-up refuses to players.
        shown = f"pending{next(_names)}" if is_staff else name.title()
        user = player_signup(username=name, display_name=shown, password="Bai-Tien-Len-42")
        if is_staff:
            user.is_staff = True
            user.is_superuser = True
            user.display_name = name.title()
            user.save(update_fields=["is_staff", "is_superuser", "display_name"])
        return user

    return make


@pytest.fixture
def tables(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., object],
) -> "Harness":
    """Table services with a frozen clock, deterministic seeds and a recording scheduler."""
    from games import clock as clock_module
    from games import scheduling, services, tasks
    from games import seeds as seeds_module
    from moderation import services as moderation

    from .seeds import SeedSource
    from .tables import AfterCommit, Clock, Harness, RecordingScheduler

    harness = Harness(Clock(), RecordingScheduler())
    marker = request.node.get_closest_marker("django_db")
    if marker is None or not marker.kwargs.get("transaction"):
        # The test's transaction never commits: each call into a service runs
        # its after-commit work when it returns (publishing, and recording the
        # scheduled work for drain() and fire()).
        request.getfixturevalue("db")
        AfterCommit(django_capture_on_commit_callbacks).install(
            monkeypatch, [services, tasks, moderation]
        )
    monkeypatch.setattr(clock_module, "now", harness.clock.now)
    monkeypatch.setattr(seeds_module, "token", SeedSource(request.node.nodeid).token)
    monkeypatch.setattr(scheduling, "scheduler", harness.scheduler)
    return harness


@pytest.fixture
def dealer(monkeypatch: pytest.MonkeyPatch) -> "Dealer":
    """Deals the decks a test stacks (``dealer.stack(...)``); see tests/seeds.py."""
    from games import seeds as seeds_module

    from .seeds import Dealer

    dealer = Dealer()
    monkeypatch.setattr(seeds_module, "deal", dealer.deal)
    return dealer


@pytest.fixture
def push_index():
    """(push) The index of who wants push, empty for the test and emptied after it."""
    from push import index

    for kind in index.KINDS:
        index.replace(kind, [])
    yield index
    for kind in index.KINDS:
        index.replace(kind, [])


@pytest.fixture
def delivered(monkeypatch, settings, push_index):
    """Notices queued for delivery are delivered at once (as the worker would),
    through the logging sender; returns what it recorded."""
    from push import notices, senders
    from push.services import push_deliver

    settings.PUSH_SENDER = "logging"
    senders.RECORDED.clear()

    def deliver_now(notice):
        push_deliver(
            notice=notice.kind,
            user_id=notice.user_id,
            table_id=notice.table_id,
            game=notice.game,
            extra=notice.extra,
        )

    monkeypatch.setattr(notices, "enqueue", deliver_now)
    return senders.RECORDED
