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
