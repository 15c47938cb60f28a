"""The OpenAPI document as a code generator reads it (issue 30, item 5): served
in every format, the same whatever the request's language, valid OpenAPI 3.0
(openapi-spec-validator on the served document), with no empty ``required``
and no open ``additionalProperties`` in the answers."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml
from openapi_spec_validator import OpenAPIV30SpecValidator

pytestmark = pytest.mark.django_db

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
SWAGGER_UI = "application/json,*/*"  # what Swagger UI's fetch of the schema sends


_reference: dict[str, Any] = {}


def reference(client: Any) -> dict[str, Any]:
    """The JSON document (fetched once per test process: it takes seconds)."""
    if not _reference:
        _reference.update(served(client, {"format": "json"}))
    return _reference


def served(client: Any, query: dict[str, str] | None = None, **headers: str) -> dict[str, Any]:
    response = client.get("/api/schema/", query or {}, **headers)
    assert response.status_code == 200, (query, headers, response.content[:300])
    kind = response["Content-Type"]
    text = response.content.decode()
    document: dict[str, Any] = json.loads(text) if "json" in kind else yaml.safe_load(text)
    return document


@pytest.mark.parametrize(
    ("query", "accept", "kind"),
    [
        ({}, None, "application/vnd.oai.openapi"),  # the default: YAML
        ({}, "*/*", "application/vnd.oai.openapi"),
        ({}, BROWSER, "application/vnd.oai.openapi"),  # the link on the Swagger page, clicked
        ({"format": "yaml"}, None, "application/vnd.oai.openapi"),
        ({}, "application/vnd.oai.openapi", "application/vnd.oai.openapi"),
        ({}, "application/yaml", "application/yaml"),
        ({"format": "json"}, None, "application/vnd.oai.openapi+json"),
        ({}, "application/vnd.oai.openapi+json", "application/vnd.oai.openapi+json"),
        ({}, "application/json", "application/json"),
        ({}, SWAGGER_UI, "application/json"),
    ],
)
def test_the_schema_is_served_in_every_format(client, query, accept, kind):
    headers = {"HTTP_ACCEPT": accept} if accept else {}

    response = client.get("/api/schema/", query, **headers)

    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].split(";")[0] == kind
    assert served(client, query, **headers) == reference(client)


def test_the_swagger_pages_link_to_the_schema_answers(client):
    page = client.get("/api/docs/")
    script = re.search(r'src="([^"]*script[^"]*)"', page.content.decode())
    assert script is not None
    code = client.get(script.group(1).replace("&amp;", "&")).content.decode()
    link = re.search(r'url: "([^"]+)"', code)
    assert link is not None

    for accept in (SWAGGER_UI, BROWSER, "*/*"):
        assert client.get(link.group(1), HTTP_ACCEPT=accept).status_code == 200
    assert served(client, HTTP_ACCEPT=SWAGGER_UI)["openapi"].startswith("3.0")


def test_the_schema_is_the_same_in_every_language(client):
    english = reference(client)

    vietnamese = served(client, {"format": "json"}, HTTP_ACCEPT_LANGUAGE="vi")
    default = served(client, {"format": "json"})
    client.cookies["django_language"] = "vi"
    cookie = served(client)
    asked = served(client, {"format": "json", "lang": "vi"})

    assert vietnamese == english
    assert default == english
    assert cookie == english
    assert asked == english
    names = english["components"]["schemas"]
    assert all(name.isascii() and name.isidentifier() for name in names), sorted(names)
    titles = [t for t in walk(english, "title") if isinstance(t, str)]
    assert titles
    assert all(title.isascii() for title in titles), titles


def walk(node: Any, key: str) -> list[Any]:
    """Every value of ``key`` anywhere in a JSON document."""
    found = []
    if isinstance(node, dict):
        for name, value in node.items():
            if name == key:
                found.append(value)
            found += walk(value, key)
    elif isinstance(node, list):
        for value in node:
            found += walk(value, key)
    return found


def test_the_served_schema_is_valid_openapi(client):
    """openapi-spec-validator (the OpenAPI 3.0 specification's own schema and
    rules) on the document served, as a generator fetches it."""
    schema = served(client)

    problems = [
        f"{'/'.join(map(str, error.path))}: {error.message[:200]}"
        for error in OpenAPIV30SpecValidator(schema).iter_errors()
    ]

    assert problems == []
    assert [] not in walk(schema, "required")


# -- error codes as enums ----------------------------------------------------------

# Refusals of the services that no REST operation gives: the socket's own, the
# staff pages', the ledger's internal checks, and base classes.
NOT_REST = {
    # base classes (each subclass has its own code)
    "error", "game_error", "moderation_error", "wallet_error", "tournament_error",
    # the table socket only (docs/protocol.md)
    "bad_message", "bad_chat", "bad_switch", "bad_leave", "chat_muted",
    "chat_rate_limited", "sync_rate_limited", "too_many_sockets", "account_banned",
    "unsupported_protocol",
    # the staff pages (moderation)
    "bad_adjust_key", "bad_mute_minutes", "reason_required", "adjustment_not_pending",
    "already_banned", "cannot_approve_own", "cannot_moderate_self", "linked_account",
    "not_banned", "not_muted", "report_not_open",
    # the ledger's own invariants, never a player's request
    "unbalanced_transaction", "hold_not_pending", "idempotency_conflict",
    "seat_occupied", "account_closed", "unknown_account", "invalid_amount",
    # tournaments made by the house or staff, and players out: the tables' call
    "bad_tournament", "not_playing",
    # a moderator's close of a running tournament's table (the admin's)
    "tournament_running",
    # answered by the API's handler for any operation (docs/api.md)
    "server_error",
}  # fmt: skip


def service_errors() -> set[tuple[int, str]]:
    """(status, code) of every ServiceError class of the project."""
    import importlib
    import pkgutil

    from kernel.errors import ServiceError

    for package in ("kernel", "accounts", "push", "wallet", "games", "moderation", "vipgame"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            # (vipgame.asgi is the server's entry point: it refuses to start
            # under the tests' DEBUG=0 and defines no error)
            skipped = (".rules", ".management", ".migrations", "__main__", "vipgame.asgi")
            if not any(part in info.name for part in skipped):
                importlib.import_module(info.name)

    def below(cls: type[ServiceError]) -> list[type[ServiceError]]:
        return [c for sub in cls.__subclasses__() for c in (sub, *below(sub))]

    return {(cls.status, cls.code) for cls in below(ServiceError)}


def documented(schema: dict[str, Any]) -> dict[tuple[str, str, str], list[str]]:
    """(method, path, status) → the codes its error response lists."""
    from kernel.api.schema import error_codes

    return {
        (method, path, status): error_codes(answer["content"]["application/json"]["schema"])
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        for status, answer in operation["responses"].items()
        if int(status) >= 400
    }


def test_each_error_response_lists_its_codes_as_an_enum(client):
    from games.errors import IllegalMove
    from kernel.api.errors import MESSAGES

    schema = reference(client)
    known = {code for _status, code in service_errors()} | set(MESSAGES) | set(IllegalMove.MESSAGES)

    listed = documented(schema)

    assert len(listed) > 100
    for (method, path, status), codes in listed.items():
        assert codes, (method, path, status)
        assert len(codes) == len(set(codes)), (method, path, status)
        assert set(codes) <= known, (method, path, status, set(codes) - known)
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["code", "message", "details"]


def test_every_refusal_of_the_services_is_in_an_enum_of_its_status(client):
    """Each ServiceError a REST view can raise is listed by at least one
    operation under its own status (``NOT_REST``: those no operation gives).
    Which operation gives which is checked on every error answer of the API
    tests (``tests/api/conftest.py``, ``documented_errors``)."""
    listed = {
        (int(status), code)
        for (_m, _p, status), codes in documented(reference(client)).items()
        for code in codes
    }

    missing = {(status, code) for status, code in service_errors() if code not in NOT_REST} - listed

    assert missing == set()


# -- authentication ------------------------------------------------------------------


def test_bearer_is_the_schemes_one_token_scheme(client, make_user):
    from accounts.sessions import token_issue

    schema = reference(client)
    schemes = schema["components"]["securitySchemes"]

    tokens = {name: s for name, s in schemes.items() if s["type"] != "apiKey"}
    assert tokens == {"tokenAuth": {**tokens["tokenAuth"], "type": "http", "scheme": "bearer"}}
    assert "`Authorization: Bearer <token>`" in tokens["tokenAuth"]["description"]
    assert "Authorization: Bearer <token>" in schema["info"]["description"]
    secured = [op for ops in schema["paths"].values() for op in ops.values() if "security" in op]
    assert secured
    assert all(next(iter(op["security"][0])) == "tokenAuth" for op in secured)
    key = token_issue(user=make_user())
    for scheme in ("Bearer", "Token", "bearer"):
        assert client.get("/api/v1/me", HTTP_AUTHORIZATION=f"{scheme} {key}").status_code == 200
    refused = client.get("/api/v1/me")
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"] == "Bearer"


# -- what the documentation links ------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_every_link_of_the_api_documentation_answers(client):
    """Each link of the served descriptions (the page /api/docs/ shows them)
    answers 200, and every ``docs/<name>.md`` they cite is such a link."""
    schema = reference(client)
    texts = [t for t in walk(schema, "description") if isinstance(t, str)]

    links = {target for text in texts for target in LINK.findall(text)}
    cited = {m for text in texts for m in re.findall(r"(?<!\[)docs/[a-z-]+\.md(?!\])", text)}

    assert "/api/protocol.md" in links
    assert cited == set()  # every citation is a link
    for target in sorted(links):
        assert target.startswith("/"), target  # served here, no other host
        response = client.get(target)
        assert response.status_code == 200, target
        assert response.content
    page = client.get("/api/docs/")
    assert page.status_code == 200


def test_the_documents_are_served_as_markdown_and_others_are_not(client):
    protocol = client.get("/api/protocol.md")
    elsewhere = client.get("/api/architecture.md")

    assert protocol["Content-Type"] == "text/markdown; charset=utf-8"
    assert protocol.content.decode().startswith("# ")
    assert elsewhere.status_code == 404
    assert elsewhere.json()["code"] == "not_found"


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
@pytest.mark.parametrize(
    "path", ["/api/v1/nowhere", "/api/v1/tables/abc", "/api/v1/tables/1/nothing", "/api/v9/me"]
)
def test_an_unknown_api_path_is_a_404_in_the_error_shape(client, method, path):
    response = getattr(client, method)(path)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "code": "not_found",
        "message": response.json()["message"],
        "details": {},
    }


def test_an_error_answer_the_schema_does_not_list_is_found():
    """The check every API test's error answers go through (conftest.py)."""
    from .conftest import undocumented

    answers = [
        ("post", "/api/v1/tables", 409, "too_many_tables"),  # listed
        ("post", "/api/v1/tables/7/sit", 409, "seat_taken"),  # listed
        ("post", "/api/v1/tables", 409, "seat_taken"),  # another operation's
        ("get", "/api/v1/wallet", 409, "bonus_already_claimed"),  # a status not listed
        ("delete", "/api/v1/wallet", 405, "method_not_allowed"),  # any operation's
        ("get", "/api/v1/nowhere", 404, "not_found"),  # no operation
    ]

    assert undocumented(answers) == [answers[2], answers[3]]


# -- closed answers ---------------------------------------------------------------------


def open_objects(schema: dict[str, Any], node: Any, skip: set[str], seen: set[str]) -> list[str]:
    """Where an answer's schema takes any key (``additionalProperties`` true or
    ``{}``, or an object with no properties), following references except to
    the components in ``skip``."""
    found: list[str] = []
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in skip and name not in seen:
                seen.add(name)
                found += [
                    f".{name}{where}"
                    for where in open_objects(
                        schema, schema["components"]["schemas"][name], skip, seen
                    )
                ]
            return found
        extra = node.get("additionalProperties")
        free = node.get("type") == "object" and not {
            "properties",
            "additionalProperties",
            "allOf",
            "oneOf",
        } & set(node)
        if extra is True or extra == {} or free:
            found.append("")
        for key, value in node.items():
            if key not in ("example", "examples"):
                found += [f".{key}{where}" for where in open_objects(schema, value, skip, seen)]
    elif isinstance(node, list):
        for value in node:
            found += open_objects(schema, value, skip, seen)
    return found


def test_no_rest_answer_takes_any_key_outside_the_game_payloads(client):
    """Every 2xx answer is closed: each object names its keys (or types its
    map's values). The games' own payloads (views, results, actions, events:
    ``games.api.schema.components``, typed from the rules packages) are the
    socket contract's and are left out here."""
    from games.api.schema import components

    schema = reference(client)
    games = set(components())

    found = [
        f"{method} {path} {status}: {where}"
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        for status, answer in operation["responses"].items()
        if status.startswith("2")
        for content in answer.get("content", {}).values()
        for where in open_objects(schema, content["schema"], games, set())
    ]

    # The rules API's ``numbers`` are a ruleset's fields, which each game's rules
    # package defines (docs/rules.md names them): a game's own data, like the
    # payloads above, not yet typed per game (a map of JSON values).
    ruleset = {f".{name}.properties.numbers" for name in ("RulesOut", "RulesTableOut")}
    assert [f for f in found if not any(f.endswith(r) for r in ruleset)] == []
    assert "TableStateOut" in schema["components"]["schemas"]  # (walked, not skipped)
    loose = {"components": {"schemas": {"Loose": {"type": "object"}}}}
    answer = {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/Loose"}}}
    assert open_objects(loose, answer, set(), set()) == [".properties.a.Loose"]
    assert open_objects(loose, answer, {"Loose"}, set()) == []


def test_the_yaml_is_written_from_the_documents_json_form():
    """A value only JSON's encoder knows how to write (an IntEnum of the rules, a
    lazy translation) does not break the YAML answer: DRF's YAML renderer alone
    fails on them (a 500 for every client asking YAML, the default)."""
    from django.utils.functional import lazy
    from drf_spectacular.renderers import OpenApiYamlRenderer

    from games.rules.hand5 import Category
    from kernel.api.schema_view import YamlRenderer

    document = {"enum": [Category.PAIR], "description": lazy(str, str)("A lazy text.")}

    with pytest.raises(yaml.representer.RepresenterError):
        OpenApiYamlRenderer().render(document)
    assert yaml.safe_load(YamlRenderer().render(document)) == {
        "enum": [int(Category.PAIR)],
        "description": "A lazy text.",
    }


GENERATE_TWICE = """
import json, django
django.setup()
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator
from kernel.api.schema_view import plain

def generate():
    with translation.override("en"):
        return plain(SchemaGenerator().get_schema(request=None, public=True))

print(json.dumps(generate() == generate()))
"""


def test_the_document_is_the_same_each_time_it_is_generated():
    """A hook that changed what a view's decorator keeps (shared between
    operations and requests) made the first document of a process differ
    from the next ones: generated twice in a fresh process."""
    import os
    import subprocess
    import sys

    from django.conf import settings

    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "vipgame.settings", "DEBUG": "1"}
    done = subprocess.run(
        [sys.executable, "-c", GENERATE_TWICE],
        cwd=settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "true"
