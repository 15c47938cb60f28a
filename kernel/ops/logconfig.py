"""Log formats: JSON lines in production, plain readable lines in development.

``LOG_FORMAT=json`` (the default when ``DEBUG=0``): one JSON object a line with
``timestamp`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, and
``request_id``, ``user``, ``table``, ``hand`` where known (see ``context``),
plus ``exc_info`` for an exception. ``LOG_FORMAT=plain`` (the default when
``DEBUG=1``): ``2026-11-24T00:41:05.123Z INFO games.tasks [table=3 hand=9]: …``.

Imported by the settings: nothing here may import Django.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

from .context import FIELDS

FORMATS = ("json", "plain")


class JsonFormatter(_JsonFormatter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", True)
        kwargs.setdefault("json_ensure_ascii", False)
        super().__init__("{levelname}{name}{message}", *args, style="{", **kwargs)

    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        log_data.pop("context", None)  # the plain format's summary of the fields below
        for name in FIELDS:
            if log_data.get(name) is None:
                log_data.pop(name, None)
        stamp = log_data.get("timestamp")
        if stamp is not None and hasattr(stamp, "isoformat"):
            log_data["timestamp"] = stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return log_data


class PlainFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(context)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))  # UTC
        return f"{stamp}.{int(record.msecs):03d}Z"

    def format(self, record: logging.LogRecord) -> str:
        if not hasattr(record, "context"):
            record.context = ""
        return super().format(record)


FORMATTERS = {"json": "JsonFormatter", "plain": "PlainFormatter"}


def logging_config(kind: str, level: str) -> dict[str, Any]:
    """The ``LOGGING`` setting: one console handler on the root logger."""
    if kind not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {kind!r}")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "kernel.ops.context.ContextFilter"}},
        "formatters": {"main": {"()": f"kernel.ops.logconfig.{FORMATTERS[kind]}"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "filters": ["context"],
                "formatter": "main",
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {"django.channels.server": {"level": "WARNING"}},
    }
