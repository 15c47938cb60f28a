"""One JSON error shape under ``/api/``: ``{"code", "message", "details"}``.

``code`` is stable (clients switch on it), ``message`` is in the request's
language (Vietnamese unless the client asks for English), ``details`` is an
object (field errors for ``invalid``, the wait for ``throttled``...).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import set_rollback

from kernel.errors import Busy, NotFound, PermissionDenied, ServiceError
from kernel.retry import timed_out

logger = logging.getLogger("vipgame.api")

MESSAGES: dict[str, str | Promise] = {
    "invalid": _("Some of the data sent is not valid."),
    "not_authenticated": _("Log in first: send your API token."),
    "permission_denied": PermissionDenied.template,
    "csrf_failed": _("The page's security token (CSRF) is missing or wrong: reload the page."),
    "not_found": NotFound.template,
    "method_not_allowed": _("This method is not allowed here."),
    "not_acceptable": _("This answer can only be sent as JSON."),
    "unsupported_media_type": _("Send the request body as JSON."),
    "parse_error": _("The request body could not be read: send valid JSON."),
    "throttled": _("Too many requests: try again in %(wait)s seconds."),
    "server_error": _("Something went wrong on our side. Try again later."),
}

CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.ValidationError, "invalid"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "not_authenticated"),
    (exceptions.PermissionDenied, "permission_denied"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.ParseError, "parse_error"),
    (exceptions.Throttled, "throttled"),
]


def _sendable(detail: Any) -> Any:
    """An error may quote the input (``"…" is not a valid choice.``, an
    unknown rule option): a lone surrogate there cannot be written as UTF-8,
    so it is replaced."""
    if isinstance(detail, dict):
        return {_sendable(key): _sendable(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_sendable(value) for value in detail]
    if isinstance(detail, str):
        return detail.encode("utf-8", "replace").decode("utf-8")
    return detail


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"code": code, "message": _sendable(message), "details": _sendable(details or {})}


def service_error_body(err: ServiceError) -> dict[str, Any]:
    body = err.as_dict()
    return error_body(body["code"], body["message"], body.get("details"))


def _field_errors(detail: Any) -> dict[str, Any]:
    return detail if isinstance(detail, dict) else {"non_field_errors": detail}


def _api_error(exc: exceptions.APIException) -> tuple[int, dict[str, Any], dict[str, str]]:
    code = next((c for cls, c in CODES if isinstance(exc, cls)), "error")
    headers: dict[str, str] = {}
    details: dict[str, Any] = {}
    message = str(MESSAGES.get(code, exc.detail))
    if code == "invalid":
        details = _field_errors(exc.detail)
    elif code == "permission_denied" and getattr(exc.detail, "code", None) == "csrf_failed":
        code, message = "csrf_failed", str(MESSAGES["csrf_failed"])
    elif code == "throttled":
        wait = max(1, round(getattr(exc, "wait", None) or 1))
        message = str(MESSAGES["throttled"]) % {"wait": wait}
        details = {"wait": wait}
        headers["Retry-After"] = str(wait)
    elif code == "not_authenticated" and getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = str(exc.auth_header)  # type: ignore[attr-defined]
    return exc.status_code, error_body(code, message, details), headers


def retry_after(err: ServiceError) -> dict[str, str]:
    """``Retry-After`` for a refusal that says how long to wait (``wait``, seconds)."""
    wait = err.params.get("wait")
    return {"Retry-After": str(wait)} if err.status in (409, 429, 503) and wait else {}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's ``EXCEPTION_HANDLER``: every refusal in the one shape, never a traceback."""
    set_rollback()
    if timed_out(exc):
        # A lock or statement bound ran out (DB_LOCK_TIMEOUT_MS,
        # DB_STATEMENT_TIMEOUT_MS): nothing was done; try again.
        exc = Busy()
    if isinstance(exc, ServiceError):
        # (busy: lost to the player's other requests; nothing was done)
        headers = retry_after(exc) or ({"Retry-After": "1"} if isinstance(exc, Busy) else None)
        return Response(service_error_body(exc), status=exc.status, headers=headers)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, exceptions.APIException):
        status, body, headers = _api_error(exc)
        return Response(body, status=status, headers=headers)
    request = context.get("request")
    logger.error(
        "API error on %s %s",
        getattr(request, "method", "?"),
        getattr(request, "path", "?"),
        exc_info=exc,
    )
    return Response(error_body("server_error", str(MESSAGES["server_error"])), status=500)


def json_error(request: HttpRequest | Request, err: ServiceError) -> JsonResponse:
    """The error shape outside DRF views (URL not found, lock-outs, server errors)."""
    return JsonResponse(
        service_error_body(err), status=err.status, json_dumps_params={"ensure_ascii": False}
    )
