"""Play now, tap to first card: what a player waits between the tap on "Chơi
ngay" in the lobby and their first card on the felt (issue 32, item 1: p50
at most 1 s on a quiet machine).

It starts the stack as ``bench.tables`` does (two Daphne processes, Celery,
PostgreSQL, Redis, ``DEBUG=0``, the site's own table clocks and bot think
times: ``TABLE_DEFAULTS`` unset), signs a player in with Chromium (as the
browser tests drive it: ``CHROMIUM_PATH``), and for each game taps Play now
``--runs`` times. Each run is timed from the click to the moment the page
holds a dealt hand and draws one of the player's cards, and split with the
browser's own navigation timing: the tap's POST and its redirect (the
server seats, readies and deals), the table page's HTML, its scripts
(DOMContentLoaded), then the socket's first state to the first card. After
each run the table is closed (chips back), so every run opens a table as a
new player's first tap does. Prints p50/p95 per game and writes JSON.

    python -m bench.playnow --runs 20
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.stack import Stack, percentile, setup_django, write_results

PASSWORD = "Bai-Tien-Len-42"
FIRST_CARD_TIMEOUT_MS = 30_000

# The page holds a dealt hand and draws one of my cards: the time since the
# navigation began (the tap's POST, the first of its redirect chain).
DEALT = """() => { const s = window.vipTable && window.vipTable.state;
  const card = s && s.hand && document.querySelector("[data-mine] .card");
  return card ? performance.now() : false; }"""

TIMING = """() => { const n = performance.getEntriesByType("navigation")[0];
  return {post_and_redirect: n.redirectEnd || n.fetchStart, html: n.responseEnd,
          scripts: n.domContentLoadedEventEnd}; }"""


def in_a_thread(work: Any) -> Any:
    """ORM work away from Playwright's event loop (as tests/e2e does)."""
    from django.db import connection

    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return out.get("value")


def close_tables() -> None:
    from games import services
    from games.models import Table

    for pk in Table.objects.exclude(status=Table.Status.CLOSED).values_list("pk", flat=True):
        services.table_close(table_id=pk, by=None, reason="bench run over")


def one_run(page: Any, url: str, game: str) -> dict[str, float]:
    page.goto(f"{url}/tables/?game={game}")
    page.wait_for_selector(f"[data-play-now={game}]")
    started = time.monotonic()
    page.click(f"[data-play-now={game}]")
    try:
        handle = page.wait_for_function(DEALT, timeout=FIRST_CARD_TIMEOUT_MS)
    except Exception as exc:
        raise RuntimeError(f"{game}: no card within the time-out at {page.url}") from exc
    wall = time.monotonic() - started
    first_card = float(handle.json_value())
    parts = page.evaluate(TIMING)
    return {
        "tap_to_first_card_s": round(wall, 3),
        "post_and_redirect_s": round(parts["post_and_redirect"] / 1000, 3),
        "html_s": round(parts["html"] / 1000, 3),
        "scripts_s": round(parts["scripts"] / 1000, 3),
        "first_card_in_page_s": round(first_card / 1000, 3),
    }


def summary(runs: list[dict[str, float]]) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": len(runs)}
    for key in runs[0] if runs else ():
        values = [r[key] for r in runs]
        out[key] = {"p50": percentile(values, 50), "p95": percentile(values, 95)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="taps per game")
    parser.add_argument("--games", default="", help="comma-separated (default: every game)")
    args = parser.parse_args()
    os.environ.pop("TABLE_DEFAULTS", None)  # the site's own clocks and think times

    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(Path(tmp))
        # The browser's pages and sockets come from the first Daphne's origin.
        stack.extra_env = {
            "ALLOWED_ORIGINS": f"http://127.0.0.1:{stack.ports[0]}",
            "AXES_ENABLED": "0",
            "LOGIN_RATE": "none",
        }
        with stack:
            run(stack, args)


def run(stack: Stack, args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    setup_django()
    from games.plugins import PLUGINS
    from wallet.services import player_signup

    games = [g for g in args.games.split(",") if g] or list(PLUGINS)
    username = "bench-playnow"
    player_signup(username=username, display_name="Bench Player", password=PASSWORD)
    url = f"http://127.0.0.1:{stack.ports[0]}"
    results: dict[str, Any] = {"games": {}, "runs_per_game": args.runs}
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"),
            headless=True,
        )
        page = browser.new_page()
        page.goto(f"{url}/accounts/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{url}/")
        for game in games:
            runs = []
            for _ in range(args.runs):
                runs.append(one_run(page, url, game))
                in_a_thread(close_tables)
            results["games"][game] = {"summary": summary(runs), "each": runs}
            line = results["games"][game]["summary"]
            p50 = {key: value["p50"] for key, value in line.items() if key != "runs"}
            print(
                f"{game:8} tap -> first card p50 {p50['tap_to_first_card_s']:.2f} s"
                f"  p95 {line['tap_to_first_card_s']['p95']:.2f} s"
                f"  (p50 from the tap: POST+redirect {p50['post_and_redirect_s']:.2f} s,"
                f" HTML {p50['html_s']:.2f} s, scripts {p50['scripts_s']:.2f} s,"
                f" first card {p50['first_card_in_page_s']:.2f} s)"
            )
        browser.close()
    write_results(results, "playnow")


if __name__ == "__main__":
    main()
