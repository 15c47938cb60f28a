"""``/api/schema/``: the OpenAPI document as code generators fetch it.

* The same document whatever the request's language (``Accept-Language``,
  the language cookie, ``?lang=``): it is generated in English, so the names
  a generator derives from titles and enums never change with the caller.
* Every format answers: YAML by default (``application/vnd.oai.openapi``,
  ``application/yaml``, ``?format=yaml``), JSON when asked
  (``application/vnd.oai.openapi+json``, ``application/json``,
  ``?format=json``). The YAML is written from the JSON form of the document,
  so any value the JSON encoder can write (a lazy translation, an ``Enum``
  member, a date) is plain data by the time YAML sees it.
* No authentication: the document is public and the same for everyone, and a
  stale token sent by habit must not stop a generator.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.utils import translation
from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

SCHEMA_LANGUAGE = "en"


def plain(data: Any) -> Any:
    """The document as JSON would write it: dicts, lists, strings, numbers."""
    return json.loads(JSONRenderer().render(data))


class YamlRenderer(OpenApiYamlRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        rendered: bytes = super().render(plain(data), accepted_media_type, renderer_context)
        return rendered


class YamlRenderer2(OpenApiYamlRenderer2, YamlRenderer):
    pass


class SchemaView(SpectacularAPIView):
    renderer_classes = [YamlRenderer, YamlRenderer2, OpenApiJsonRenderer, OpenApiJsonRenderer2]
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(exclude=True)
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        with translation.override(SCHEMA_LANGUAGE):
            return self._get_schema_response(request)
