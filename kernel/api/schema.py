"""Schema helpers: the error shape as a serializer and the error responses of
each operation, listing the codes a client can get."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer[dict[str, object]]):
    code = serializers.CharField(help_text="Stable machine-readable code.")
    message = serializers.CharField(help_text="For people, in the request's language.")
    details = serializers.DictField(
        child=serializers.JSONField(),
        help_text="More about the error: field errors for `invalid`, `wait` for `throttled`...",
    )


GENERIC: dict[int, list[str]] = {
    400: ["invalid", "parse_error"],
    401: ["not_authenticated"],
    403: ["permission_denied", "csrf_failed"],
    404: ["not_found"],
    409: [],
    429: ["throttled"],
    503: [],
}
TITLES = {
    400: "Bad request",
    401: "Not logged in",
    403: "Refused",
    404: "Not found",
    409: "Conflict with the current state",
    429: "Too many requests",
    503: "Busy: try again after `Retry-After` seconds",
}


def errors(*statuses: int, **codes: list[str]) -> dict[int, OpenApiResponse]:
    """Error responses: ``errors(400, 401, conflict=["seat_taken"])``. Keyword
    arguments add codes to a status (``bad``=400, ``forbidden``=403,
    ``missing``=404, ``conflict``=409, ``throttle``=429, ``busy``=503)."""
    names = {
        "bad": 400,
        "forbidden": 403,
        "missing": 404,
        "conflict": 409,
        "throttle": 429,
        "busy": 503,
    }
    extra: dict[int, list[str]] = {names[name]: list(value) for name, value in codes.items()}
    responses = {}
    for status in sorted({*statuses, *extra}):
        listed = GENERIC.get(status, []) + extra.get(status, [])
        text = ", ".join(f"`{code}`" for code in listed)
        responses[status] = OpenApiResponse(
            ErrorSerializer, description=f"{TITLES.get(status, 'Error')}: {text}."
        )
    return responses


def _drop_empty_required(node: object) -> None:
    if isinstance(node, dict):
        if node.get("required") == [] and node.get("type", "object") == "object":
            del node["required"]
        for key, value in node.items():
            if key not in ("example", "examples"):  # (data, not schemas)
                _drop_empty_required(value)
    elif isinstance(node, list):
        for value in node:
            _drop_empty_required(value)


def openapi_conformance(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook, run last: what OpenAPI 3.0 forbids and the other
    hooks may write. An object with no required property has no ``required``
    (OpenAPI 3.0's ``required`` has at least one name)."""
    _drop_empty_required(result)
    return result
