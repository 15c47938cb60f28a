"""Per-address limits on signing up and logging in, the same for the web
forms, the API and the admin's log-in (docs/security.md).

* ``SIGNUP_RATE``: accounts created per client address (web and API share
  one budget), so the sign-up grant cannot be farmed faster than this.
* ``LOGIN_RATE``: log-in attempts per address, whatever the username.
* ``LOGIN_FAILURE_RATE``: failed log-ins per address over every username
  (password spraying); once reached, the address may not try again, even with
  a right password, until the oldest failure leaves the window.

``PASSWORD_CHECKS_AT_ONCE``: password checks running at once in one process,
whatever the address (each costs ~2 s of CPU); a log-in that finds no free
slot within ``PASSWORD_CHECK_WAIT_S`` is refused with ``busy`` (503,
``Retry-After``) before any hash runs, and counts as no failure.

django-axes still locks a username from an address after
``AXES_FAILURE_LIMIT`` failures. Addresses come from ``kernel.net``.
Log-in limits are checked by an authentication backend (before Django's
own in ``AUTHENTICATION_BACKENDS``), so every path that calls ``authenticate()`` is
covered; ``LoginLimitMiddleware`` turns a refusal into a 429 page for the
form views, the API raises its own ``throttled`` error.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from kernel import limits
from kernel.api.ratelimit import note
from kernel.errors import ServiceError
from kernel.net import client_ip

LIMITED = "address_limited_wait"  # request attribute: seconds to wait


class TooManyAttempts(ServiceError):
    code = "throttled"
    template = _("Too many requests: try again in %(wait)s seconds.")
    status = 429

    def __init__(self, wait: float) -> None:
        super().__init__(wait=max(1, math.ceil(wait)))

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"wait": self.params["wait"]}}


class PasswordChecksBusy(ServiceError):
    code = "busy"
    template = _("The server is busy checking other log-ins: try again in %(wait)s seconds.")
    status = 503

    def __init__(self) -> None:
        super().__init__(wait=BUSY_RETRY_S)

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "details": {"wait": self.params["wait"]}}


BUSY_RETRY_S = 2  # about one password check's time
_slots_lock = threading.Lock()
_slots: tuple[int, threading.BoundedSemaphore] | None = None


def _password_slots() -> threading.BoundedSemaphore | None:
    """This process's slots for password checks (none: no limit)."""
    global _slots
    size = settings.PASSWORD_CHECKS_AT_ONCE
    if size <= 0:
        return None
    with _slots_lock:
        if _slots is None or _slots[0] != size:
            _slots = (size, threading.BoundedSemaphore(size))
        return _slots[1]


@contextmanager
def password_check_slot() -> Iterator[None]:
    """Hold one of the process's ``PASSWORD_CHECKS_AT_ONCE`` slots while a
    password is hashed; ``PasswordChecksBusy`` when none frees up within
    ``PASSWORD_CHECK_WAIT_S``."""
    slots = _password_slots()
    if slots is None:
        yield
        return
    if not slots.acquire(timeout=settings.PASSWORD_CHECK_WAIT_S):
        raise PasswordChecksBusy()
    try:
        yield
    finally:
        slots.release()


def _address(request: HttpRequest | None) -> str:
    ip = client_ip(request) if request is not None else None
    return ip or "unknown"


def _counted(request: HttpRequest, scope: str, setting: str, *, record: bool = True) -> float:
    """``limits.take`` for the request's address, its standing noted for the
    ``RateLimit`` headers (``kernel.api.ratelimit``, policy ``scope``)."""
    rate = limits.settings_rate(setting)
    if rate is None:
        return 0.0
    quota = limits.take_quota(scope, _address(request), rate, record=record)
    note(request, scope, rate.count, rate.seconds, quota.remaining, quota.reset)
    return quota.wait


def signup_take(request: HttpRequest) -> None:
    """Reserve one sign-up for the request's address (atomic), or refuse."""
    wait = _counted(request, "signup", "SIGNUP_RATE")
    if wait:
        raise TooManyAttempts(wait)


def login_check(request: HttpRequest | None) -> None:
    """Count a log-in attempt from the request's address; refuse when the
    address is over ``LOGIN_FAILURE_RATE`` (failures, checked first and not
    counted) or ``LOGIN_RATE`` (attempts). Without a request (code calling
    ``authenticate()`` itself, not a client) there is no address to limit."""
    if request is None:
        return
    failures = _counted(request, "login-failures", "LOGIN_FAILURE_RATE", record=False)
    wait = failures or _counted(request, "login", "LOGIN_RATE")
    if wait:
        raise TooManyAttempts(wait)


def login_failed(sender: Any, credentials: Any = None, request: Any = None, **_: Any) -> None:
    """Django's ``user_login_failed``: one more failure for the address (a
    refusal by these limits is not one)."""
    if request is None or getattr(request, LIMITED, None):
        return
    limits.take("login-failures", _address(request), limits.settings_rate("LOGIN_FAILURE_RATE"))


class AddressLimitBackend:
    """Authentication backend before ModelBackend: refuses every log-in from an address over
    its limits (``PermissionDenied`` stops Django trying the other backends).
    No ``get_user``: it never logs anyone in (and ``force_login`` skips it)."""

    def authenticate(self, request: HttpRequest | None, **credentials: Any) -> None:
        try:
            login_check(request)
        except TooManyAttempts as err:
            if request is not None:
                setattr(request, LIMITED, err.params["wait"])
            raise PermissionDenied from None


class PasswordCheckBackend(ModelBackend):
    """Django's ModelBackend with its password check (the hash, also run for
    an unknown username) inside ``password_check_slot``. A refused password
    raises ``PermissionDenied`` (Django then reports the failure as usual) so
    that ModelBackend, listed after it only to keep older sessions valid,
    never hashes the same password a second time. ``PasswordChecksBusy`` is
    no failure: it leaves ``authenticate()`` before ``user_login_failed``."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> Any:
        if password is None:
            return None
        with password_check_slot():
            user = super().authenticate(request, username, password, **kwargs)
        if user is None:
            raise PermissionDenied
        return user


class SlotPasswordChangeForm(PasswordChangeForm):
    """The site's password change: the old password checked inside a slot."""

    def clean_old_password(self) -> str:
        with password_check_slot():
            return str(super().clean_old_password())


class LoginLimitMiddleware:
    """After a form view refused a log-in because of these limits: a 429 page
    instead of "wrong password" (the API answers its own JSON error)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        wait = getattr(request, LIMITED, None)
        if wait and not request.path.startswith("/api/"):
            return too_many(request, wait)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A form's log-in or password change found every slot taken: the busy page."""
        if not isinstance(exception, PasswordChecksBusy):
            return None
        response: HttpResponse
        if request.path.startswith("/api/"):
            from kernel.api.errors import json_error

            response = json_error(request, exception)
        else:
            response = render(request, "registration/busy.html", status=503)
        response["Retry-After"] = str(BUSY_RETRY_S)
        return response


def too_many(request: HttpRequest, wait: float) -> HttpResponse:
    minutes = max(1, math.ceil(wait / 60))
    response = render(request, "registration/too_many.html", {"minutes": minutes}, status=429)
    response["Retry-After"] = str(max(1, math.ceil(wait)))
    return response
