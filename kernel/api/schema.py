"""Schema helpers: the error shape and the error responses of each operation,
each listing the codes a client can get as an enum; the hooks that keep the
document valid OpenAPI 3.0."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from drf_spectacular.utils import OpenApiResponse

ERROR_REF = "#/components/schemas/Error"
# The one error shape (``kernel.api.errors``); each error response narrows
# ``code`` to the codes that operation can give at that status (``errors``).
ERROR_COMPONENT: dict[str, Any] = {
    "type": "object",
    "description": (
        "Every refusal under `/api/`. Each error response of an operation lists the "
        "`code`s it can give at that status (an enum)."
    ),
    "properties": {
        "code": {"type": "string", "description": "Stable machine-readable code."},
        "message": {"type": "string", "description": "For people, in the request's language."},
        "details": {
            "type": "object",
            "additionalProperties": {},
            "description": (
                "More about the error: field errors for `invalid`, `wait` for "
                "`throttled`... (each code's own keys)."
            ),
        },
    },
    "required": ["code", "message", "details"],
}

GENERIC: dict[int, list[str]] = {
    400: ["invalid", "parse_error"],
    401: ["not_authenticated"],
    403: ["permission_denied", "csrf_failed"],
    404: ["not_found"],
    409: [],
    422: [],
    429: ["throttled"],
    503: ["busy"],  # lost to the player's other requests at the same rows (kernel.retry)
}
TITLES = {
    400: "Bad request",
    401: "Not logged in",
    403: "Refused",
    404: "Not found",
    409: "Conflict with the current state",
    422: "Not processed",
    429: "Too many requests: try again after `Retry-After` seconds",
    503: "Busy: try again after `Retry-After` seconds",
}
NAMES = {
    "bad": 400,
    "forbidden": 403,
    "missing": 404,
    "conflict": 409,
    "unprocessable": 422,
    "throttle": 429,
    "busy": 503,
}


def error_schema(codes: list[str]) -> dict[str, Any]:
    """The error shape with ``code`` one of ``codes``."""
    return {
        "allOf": [
            {"$ref": ERROR_REF},
            {"type": "object", "properties": {"code": {"type": "string", "enum": codes}}},
        ]
    }


def error_codes(schema: dict[str, Any]) -> list[str]:
    """The codes an error response's schema (``error_schema``) lists."""
    codes: list[str] = schema["allOf"][1]["properties"]["code"]["enum"]
    return codes


def errors(*statuses: int, **codes: list[str]) -> dict[int, OpenApiResponse]:
    """Error responses: ``errors(400, 401, conflict=["seat_taken"])``. Keyword
    arguments add codes to a status (``bad``=400, ``forbidden``=403,
    ``missing``=404, ``conflict``=409, ``unprocessable``=422, ``throttle``=429,
    ``busy``=503). Each response's ``code`` is an enum of its codes: the
    status's generic ones and those given."""
    extra: dict[int, list[str]] = {NAMES[name]: list(value) for name, value in codes.items()}
    responses = {}
    for status in sorted({*statuses, *extra}):
        listed = list(dict.fromkeys(GENERIC.get(status, []) + extra.get(status, [])))
        text = ", ".join(f"`{code}`" for code in listed)
        responses[status] = OpenApiResponse(
            error_schema(listed), description=f"{TITLES.get(status, 'Error')}: {text}."
        )
    return responses


def error_component(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook: the ``Error`` component the error responses refer to."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = deepcopy(
        ERROR_COMPONENT
    )
    return result


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
