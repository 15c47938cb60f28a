"""Optional error reporting with sentry-sdk (``SENTRY_DSN``).

Never sent: personal data (``send_default_pii=False``), request bodies (log-in
forms hold passwords, socket and API bodies hold seeds), local variables of
stack frames (a service's locals hold decks and server seeds), and any value
under a key that names a secret or a card (``SCRUBBED_KEYS``, recursively).
"""

from __future__ import annotations

import re
from typing import Any

# Besides sentry-sdk's own lists (passwords, tokens, cookies, sessions...).
SCRUBBED_KEYS = [
    "seed",
    "server_seed",
    "next_server_seed",
    "client_seed",
    "client_seeds",
    "deck",
    "cards",
    "hand",
    "hole",
    "board",
    "state",
    "view",
    "password1",
    "password2",
    "new_password1",
    "new_password2",
    "old_password",
    "invite",
    "invite_code",
]
# A 64-hex server seed or any long hex string in a message or breadcrumb.
HEX_SECRET = re.compile(r"\b[0-9a-fA-F]{32,}\b")
FILTERED = "[Filtered]"


def _scrub_text(value: Any) -> Any:
    return HEX_SECRET.sub(FILTERED, value) if isinstance(value, str) else value


def _scrub_keys(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {
            k: FILTERED if str(k).lower() in keys else _scrub_keys(v, keys)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_scrub_keys(v, keys) for v in value]
    return _scrub_text(value)


def scrub_messages(event: dict[str, Any], hint: dict[str, Any] | None = None) -> dict[str, Any]:
    """``before_send``: long hex strings (seeds) out of messages, exception
    values and breadcrumbs; secret keys out of contexts, extra data and tags
    (the EventScrubber does the request, frames and breadcrumbs); of the user,
    the id only."""
    from sentry_sdk.scrubber import DEFAULT_DENYLIST, DEFAULT_PII_DENYLIST

    keys = frozenset(k.lower() for k in (*DEFAULT_DENYLIST, *DEFAULT_PII_DENYLIST, *SCRUBBED_KEYS))
    user = event.get("user")
    if isinstance(user, dict):  # the id only: no name, e-mail or address
        event["user"] = {"id": user["id"]} if "id" in user else {}
    for part in ("contexts", "extra", "tags"):
        if part in event:
            event[part] = _scrub_keys(event[part], keys)
    logentry = event.get("logentry") or {}
    for key in ("message", "formatted"):
        if key in logentry:
            logentry[key] = _scrub_text(logentry[key])
    if "params" in logentry:
        logentry["params"] = [_scrub_text(p) for p in logentry["params"] or []]
    if "message" in event:
        event["message"] = _scrub_text(event["message"])
    for exc in (event.get("exception") or {}).get("values") or []:
        exc["value"] = _scrub_text(exc.get("value"))
    for crumb in (event.get("breadcrumbs") or {}).get("values") or []:
        crumb["message"] = _scrub_text(crumb.get("message"))
    return event


def options(
    dsn: str, *, environment: str, release: str, traces_sample_rate: float
) -> dict[str, Any]:
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration
    from sentry_sdk.scrubber import DEFAULT_DENYLIST, DEFAULT_PII_DENYLIST, EventScrubber

    denylist = [*DEFAULT_DENYLIST, *DEFAULT_PII_DENYLIST, *SCRUBBED_KEYS]

    return {
        "dsn": dsn,
        "environment": environment or None,
        "release": release or None,
        "send_default_pii": False,
        "include_local_variables": False,
        "max_request_body_size": "never",
        "event_scrubber": EventScrubber(denylist=denylist, recursive=True),
        "before_send": scrub_messages,
        "before_breadcrumb": lambda crumb, hint: {
            **crumb,
            "message": _scrub_text(crumb.get("message")),
        },
        "traces_sample_rate": traces_sample_rate,
        "integrations": [DjangoIntegration(), CeleryIntegration()],
    }


def init(
    dsn: str, *, environment: str = "", release: str = "", traces_sample_rate: float = 0.0
) -> None:
    """Start sentry-sdk when a DSN is set (called from the settings)."""
    if not dsn:
        return
    import sentry_sdk

    sentry_sdk.init(
        **options(
            dsn, environment=environment, release=release, traces_sample_rate=traces_sample_rate
        )
    )
