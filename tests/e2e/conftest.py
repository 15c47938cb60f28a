"""Browser tests: Debian's Chromium driven by Playwright against real Daphne and
Celery (worker + beat) processes on the test database.

The browser is Chromium's headless shell (``chromium_path``), the same
engine without the browser around its pages, where it is installed.

The servers (``Stack``) start with short clocks and quick bots
(``TABLE_DEFAULTS``) for the first browser module a worker runs, and keep
running through the browser modules that follow it on that worker; the
browser starts once a module; each test gets fresh contexts, signs up its own
players and plays at its own tables (closed when it ends). What the tests
write stays until their module ends: then the test database is flushed, and
the servers stop first unless the next module goes on with them
(``_stack``). Screenshots go
to ``tests/e2e/artifacts/`` (ignored by git) with ``E2E_SHOTS=1``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.stack import stop_groups
from tests.jsnode import NodePage
from tests.processes import (
    celery_worker,
    daphne,
    process_env,
    running,
    serving,
    wait_for,
)

ARTIFACTS = Path(__file__).parent / "artifacts"
ROOT = Path(__file__).resolve().parents[2]
BLANK_ORIGIN = "http://blank.test"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
# Short clocks and quick bots so a whole hand plays in seconds.
E2E_TABLE_DEFAULTS = (
    "ready_seconds=30,arrange_seconds=40,reveal_seconds=1,turn_seconds=8,"
    "summary_seconds=2,bot_delay_ms=80,bot_delay_max_ms=200"
)
PASSWORD = "Bai-Tien-Len-42"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 360, "height": 740}


@dataclass
class Site:
    url: str
    log_dir: Path


class Stack:
    """Daphne and a Celery worker with beat, started by the first test that
    asks for ``site`` (after that test's own fixtures: test_replay.py plays
    its hands before the processes start), and stopped when the worker's run
    of browser modules ends (``_stack``)."""

    def __init__(self, tmp_path_factory: Any) -> None:
        self.tmp_path_factory = tmp_path_factory
        self.site: Site | None = None
        self.exits = contextlib.ExitStack()

    def start(self) -> Site:
        if self.site is not None:
            return self.site
        var = self.tmp_path_factory.mktemp("e2e")
        port, server = self.exits.enter_context(
            serving(daphne, lambda port: self.env(var, port), var / "daphne.log")
        )
        worker = self.exits.enter_context(
            running(celery_worker(var, beat=True), self.env(var, port), var / "celery.log")
        )
        # together: the worker's stop takes seconds
        self.exits.callback(stop_groups, [server, worker], timeout=10)
        wait_for(lambda: "ready" in (var / "celery.log").read_text(), timeout=60)
        self.site = Site(f"http://127.0.0.1:{port}", var)
        return self.site

    @staticmethod
    def env(var: Path, port: int) -> dict[str, str]:
        env = process_env(
            var,
            DJANGO_SETTINGS_MODULE="tests.settings_browser",
            TABLE_DEFAULTS=E2E_TABLE_DEFAULTS,
            AXES_ENABLED="0",
            # The browser's pages are on this port; every test signs up from 127.0.0.1
            # (the limits have their own tests: tests/accounts/test_limits.py).
            ALLOWED_ORIGINS=f"http://127.0.0.1:{port}",
            SIGNUP_RATE="none",
            LOGIN_RATE="none",
            # The logging push sender's record (what the push test feeds the service worker).
            PUSH_SENDER="logging",
            PUSH_LOG_FILE=str(var / "push.jsonl"),
        )
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        return env

    def stop(self) -> None:
        self.exits.close()
        self.site = None


def in_a_thread(work: Any) -> Any:
    """``work()`` in a thread of its own, with its own database connection:
    Playwright's event loop runs in the test's thread, where the services'
    async-to-sync publishing may not run."""
    from django.db import connection

    def run() -> Any:
        try:
            return work()
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(run).result()


def close_every_open_table() -> None:
    """Each test's tables close when it ends (its seats, bots and hands with
    them): the next test of the module plays at tables of its own ("play now"
    would seat it at a table nobody is at) with the whole bot pool."""
    from games import services
    from games.models import Table

    def close() -> None:
        for pk in Table.objects.exclude(status=Table.Status.CLOSED).values_list("pk", flat=True):
            services.table_close(table_id=pk, by=None, reason="test over")

    in_a_thread(close)


#: The test that runs after the one being torn down (``pytest_runtest_teardown``):
#: whether the next module goes on with the same processes.
_next: list[pytest.Item | None] = [None]
#: The worker's one ``Stack``.
_stacks: list[Stack] = []


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    _next[0] = nextitem
    yield


def shares_the_stack(item: pytest.Item | None) -> bool:
    """A browser test that goes on with the processes the module before it left
    running: any that asks for ``site``, but in a module with processes of its
    own (``STACK_OF_ITS_OWN``: test_replay.py, whose hands nothing may move
    before its processes start). pytest-xdist runs a test once it knows the
    next one, so ``nextitem`` is the test this worker really runs next."""
    return (
        item is not None
        and item.path.parent == Path(__file__).parent
        and "site" in getattr(item, "fixturenames", ())
        and not getattr(getattr(item, "module", None), "STACK_OF_ITS_OWN", False)
    )


@pytest.fixture(scope="module")
def _stack(
    request: pytest.FixtureRequest,
    django_db_setup: None,
    django_db_blocker: Any,
    tmp_path_factory: Any,
) -> Iterator[Stack]:
    """The processes, and the data the module commits: when the module ends,
    the test database is flushed, so the next module starts on an empty one
    (two modules sign up a "Lan", and a display name is taken once). The
    processes go on into the next module if both it and this one share them
    (``shares_the_stack``): the flush then runs beside them, each test's
    tables closed. Otherwise they stop first, so whatever runs next on this
    worker has no process of ours moving its data. Starting and stopping
    them cost about 4.5 CPU-s a module (Daphne 1.7, the worker with beat
    2.8: ``python -m bench.suite`` of a module whose one test opens a page,
    against one that does not)."""
    if not _stacks:
        _stacks.append(Stack(tmp_path_factory))
    stack = _stacks[0]
    try:
        yield stack
    finally:
        own = getattr(request.module, "STACK_OF_ITS_OWN", False)
        if own or not shares_the_stack(_next[0]):
            stack.stop()
        with django_db_blocker.unblock():
            in_a_thread(flush_beside_the_processes)


def flush_test_database() -> None:
    """What a transactional test's teardown does (tests/flush.py)."""
    from ..flush import flush

    flush()


def flush_beside_the_processes(tries: int = 5) -> None:
    """``flush_test_database`` while the processes may still run a task (a
    closed table's last timer, the sweeper): one that holds a row the flush
    deletes, or that waits on one the flush holds, either makes the flush
    wait or ends it (``lock_timeout``, or PostgreSQL's deadlock detection):
    then it is tried again. The connection goes back to the pool with the
    session's own ``lock_timeout`` (``RESET``): a later test on this worker
    that takes it must find ``DB_LOCK_TIMEOUT_MS``, not 5 s."""
    from django.db import OperationalError, connection

    for tries_left in reversed(range(tries)):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = '5s'")
            try:
                flush_test_database()
            finally:
                with contextlib.suppress(OperationalError), connection.cursor() as cursor:
                    cursor.execute("RESET lock_timeout")
            return
        except OperationalError:
            if not tries_left:
                raise
            time.sleep(1)


@pytest.fixture
def _django_db_helper(
    request: pytest.FixtureRequest, _stack: Stack, django_db_blocker: Any
) -> Iterator[None]:
    """The browser tests' database (pytest-django's own fixture, overridden
    for tests/e2e/): what a test writes is committed, as with
    ``django_db(transaction=True)``, which each of them is marked with, and
    stays until its module ends (``_stack``), not flushed after each test
    while the module's processes run."""
    marker = request.node.get_closest_marker("django_db")
    if marker is None or not marker.kwargs.get("transaction"):
        raise pytest.UsageError(f"{request.node.nodeid}: mark it django_db(transaction=True)")
    with django_db_blocker.unblock():
        yield


@pytest.fixture
def site(transactional_db: None, _stack: Stack) -> Iterator[Site]:
    """The module's Daphne and Celery worker with beat (``Stack``); each test
    signs up its own players, and the tables it played at close when it ends."""
    yield _stack.start()
    close_every_open_table()


def chromium_path(*, full: bool = False) -> str:
    """The Chromium the browser tests drive. Debian's ``chromium-headless-shell``
    (``CHROMIUM_SHELL_PATH``, else found on the PATH) where it is installed:
    the same Blink, V8 and fonts as Chromium, without the browser around the
    pages, for about a third less of the browser's CPU (bench/RESULTS.md "The
    test suite"); else Chromium itself (``CHROMIUM_PATH``). ``full``: Chromium
    itself always, for what only the whole browser does (a page that loses the
    focus to another brought in front: tests/e2e/test_install_push.py)."""
    chromium = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    if full:
        return chromium
    shell = os.environ.get("CHROMIUM_SHELL_PATH") or shutil.which("chromium-headless-shell")
    return shell or chromium


def launch(playwright: Any, *, full: bool = False) -> Any:
    return playwright.chromium.launch(
        executable_path=chromium_path(full=full), headless=True, args=CHROMIUM_ARGS
    )


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Chromium for one test module (the whole browser if the module sets
    ``WHOLE_BROWSER = True``, else ``chromium_path``'s). While Playwright's sync
    API runs, its event loop is running in this thread: the ORM calls that set
    up and flush the test database are still plain synchronous code, so Django
    is told so, for this module only."""
    from playwright.sync_api import sync_playwright

    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        chromium = launch(playwright, full=getattr(request.module, "WHOLE_BROWSER", False))
        yield chromium
        chromium.close()


class Pages:
    """Browser contexts for one test; console errors fail the test."""

    def __init__(self, browser: Any, site: Site) -> None:
        self.browser, self.site = browser, site
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def new(self, viewport: dict[str, int] = DESKTOP, locale: str = "vi-VN") -> Any:
        context = self.browser.new_context(viewport=viewport, locale=locale)
        context.set_default_timeout(20_000)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda err: self.errors.append(f"{page.url}: {err}"))

        def console(msg: Any) -> None:
            if msg.type == "error":
                self.errors.append(f"{page.url}: {msg.text}")

        page.on("console", console)
        return page

    def close(self) -> None:
        for context in self.contexts:
            with contextlib.suppress(Exception):
                context.close()


@pytest.fixture
def pages(browser: Any, site: Site) -> Iterator[Pages]:
    opened = Pages(browser, site)
    yield opened
    opened.close()
    assert opened.errors == []


def switch_language(page: Any, code: str) -> None:
    """The header's language switch, and the page it brings back in ``code``."""
    page.click(f".lang-switch button[value={code}]")
    page.wait_for_selector(f".lang-switch button[value={code}].active")


def sign_up(page: Any, site: Site, display_name: str | None = None) -> str:
    """Sign up through the form; returns the username."""
    username = f"p{secrets.token_hex(4)}"
    page.goto(f"{site.url}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_display_name", display_name or username.title())
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(f"{site.url}/")
    return username


def outside(page: Any, selector: str) -> list[str]:
    """The displayed elements matching ``selector`` that are not wholly inside
    the viewport as the page stands (unscrolled), each as ``name at l,t-r,b``."""
    return list(
        page.evaluate(
            """(selector) => {
              const out = [];
              for (const node of document.querySelectorAll(selector)) {
                if (!node.offsetParent) continue; // not displayed
                const r = node.getBoundingClientRect();
                const inside = r.top >= 0 && r.left >= 0
                  && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
                if (!inside) {
                  out.push(`${node.dataset.action || node.dataset.card || node.tagName} at ` +
                    `${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
                }
              }
              return out;
            }""",
            selector,
        )
    )


def shot(page: Any, name: str) -> None:
    """A full-page screenshot in ``tests/e2e/artifacts/``, with ``E2E_SHOTS=1``
    only: encoding them was a fifth of Chromium's CPU in test_screen.py
    (``python -m bench.suite -- env E2E_SHOTS=1 pytest -n 0 tests/e2e/test_screen.py``:
    Chromium 63.6 CPU-s with them, 49.5 without)."""
    if os.environ.get("E2E_SHOTS") != "1":
        return
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def open_play_now(page: Any, site: Site, game: str) -> None:
    page.goto(f"{site.url}/tables/?game={game}")
    page.click(f"[data-play-now={game}]")
    page.wait_for_url(f"{site.url}/tables/*/")
    # (seated: on a phone my own seat is hidden while the hand plays, my bar shows)
    page.wait_for_selector("[data-table-app] .seat.you", state="attached")


def open_bot_table(page: Any, site: Site, game: str, *, owner: str | None = None) -> None:
    """A four-seat table of ``game`` that fills its empty seats with bots
    (``owner``: a username, else the house's), where the page sits down by
    its own Sit button: seated, not ready, the Ready button shown. For the
    tests of the Ready flow; "play now" readies and deals in its one tap
    (``open_play_now``)."""
    from accounts.models import User
    from games import services

    pairs = (item.split("=") for item in E2E_TABLE_DEFAULTS.split(","))
    numbers: dict[str, Any] = {name: int(value) for name, value in pairs}

    def create() -> int:
        user = None if owner is None else User.objects.get(username=owner)
        return services.table_create(
            owner=user, game=game, stake=10, seat_count=4, fill_with_bots=True, **numbers
        ).pk

    table_id = in_a_thread(create)
    page.goto(f"{site.url}/tables/{table_id}/")
    page.click("[data-action=sit]")
    page.wait_for_selector("[data-table-app] .seat.you")


def table_state(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("window.vipTable.state"))


def reopen(page: Any, wait_ms: int = 1500) -> Any:
    """The same table opened again in a new page of the same player, after
    ``wait_ms`` (time for anything it would show on its own)."""
    again = page.context.new_page()
    again.goto(page.url)
    again.wait_for_selector("[data-table-app] .seat.you")
    again.wait_for_timeout(wait_ms)
    return again


# My seat's row in the table's state (``state.seat`` is its position).
MY_SEAT = """window.vipTable.state.table.seats.find(
    (s) => s.position === window.vipTable.state.seat)"""


def leave_now(page: Any) -> None:
    """Leave now: in the middle of my hand the page asks first when the server
    says it costs anything (a Poker hand with nothing bet yet does not), and
    the seat frees once the hand is settled; between hands at once.

    A hand may be dealt (auto-ready) at the moment "leave" is tapped between
    hands: the server then takes it as "leave after this hand", and the page
    shows "leave now" beside it, which is tapped next. A hand that has ended
    but is not settled yet (its settlement is the Celery worker's, late on a
    busy machine) is taken the same way, with no "leave now" to tap: the
    seat frees once it is settled. So does a "leave now" that costs nothing
    (``leaving``: the hand goes on without me)."""
    for _ in range(3):
        # (whichever button the page shows at this moment)
        page.evaluate(
            """() => (document.querySelector("[data-action=leave-now]")
              || document.querySelector("[data-action=leave]")).click()"""
        )
        page.wait_for_function(
            f"""() => !document.querySelector('[data-confirm]').hidden
              || window.vipTable.state.seat === null
              || ({MY_SEAT})?.leave_after_hand || ({MY_SEAT})?.leaving"""
        )
        if page.locator("[data-confirm]:not([hidden])").count():
            page.click("[data-confirm-yes]")
            break
        if page.evaluate("window.vipTable.state.seat === null"):
            break
        if not page.locator("[data-action=leave-now]").count():
            break  # (left the hand, or it has ended: its settlement frees the seat)
    page.wait_for_function("() => window.vipTable.state.seat === null", timeout=60_000)


def next_hand_if_dealt_finished(page: Any) -> None:
    """A tới trắng ends a hand at the deal: auto-ready (on at a table with bots)
    deals the next one."""
    if table_state(page)["hand"]["finished"]:
        page.wait_for_function("() => !window.vipTable.state.hand.finished", timeout=30_000)


def serve_static_js(route: Any) -> None:
    path = route.request.url.removeprefix(BLANK_ORIGIN)
    if path.startswith("/static/js/") and (ROOT / path.lstrip("/")).is_file():
        body = (ROOT / path.lstrip("/")).read_text(encoding="utf-8")
        route.fulfill(status=200, content_type="text/javascript", body=body)
    elif path == "/":
        route.fulfill(
            status=200, content_type="text/html", body="<!doctype html><title>blank</title>"
        )
    else:
        route.fulfill(status=404, body="")


@pytest.fixture
def node() -> tuple[NodePage, list[str]]:
    """``blank`` without a browser, for the modules that are pure code: the
    same functions evaluated under Node.js (tests/jsnode.py), and the script
    errors they raise."""
    page = NodePage()
    return page, page.errors


@pytest.fixture
def blank(browser: Any) -> Iterator[tuple[Any, list[str]]]:
    """An empty page that serves the repository's static/js/ (no server), and
    the script errors it logs."""
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    context.route(f"{BLANK_ORIGIN}/**", serve_static_js)
    page.goto(f"{BLANK_ORIGIN}/")
    yield page, errors
    context.close()
