"""The browser sessions' rows (``accounts.sessions.browser_seen``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.contrib.auth import SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from kernel.net import client_ip

from .models import User
from .sessions import browser_seen

#: How often a browser session's row follows its requests.
SEEN_EVERY = timedelta(seconds=60)
#: Where the session keeps which key its row last followed, and when (epoch s).
MARK = "_browser_seen"


class BrowserSessionMiddleware:
    """After each request of a browser logged in to the site, the row of its
    session in the list of sessions: made at its first request with a new
    key (a log-in, a password change), then its last-seen time and address at
    most once every ``SEEN_EVERY``. What it last did is kept in the session
    itself, so a request in between reads no table."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        self.follow(request)  # before the view: the page that lists it shows it
        response = self.get_response(request)
        self.follow(request)  # after: a log-in (or a password change) gave a new key
        return response

    @staticmethod
    def follow(request: HttpRequest) -> None:
        session = getattr(request, "session", None)
        user = getattr(request, "user", None)
        if session is None or not isinstance(user, User) or not user.is_authenticated:
            return
        key = session.session_key
        if not key or str(session.get(SESSION_KEY)) != str(user.pk):
            return  # a token's request, or a log-out just now
        now = timezone.now()
        marked = session.get(MARK)
        recent = isinstance(marked, list) and marked[:1] == [key]
        if recent and now.timestamp() - float(marked[1]) < SEEN_EVERY.total_seconds():
            return
        browser_seen(
            session_key=key,
            user=user,
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            address=client_ip(request),
            now=now,
        )
        session[MARK] = [key, now.timestamp()]
