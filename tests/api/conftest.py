import json
import re

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client

from ..services.conftest import money_checked
from .helpers import throttles_off

__all__ = ["api", "keep_connections", "money_checked", "no_throttles"]


@pytest.fixture(autouse=True)
def no_throttles(settings):
    """Throttles are about their own test (test_throttles.py): off elsewhere."""
    throttles_off(settings)


@pytest.fixture
def api():
    """``api(user)``: an API client with the user's token (``api()``: anonymous)."""
    from .helpers import client_for

    return client_for


@pytest.fixture
def keep_connections():
    """Requests go through Django's WSGI handler: keep the connection open
    between requests (as Django's test client does) so the test's transaction lasts."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


_OPERATIONS: list[tuple[re.Pattern[str], str, dict[int, list[str]]]] = []
UNDOCUMENTED_STATUSES = {405, 406, 415, 500}  # any operation's (docs/api.md "Errors")


def documented_operations() -> list[tuple[re.Pattern[str], str, dict[int, list[str]]]]:
    """(path pattern, method, status → codes) of every operation of the
    schema, built once per test process (in English, as it is served)."""
    if not _OPERATIONS:
        from django.utils import translation
        from drf_spectacular.generators import SchemaGenerator

        from kernel.api.schema import error_codes
        from kernel.api.schema_view import plain

        with translation.override("en"):
            schema = plain(SchemaGenerator().get_schema(request=None, public=True))
        for path, operations in schema["paths"].items():
            pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[0-9]+", path) + "$")
            for method, operation in operations.items():
                codes = {
                    int(status): error_codes(answer["content"]["application/json"]["schema"])
                    for status, answer in operation["responses"].items()
                    if int(status) >= 400
                }
                _OPERATIONS.append((pattern, method, codes))
    return _OPERATIONS


@pytest.fixture(autouse=True)
def documented_errors(monkeypatch):
    """Every error answer an API test gets (through Django's test client) has a
    status its operation documents and a code that status's enum lists: a
    refusal a view can give is in the schema (issue 30: generated clients
    parse ``code`` as an enum)."""
    seen: list[tuple[str, str, int, str]] = []
    original = Client.request

    def request(self, **environ):
        response = original(self, **environ)
        path = environ.get("PATH_INFO", "")
        kind = response.get("Content-Type", "")
        if path.startswith("/api/v1/") and response.status_code >= 400 and "json" in kind:
            code = json.loads(response.content).get("code")
            seen.append((environ["REQUEST_METHOD"].lower(), path, response.status_code, code))
        return response

    monkeypatch.setattr(Client, "request", request)
    yield
    assert undocumented(seen) == [], "error answers the schema does not list"


def undocumented(seen: list[tuple[str, str, int, str]]) -> list[tuple[str, str, int, str]]:
    """The (method, path, status, code) of error answers whose operation does not
    list that status, or lists it without that code."""
    wrong = []
    for method, path, status, code in seen:
        found = [c for p, m, c in documented_operations() if m == method and p.match(path)]
        if not found or status in UNDOCUMENTED_STATUSES:
            continue  # no such operation (a 404 or 405 of any path), or any operation's
        if code not in found[0].get(status, []):
            wrong.append((method, path, status, code))
    return wrong
