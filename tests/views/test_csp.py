"""Issue 13 item 10: a strict Content-Security-Policy on every page, and pages
that need nothing it forbids (no inline script, handler or style)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import services

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I)
HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)
STYLE_ATTRIBUTE = re.compile(r"<[^>]+\sstyle\s*=", re.I)
STYLE_ELEMENT = re.compile(r"<style[\s>]", re.I)


def directives(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return {
        part.split()[0]: " ".join(part.split()[1:]) for part in header.split(";") if part.strip()
    }


def test_every_page_carries_a_strict_policy(make_user):
    response = Client().get("/")
    policy = directives(response)

    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["base-uri"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert "unsafe-eval" not in response["Content-Security-Policy"]


def test_the_site_pages_have_no_inline_script_handler_or_style(make_user):
    lan = make_user(username="lan")
    private = services.table_create(owner=lan, game="holdem", stake=2, is_private=True)
    public = services.table_create(owner=lan, game="tienlen", stake=1)
    visitor, player = Client(), Client()
    player.force_login(lan)
    pages = [
        (visitor, "/"),
        (visitor, "/accounts/login/"),
        (visitor, "/accounts/signup/"),
        (visitor, f"/tables/{public.pk}/"),
        (player, "/tables/"),
        (player, f"/tables/{private.pk}/"),  # with its invite link
        (player, "/wallet/"),
        (player, "/tables/history/"),
        (player, "/accounts/password/"),
    ]

    for client, path in pages:
        response = client.get(path)
        html = response.content.decode()
        assert response.status_code == 200, path
        assert "Content-Security-Policy" in response, path
        assert not INLINE_SCRIPT.search(html), (path, INLINE_SCRIPT.search(html))
        assert not HANDLER.search(html), (path, HANDLER.search(html))
        assert not STYLE_ATTRIBUTE.search(html), (path, STYLE_ATTRIBUTE.search(html))
        assert not STYLE_ELEMENT.search(html), path
    table_page = player.get(f"/tables/{private.pk}/").content.decode()
    assert "data-invite-link" in table_page
    assert "js/invite.js" in table_page


def test_the_api_docs_load_their_script_from_a_file(make_user):
    staff = make_user(is_staff=True)
    client = Client()
    client.force_login(staff)

    page = client.get("/api/docs/")
    html = page.content.decode()
    script_src = re.findall(r'<script src="([^"]+)"', html)

    assert page.status_code == 200
    assert not INLINE_SCRIPT.search(html)
    init = next(src for src in script_src if "script" in src and "/api/docs/" in src)
    script = client.get(init.replace("&amp;", "&"))
    assert script.status_code == 200
    assert "SwaggerUIBundle" in script.content.decode()


def test_the_admin_pages_have_no_inline_script_or_handler(make_user):
    staff, lan = make_user(is_staff=True), make_user()
    table = services.table_create(owner=lan, game="tienlen", stake=1)
    client = Client()
    client.force_login(staff)

    for path in (
        "/admin/",
        "/admin/accounts/user/",
        f"/admin/accounts/user/{lan.pk}/change/",
        f"/admin/accounts/user/{lan.pk}/password/",
        "/admin/games/table/",
        f"/admin/games/table/{table.pk}/change/",
        "/admin/moderation/integrityreport/",
        "/admin/login/",
    ):
        response = client.get(path)
        html = response.content.decode()
        assert response.status_code in (200, 302), path
        assert "script-src 'self'" in response["Content-Security-Policy"], path
        assert not INLINE_SCRIPT.search(html), (path, INLINE_SCRIPT.search(html))
        assert not HANDLER.search(html), (path, HANDLER.search(html))
