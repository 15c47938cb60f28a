"""The API's pagination: page numbers (``Pages``, the default) and cursors
(``Cursor``: the lists that grow at their head, a player's hands and ledger)."""

from __future__ import annotations

from base64 import b64decode
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination, PageNumberPagination
from rest_framework.request import Request


class Pages(PageNumberPagination):
    """``?page=n`` (from 1) and ``?page_size=`` from 1 to 100; 20 by default.

    A ``page_size`` that is not an integer in that range is refused
    (``invalid``), as the schema says, not replaced by the default or the cap.
    """

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_page_size(self, request: Request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None:
            return self.page_size
        field = serializers.IntegerField(min_value=1, max_value=self.max_page_size)
        try:
            return int(field.run_validation(raw))
        except serializers.ValidationError as err:
            raise serializers.ValidationError({self.page_size_query_param: err.detail}) from None

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] |= {"minimum": 1, "maximum": self.max_page_size}
            elif parameter["name"] == self.page_query_param:
                parameter["schema"] |= {"minimum": 1}
        return parameters


# A page-number client sent to a list paginated by cursor.
BY_CURSOR = _("This list is paginated by cursor: follow the answer's `next` link.")
BAD_CURSOR = _("This cursor is not one the server gave: start again from the first page.")


class Cursor(CursorPagination):
    """Cursor pagination (DRF's): ``next`` and ``previous`` are links with an
    opaque ``cursor``; a page never shifts when rows are added at the head
    (a growing history), and no row is seen twice or skipped.
    ``page_size`` as for ``Pages``. ``ordering`` (each view's) starts with the
    field the cursor's position holds; ``position`` turns that position, read
    from a cursor, back into its type (``ValueError``: not one of ours)."""

    page_size = Pages.page_size
    page_size_query_param = Pages.page_size_query_param
    max_page_size = Pages.max_page_size
    ordering: Any = "-id"
    position: Callable[[str], Any] = int

    def get_page_size(self, request: Request) -> int:
        return Pages.get_page_size(self, request)  # type: ignore[arg-type]

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> Any:
        if "page" in request.query_params:
            raise serializers.ValidationError({"page": [str(BY_CURSOR)]})
        return super().paginate_queryset(queryset, request, view)

    def decode_cursor(self, request: Request) -> Any:
        encoded = request.query_params.get(self.cursor_query_param)
        try:
            if encoded is not None:  # (DRF's decoding skips what is not base64)
                b64decode(encoded.encode("ascii"), validate=True)
                if not encoded:
                    raise ValueError("blank")
            cursor = super().decode_cursor(request)
            if cursor is not None and cursor.position is not None:
                self.position(str(cursor.position))
        except (NotFound, ValueError, TypeError):
            raise serializers.ValidationError(
                {self.cursor_query_param: [str(BAD_CURSOR)]}
            ) from None
        return cursor

    def _get_position_from_instance(self, instance: Any, ordering: Any) -> str:
        value = instance
        for name in ordering[0].lstrip("-").split("__"):  # a related field too
            value = getattr(value, name)
        return value.isoformat() if isinstance(value, datetime) else str(value)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        link = {"type": "string", "nullable": True, "format": "uri"}
        return {
            "type": "object",
            "required": ["next", "previous", "results"],
            "properties": {
                "next": {**link, "description": "The next page (older rows); null on the last."},
                "previous": {**link, "description": "The page before; null on the first."},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] |= {"minimum": 1, "maximum": self.max_page_size}
            elif parameter["name"] == self.cursor_query_param:
                parameter["schema"] |= {"minLength": 1}
                parameter["description"] = (
                    "Where the page starts: the `cursor` of a `next` or `previous` link "
                    "(opaque). Without it, the first page."
                )
        return parameters
