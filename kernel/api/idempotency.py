"""``Idempotency-Key`` on the POSTs that create something (docs/api.md).

A client that sends a POST again after losing its answer (a dropped
connection, a time-out) sends the same ``Idempotency-Key`` header (any
visible ASCII, up to 255 characters: a random UUID is the usual choice):

* the same key with the same request (method, path, JSON body) answers the
  first answer again, same status and body, with ``Idempotent-Replayed:
  true``, and does nothing again;
* the same key with another request is refused with
  ``idempotency_key_reused`` (422) and does nothing;
* the same key while the first request is still being answered is refused
  with ``idempotency_key_in_use`` (409, ``Retry-After: 1``): send it again.

Keys are per user (per account; anonymous requests, a sign-up or a log-in,
share one space, where only the same body replays, and the body holds the
password). A key is kept ``IDEMPOTENCY_KEY_HOURS`` (24) after its first
answer. Only a success (2xx) is kept: a refusal changed nothing, so the same
request sent again is tried again.

What is kept (in Redis, under the cache's prefix) is never the key itself
but its HMAC, and the answer encrypted (AES-GCM) under a key derived from
the client's key and the server's secret: an answer that carries tokens
(a sign-up's, a log-in's) cannot be read from a copy of Redis.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from kernel import limits
from kernel.errors import ServiceError

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
KEY = re.compile(r"^[\x21-\x7e]{1,255}$")  # visible ASCII
PENDING_SECONDS = 60  # a request still being answered holds its key this long at most


class KeyReused(ServiceError):
    code = "idempotency_key_reused"
    template = _(
        "This Idempotency-Key was already used for another request: use a new key "
        "for a new request."
    )
    status = 422


class KeyInUse(ServiceError):
    code = "idempotency_key_in_use"
    template = _(
        "A request with this Idempotency-Key is still being answered: send it again in a moment."
    )
    status = 409

    def __init__(self) -> None:
        super().__init__(wait=1)  # (Retry-After)


BAD_KEY = _("Send 1 to 255 visible ASCII characters (a random UUID, say).")

PARAMETER = OpenApiParameter(
    HEADER,
    {"type": "string", "minLength": 1, "maxLength": 255, "pattern": r"^[!-~]+$"},
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "Makes the request safe to send again (docs/api.md, Idempotency keys): the "
        "same key with the same request answers the first answer again "
        "(`Idempotent-Replayed: true`) and does nothing; with another request, "
        "`idempotency_key_reused` (422). Kept 24 hours, per user."
    ),
)
RESPONSES = {
    "400": ("invalid", "Bad request"),  # a key that is not 1 to 255 visible ASCII characters
    "409": ("idempotency_key_in_use", "Conflict with the current state"),
    "422": ("idempotency_key_reused", "Not processed"),
}

View = TypeVar("View", bound=Callable[..., Response])


def _secret(purpose: str, *parts: str) -> bytes:
    message = "\n".join((purpose, *parts)).encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).digest()


def _canonical(data: Any) -> str:
    if hasattr(data, "lists"):  # a QueryDict (no JSON body)
        data = dict(data.lists())
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Slot:
    """The stored state of one (user, key)."""

    def __init__(self, request: Request, key: str) -> None:
        user = request.user
        scope = f"user:{user.pk}" if user is not None and user.is_authenticated else "anonymous"
        self.name = cache.make_key(
            f"idempotency:{limits.NAMESPACE}:{_secret('slot', scope, key).hex()}"
        )
        self.cipher = AESGCM(_secret("answer", scope, key))
        what = f"{request.method} {request.path}\n{_canonical(request.data)}"
        self.fingerprint = hashlib.sha256(what.encode()).hexdigest()

    def claim(self) -> dict[str, Any] | None:
        """Hold the key for this request (None), or what it already holds."""
        pending = {"fingerprint": self.fingerprint, "pending": True}
        for _attempt in range(2):  # (once more if it expired in between)
            if cache.add(self.name, pending, timeout=PENDING_SECONDS):
                return None
            held: dict[str, Any] | None = cache.get(self.name)
            if held is not None:
                return held
        return pending  # (still coming and going: in use)

    def keep(self, response: Response) -> None:
        body = JSONRenderer().render(response.data) if response.data is not None else b""
        nonce = os.urandom(12)
        sealed = nonce + self.cipher.encrypt(nonce, body, self.fingerprint.encode())
        kept = {"fingerprint": self.fingerprint, "status": response.status_code, "body": sealed}
        cache.set(self.name, kept, timeout=settings.IDEMPOTENCY_KEY_HOURS * 3600)

    def answer(self, held: dict[str, Any]) -> Response:
        sealed: bytes = held["body"]
        body = self.cipher.decrypt(sealed[:12], sealed[12:], self.fingerprint.encode())
        data = json.loads(body) if body else None
        return Response(data, status=held["status"], headers={REPLAYED: "true"})

    def release(self) -> None:
        cache.delete(self.name)


def idempotent(view: View) -> View:
    """Decorates an APIView's ``post``: the ``Idempotency-Key`` header, in the
    schema too (its 409 and 422 come with the ``idempotency_keys`` hook)."""

    @wraps(view)
    def post(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = request.headers.get(HEADER)
        if key is None:
            return view(self, request, *args, **kwargs)
        if not KEY.match(key):
            raise serializers.ValidationError({HEADER: [str(BAD_KEY)]})
        slot = _Slot(request, key)
        held = slot.claim()
        if held is not None:
            if held["fingerprint"] != slot.fingerprint:
                raise KeyReused()
            if held.get("pending"):
                raise KeyInUse()
            return slot.answer(held)
        try:
            response = view(self, request, *args, **kwargs)
        except BaseException:
            slot.release()
            raise
        if 200 <= response.status_code < 300:
            slot.keep(response)
        else:
            slot.release()
        return response

    return extend_schema(parameters=[PARAMETER])(post)  # type: ignore[return-value]


def idempotency_keys(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook (after the error responses are built): each
    operation that takes ``Idempotency-Key`` lists its two refusals."""
    from .schema import error_codes, error_schema

    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            names = {p.get("name") for p in operation.get("parameters", [])}
            if HEADER not in names:
                continue
            responses = operation["responses"]
            for status, (code, title) in RESPONSES.items():
                answer = responses.get(status)
                if answer is None:
                    responses[status] = {
                        "content": {"application/json": {"schema": error_schema([code])}},
                        "description": f"{title}: `{code}`.",
                    }
                    continue
                content = answer["content"]["application/json"]
                codes = error_codes(content["schema"])
                if code not in codes:  # (a new schema: the view's is shared, kept by its decorator)
                    content["schema"] = error_schema([*codes, code])
                    answer["description"] = answer["description"].rstrip(".") + f", `{code}`."
            operation["responses"] = dict(sorted(responses.items()))
    return result
