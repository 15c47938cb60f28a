"""Refusals that the edges (views, API, WebSocket) show to the user.

Each has a stable ``code`` and a message rendered in the active language when
it is read, so the same error speaks Vietnamese or English to whoever gets it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from kernel.numbers import chips


class ServiceError(Exception):
    code = "error"
    template: str | Promise = _("The request could not be completed.")
    status = 400
    #: The parameters that are chip counts: the message groups their
    #: thousands like every chip count of the site (10.000, 10,000 in English).
    chip_params: ClassVar[tuple[str, ...]] = ()

    def __init__(self, template: str | Promise | None = None, **params: Any) -> None:
        if template is not None:
            self.template = template
        self.params = params
        super().__init__(self.code)

    @property
    def message(self) -> str:
        text = str(self.template)
        if not self.params:
            return text
        return text % {k: chips(v) if k in self.chip_params else v for k, v in self.params.items()}

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


class ServerError(ServiceError):
    """Ours, not the request's: e.g. the database dropped the connection (a
    restart, a fail-over). The request's transaction rolled back (or, dropped
    at its commit, shows in the next state); it may be sent again (the API's
    ``server_error``)."""

    code = "server_error"
    template = _("Something went wrong on our side. Try again later.")
    status = 500


class Busy(ServiceError):
    """The request's transaction kept losing to others at the same rows (a
    deadlock, a serialization failure) however often it was run again: nothing
    was done, and it may be sent again (``kernel.retry.retried``)."""

    code = "busy"
    template = _("The server is busy with your other requests: nothing was done, try again.")
    status = 503


class PermissionDenied(ServiceError):
    code = "permission_denied"
    template = _("You are not allowed to do that.")
    status = 403


class NotFound(ServiceError):
    code = "not_found"
    template = _("Not found.")
    status = 404
