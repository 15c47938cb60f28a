"""Issue 13 item 2: no admin page, admin action, API answer or log line shows
a server seed before its hand has ended, nor a card nobody at the table has
seen yet, to anyone (superusers included).

The walk opens every admin page reachable from the index (every registered
model's changelist, and every link on every page, with their filters), the
change, history and delete pages of the live tables, their hands, seats and
events, the hand inspector and the tables' admin action, as a superuser; then
every API answer as staff. At that moment no hand has ended, so no page may
carry any card string (raw ``Qd`` or as rendered ``Q♦``) other than the ones
the table showed to everyone.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections import deque
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from django.contrib import admin
from django.urls import reverse

from games import services
from games.models import ChatReport, Hand, HandEvent, Seat, Table, TableSeed
from games.rules import fairness
from games.rules.cards import card_display, cards_str, parse_card
from games.services import chat_report

from ..api.helpers import client_for, throttles_off
from ..registry import GAMES
from ..services.driver import play_until_finished
from ..tables import payload_cards
from .helpers import current_hand, deal, move_once

pytestmark = pytest.mark.django_db

HREF = re.compile(r'(?:href|action)="([^"]+)"')
# Not page content: the form token, and the admin's icons (SVG path data).
NOISE = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"|<svg.*?</svg>', re.DOTALL)
MAX_PAGES = 1500
HAND_PAGE = re.compile(r"/admin/games/hand/(\d+)/")


@pytest.fixture
def api(settings):
    throttles_off(settings)
    return client_for


def secrets_now() -> tuple[set[str], set[str], dict[str, set[str]]]:
    """The seeds nobody may see yet (every table's next seed, every live hand's
    seed), the cards nobody at a table has seen yet (every live hand's deck,
    less what its public events showed), and each live hand's public cards."""
    seeds = set(TableSeed.objects.values_list("server_seed", flat=True))
    cards: set[str] = set()
    public: dict[str, set[str]] = {}
    for hand in Hand.objects.filter(ended_at__isnull=True):
        seeds.add(hand.server_seed)
        deck = cards_str(
            fairness.deal_deck(bytes.fromhex(hand.server_seed), hand.fair_id, hand.client_seeds)
        )
        public[str(hand.pk)] = payload_cards(
            [e.payload for e in HandEvent.objects.filter(hand=hand, visibility="all")]
        )
        cards |= set(deck) - public[str(hand.pk)]
    return seeds, cards, public


@functools.lru_cache(maxsize=64)
def shown_cards(cards: frozenset[str]) -> re.Pattern[str]:
    """Any of these cards, raw (``Qd``) or as rendered (``Q♦``), standing
    alone: one pattern, so that a page is read once, not twice per card."""
    shown = {form for card in cards for form in (card, card_display(parse_card(card)))}
    either = "|".join(re.escape(form) for form in sorted(shown, key=len, reverse=True))
    return re.compile(rf"(?<![\w\-\\*])(?:{either})(?![\w\-\\*])")


def leaks(text: str, seeds: set[str], cards: set[str]) -> list[str]:
    text = NOISE.sub("", text)
    found = [seed for seed in seeds if seed in text or seed.upper() in text]
    lower = text.lower()
    found += [seed for seed in seeds if seed in lower and seed not in found]
    if cards:
        first: dict[str, re.Match[str]] = {}
        for match in shown_cards(frozenset(cards)).finditer(text):
            first.setdefault(match.group(), match)
        for shown, match in first.items():
            found.append(f"{shown} in …{text[match.start() - 80 : match.end() + 40]}…")
    return found


def live_world(make_user: Any) -> list[Table]:
    """A live hand at a table of each game (one move made), and a bot at one;
    at each, a chat line that another player reported (the moderators' queue,
    the users' pages with their last hands and chat lines)."""
    live = []
    for game in GAMES:
        table, users, _ = deal(make_user, game)
        if game == "tienlen":
            move_once(table)
        line = services.chat_post(table_id=table.pk, user=users[0], text=f"{game}: nhanh lên")
        chat_report(user=users[1], message_id=line.pk, category="abuse")
        live.append(table)
    owner = Table.objects.get(pk=live[0].pk).owner
    assert owner is not None
    spare = services.table_create(owner=owner, game="tienlen", stake=5, seat_count=4)
    services.table_add_bot(table_id=spare.pk, user=owner)
    live.append(spare)
    return live


def admin_urls_of(tables: list[Table]) -> list[str]:
    """The pages of these tables, their hands, seats and events, of every
    registered model's changelist, and the index."""
    urls = [reverse("admin:index")]
    for model in admin.site._registry:
        opts = model._meta
        urls.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
    hands = Hand.objects.filter(table__in=tables)
    for table in tables:
        for view in ("change", "history", "delete"):
            urls.append(reverse(f"admin:games_table_{view}", args=[table.pk]))
        urls.append(reverse("admin:games_table_changelist") + f"?q={table.pk}&state=all")
        for seat in Seat.objects.filter(table=table):
            urls.append(f"/admin/games/seat/{seat.pk}/change/")
    for hand in hands:
        for view in ("change", "history", "delete"):
            urls.append(reverse(f"admin:games_hand_{view}", args=[hand.pk]))
        urls.append(reverse("admin:games_hand_inspect", args=[hand.pk]))
        urls.append(reverse("admin:games_hand_changelist") + f"?q={hand.table_id}")
        ids = ",".join(str(p["user_id"]) for p in hand.players)
        urls.append(reverse("admin:games_hand_changelist") + f"?together={ids}")
        for event in HandEvent.objects.filter(hand=hand):
            urls.append(f"/admin/games/handevent/{event.pk}/change/")
    return urls


def walk(client: Any, start: list[str]) -> dict[str, str]:
    """Every admin page reachable from ``start`` (links and form targets; the
    links with a query string, such as filters, from pages without one)."""
    pages: dict[str, str] = {}
    queue = deque(start)
    seen = set(start)
    while queue and len(pages) < MAX_PAGES:
        url = queue.popleft()
        response = client.get(url)
        body = response.content.decode(errors="replace")
        pages[url] = f"{response.status_code} {body}"
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        for link in HREF.findall(body):
            target = urljoin(url, link.replace("&amp;", "&"))
            parts = urlsplit(target)
            if parts.netloc or not parts.path.startswith("/admin/") or "logout" in parts.path:
                continue
            if parts.query and "?" in url:
                continue  # filters one level deep: their combinations add nothing new
            target = parts.path + (f"?{parts.query}" if parts.query else "")
            if target not in seen:
                seen.add(target)
                queue.append(target)
    assert len(pages) < MAX_PAGES, "the walk was cut short"
    return pages


def test_no_admin_page_or_action_shows_a_seed_or_card_of_a_hand_in_play(tables, make_user, client):
    superuser = make_user(is_staff=True)
    assert superuser.is_superuser
    live = live_world(make_user)
    seeds, cards, public = secrets_now()
    assert len(seeds) >= 2 * len(live) - 1
    assert len(cards) >= 40
    client.force_login(superuser)

    pages = walk(client, admin_urls_of(live))
    # The one admin action of tables: its confirmation page lists them.
    pages["force_close"] = client.post(
        reverse("admin:games_table_changelist"),
        {"action": "force_close", "_selected_action": [t.pk for t in live]},
    ).content.decode()

    print(f"{len(pages)} admin pages walked")  # shown with -s
    assert sum(1 for body in pages.values() if body.startswith("200")) > 40
    inspected = [u for u in pages if u.endswith("/inspect/")]
    assert len(inspected) == Hand.objects.filter(table__in=live).count()
    # The queue and each reported line's page; each player's page (its panel
    # lists their hands in play) and its ban and mute pages.
    for report in ChatReport.objects.all():
        assert pages[reverse("admin:games_chatreport_change", args=[report.pk])][:3] == "200"
    players = {p["user_id"] for h in Hand.objects.filter(table__in=live) for p in h.players}
    for user_id in players:
        page = pages[reverse("admin:accounts_user_change", args=[user_id])]
        assert 'id="panel-hands"' in page
        assert pages[reverse("admin:accounts_user_moderate", args=[user_id, "mute"])][:3] == "200"
    # Every hand is live (the deal helper chose seeds that deal no instant win):
    # no page may show a card its table has not seen.
    assert not Hand.objects.filter(ended_at__isnull=False).exists()

    def checked_cards(url: str) -> set[str]:
        """A card one table showed to everyone may be hidden at another: a
        hand's own pages may show its public cards, other pages none."""
        match = HAND_PAGE.search(url)
        if match:
            return cards - public.get(match.group(1), set())
        return cards - set().union(*public.values())

    found = {url: leaks(body, seeds, checked_cards(url)) for url, body in pages.items()}
    assert {url: what for url, what in found.items() if what} == {}
    assert {t.status for t in Table.objects.filter(pk__in=[t.pk for t in live])} != {"closed"}


def test_no_api_answer_to_staff_shows_a_seed_or_card_of_a_hand_in_play(
    tables, make_user, api, client
):
    staff = make_user(is_staff=True)
    live = live_world(make_user)
    seeds, cards, public = secrets_now()
    cards -= set().union(*public.values())  # (the table pages show them, rightly)
    staff_api = api(staff)
    client.force_login(staff)
    urls = ["/api/v1/tables", "/api/v1/hands", "/api/v1/me", "/api/v1/wallet"]
    urls += [f"/api/v1/leaderboard?game={g}&period=all" for g in GAMES]
    urls += ["/api/schema/?format=json"]
    for table in live:
        urls.append(f"/api/v1/tables/{table.pk}")
    for hand in Hand.objects.filter(table__in=live):
        urls += [f"/api/v1/hands/{hand.pk}{tail}" for tail in ("", "/replay", "/phh")]
    answers = {url: staff_api.get(url) for url in urls}
    pages = {f"/tables/{t.pk}/": client.get(f"/tables/{t.pk}/") for t in live}
    pages["/tables/history/"] = client.get("/tables/history/")

    assert all(r.status_code in (200, 409) for r in answers.values()), {
        u: r.status_code for u, r in answers.items()
    }
    assert all(r.status_code == 200 for r in pages.values())
    for url in urls:
        if "/hands/" in url:  # a hand still in play has no history yet
            assert answers[url].json()["code"] == "hand_not_finished"
    texts = {url: r.content.decode() for url, r in {**answers, **pages}.items()}
    # The schema's examples are dealt from a fixed deck of their own (games/api/schema.py),
    # the same whatever is in play: only the rest of the schema could show live data.
    texts["/api/schema/?format=json"] = json.dumps(
        without_examples(answers["/api/schema/?format=json"].json())
    )
    found = {url: leaks(text, seeds, cards) for url, text in texts.items()}
    assert {url: what for url, what in found.items() if what} == {}


def without_examples(node: Any) -> Any:
    if isinstance(node, list):
        return [without_examples(n) for n in node]
    if isinstance(node, dict):
        return {k: without_examples(v) for k, v in node.items() if k not in ("example", "examples")}
    return node


def test_after_the_hand_the_seed_and_cards_are_revealed_where_they_belong(
    tables, make_user, client, api
):
    staff = make_user(is_staff=True)
    table, users, _ = deal(make_user, "maubinh")
    hand = current_hand(table)
    assert hand is not None
    client.force_login(staff)
    inspector = reverse("admin:games_hand_inspect", args=[hand.pk])
    change = reverse("admin:games_hand_change", args=[hand.pk])
    assert hand.server_seed not in client.get(inspector).content.decode()
    assert hand.server_seed not in client.get(change).content.decode()

    hand = play_until_finished(tables, table)
    tables.drain()

    page = client.get(inspector).content.decode()
    assert hand.server_seed in page
    assert client.get(inspector).context["deal_matches_seed"] is True
    assert hand.server_seed in client.get(change).content.decode()
    replay = api(users[0]).get(f"/api/v1/hands/{hand.pk}/replay").json()
    assert replay["fairness"]["server_seed"] == hand.server_seed
    state = api(users[0]).get(f"/api/v1/tables/{table.pk}").json()
    assert state["hand"]["server_seed"] == hand.server_seed
    # ... and the next hand's seed is still nowhere.
    upcoming = TableSeed.objects.get(table=table).server_seed
    assert upcoming not in page
    assert upcoming not in str(state)


def test_the_next_seed_is_no_field_of_a_table(tables, make_user):
    """It lives in its own model, registered nowhere in the admin and out of
    every table serialisation (its ``str``/``repr`` name no seed either)."""
    table = services.table_create(owner=make_user(), game="tienlen", stake=1)
    secret = TableSeed.objects.get(table=table)
    assert "next_server_seed" not in {f.name for f in Table._meta.get_fields()}
    assert TableSeed not in admin.site._registry
    assert secret.server_seed not in str(secret) + repr(secret)
    assert secret.server_seed not in str(
        {f.attname: getattr(table, f.attname) for f in Table._meta.concrete_fields}
    )


def test_no_log_line_shows_a_seed(tables, make_user, caplog, settings):
    """Everything logged while tables are created, hands dealt, played, timed
    out and settled (at DEBUG, with DEBUG on) holds no server seed; nor do the
    tasks the services schedule."""
    settings.DEBUG = True
    caplog.set_level(logging.DEBUG)
    shown: set[str] = set()
    for game in GAMES:
        table, _users, _ = deal(make_user, game)
        shown |= set(TableSeed.objects.values_list("server_seed", flat=True))
        hand = play_until_finished(tables, table)
        tables.drain()
        shown.add(hand.server_seed)
        shown |= set(TableSeed.objects.values_list("server_seed", flat=True))
    scheduled = str(tables.scheduler)
    assert shown
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert [s for s in shown if s in logged or s in scheduled] == []
