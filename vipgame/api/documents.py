"""The documents the API's own documentation points to, served beside it.

``/api/<name>.md`` serves ``docs/<name>.md`` for the names of ``DOCUMENTS``
(as text/markdown), so that what ``/api/docs/`` and ``/api/schema/`` cite can
be read by whoever reads them, and the documents' links to each other
(``protocol.md`` → ``api.md``) resolve there too. The schema hook
``link_documents`` turns each ``docs/<name>.md`` the schema's descriptions
mention into a link to it.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from kernel.api.errors import json_error
from kernel.errors import NotFound

# What the schema's descriptions cite: the API itself, the socket protocol,
# table settings, the fair deal, and the security rules players meet (names,
# client addresses, limits).
DOCUMENTS = ("api", "protocol", "tables", "fairness", "security", "rules")
URL = "/api/{name}.md"
MENTION = re.compile(r"(\[[^\]]*\]\([^)]*\))|docs/([a-z-]+)\.md")


def document(request: HttpRequest, name: str) -> HttpResponse:
    """``docs/<name>.md`` as text."""
    if name not in DOCUMENTS:
        return json_error(request, NotFound())
    text = (settings.BASE_DIR / "docs" / f"{name}.md").read_text(encoding="utf-8")
    return HttpResponse(text, content_type="text/markdown; charset=utf-8")


def _linked(text: str) -> str:
    def link(match: re.Match[str]) -> str:
        name = match.group(2)
        if match.group(1) or name not in DOCUMENTS:
            return match.group(0)  # a link already, or a document not served
        return f"[docs/{name}.md]({URL.format(name=name)})"

    return MENTION.sub(link, text)


def _walk(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                node[key] = _linked(value)
            elif key not in ("example", "examples"):
                _walk(value)
    elif isinstance(node, list):
        for value in node:
            _walk(value)


def link_documents(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook: ``docs/<name>.md`` in a description is a link to
    the served document."""
    _walk(result)
    return result
