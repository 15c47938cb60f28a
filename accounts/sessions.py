"""API sessions, one per device (docs/api.md "Log-in and tokens").

Each log-in (or sign-up) from an app starts a ``DeviceSession``: a short-lived
access token (django-rest-knox's ``AccessToken``, ``KNOX_TOKEN_MODEL``:
random, hashed at rest, good for ``ACCESS_TOKEN_MINUTES``) and a refresh
token (made and hashed by the same ``knox.crypto``), good for one use within
``REFRESH_TOKEN_DAYS``, never past ``SESSION_MAX_DAYS`` after the log-in.
Trading the refresh token gives a new pair and retires both old tokens; a
retired refresh token shown again means it was copied, and ends its session
(reuse detection). Ending a session deletes it with its tokens and closes the
sockets opened with any of them (code 4400).

Sockets carry marks, not secrets (``credential_mark``): a device session's
mark is that of ``device:<id>``, a browser session's that of its key.

Browsers logged in to the site (Django sessions) are listed beside the
devices: a ``BrowserSession`` row follows each (``browser_seen``, from
``accounts.middleware.BrowserSessionMiddleware``), named from its user agent
(ua-parser); ending one deletes its Django session and closes its sockets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from knox.crypto import create_token_string, hash_token

from kernel import sql
from kernel.notify import tell_user_on_commit

from .errors import RefreshInvalid, RefreshReused
from .models import AccessToken, BrowserSession, DeviceSession, UsedRefresh, User


def credential_mark(secret: str) -> str:
    """What sockets and messages carry instead of a token or session key."""
    return hashlib.sha256(secret.encode()).hexdigest()[:32]


def device_mark(session_id: int) -> str:
    """The mark of every socket opened with one of this device session's tokens."""
    return credential_mark(f"device:{session_id}")


def sockets_sign_out(
    *,
    user_id: int,
    tokens: Sequence[str] = (),
    session: str = "",
    everything: bool = False,
    keep: Sequence[str] = (),
) -> None:
    """After commit: close the user's open sockets that were opened with one of
    these credentials (marks), or every one (``everything``) but those opened
    with a credential in ``keep``."""
    message: dict[str, object] = {"type": "account.logged_out"}
    if everything:
        message.update(all=True, keep=list(keep))
    else:
        message.update(tokens=list(tokens), session=session)
    tell_user_on_commit(user_id, message)


@dataclass(frozen=True)
class Issued:
    """A token pair just made: the only time the tokens exist in clear."""

    session: DeviceSession
    access: str
    access_expiry: datetime
    refresh: str
    refresh_expiry: datetime


def _refresh_until(created: datetime, now: datetime) -> datetime:
    return min(
        now + timedelta(days=settings.REFRESH_TOKEN_DAYS),
        created + timedelta(days=settings.SESSION_MAX_DAYS),
    )


def _access_issue(session: DeviceSession, ttl: timedelta | None = None) -> tuple[str, datetime]:
    ttl = ttl or timedelta(minutes=settings.ACCESS_TOKEN_MINUTES)
    row, token = AccessToken.objects.create(user=session.user, session=session, expiry=ttl)
    return token, row.expiry


@transaction.atomic
def session_start(
    *,
    user: User,
    name: str = "",
    platform: str = DeviceSession.Platform.OTHER,
    user_agent: str = "",
    address: str | None = None,
    access_ttl: timedelta | None = None,
) -> Issued:
    """A new device session for this user, and its first token pair
    (``access_ttl``: the access token's life, ``ACCESS_TOKEN_MINUTES`` unless
    a script asks for longer)."""
    now = timezone.now()
    refresh = create_token_string()
    session = DeviceSession.objects.create(
        user=user,
        name=name.strip()[:60],
        platform=platform,
        user_agent=user_agent[:200],
        address=address,
        last_seen=now,
        refresh_digest=hash_token(refresh),
        refresh_expiry=_refresh_until(now, now),
    )
    access, access_expiry = _access_issue(session, access_ttl)
    return Issued(session, access, access_expiry, refresh, session.refresh_expiry)


def token_issue(*, user: User, name: str = "", access_ttl: timedelta | None = None) -> str:
    """A new device session's access token (scripts, tests, the bench)."""
    return session_start(user=user, name=name, access_ttl=access_ttl).access


def _rotate(digest: str, address: str | None) -> Issued | DeviceSession | None:
    """The new pair; the session whose retired refresh token this is; or None."""
    now = timezone.now()
    with transaction.atomic():
        session = (
            DeviceSession.objects.select_for_update()
            .select_related("user")
            .filter(refresh_digest=digest)
            .first()
        )
        if session is None:
            used = UsedRefresh.objects.select_related("session").filter(digest=digest).first()
            return None if used is None else used.session
        user = session.user
        if session.refresh_expiry <= now or not user.is_active or user.is_bot:
            return None
        UsedRefresh.objects.create(digest=digest, session=session, used_at=now)
        refresh = create_token_string()
        session.refresh_digest = hash_token(refresh)
        session.refresh_expiry = _refresh_until(session.created, now)
        session.last_seen = now
        fields = ["refresh_digest", "refresh_expiry", "last_seen"]
        if address:
            session.address = address
            fields.append("address")
        session.save(update_fields=fields)
        # One live access token per device: the one just retired stops now.
        AccessToken.objects.filter(session=session).delete()
        access, access_expiry = _access_issue(session)
        return Issued(session, access, access_expiry, refresh, session.refresh_expiry)


def session_refresh(*, refresh: str, address: str | None = None) -> Issued:
    """Trade a refresh token for a new pair (``invalid_refresh`` when it is
    unknown, expired or its account can no longer log in). A refresh token
    already traded ends its session: ``refresh_reused``, and the thief and the
    owner alike must log in again."""
    if not refresh or len(refresh) > 256:
        raise RefreshInvalid()
    outcome = _rotate(hash_token(refresh), address)
    if isinstance(outcome, Issued):
        return outcome
    if isinstance(outcome, DeviceSession):
        sessions_end(user_id=outcome.user_id, ids=[outcome.pk])
        raise RefreshReused()
    raise RefreshInvalid()


def sessions_end(
    *,
    user_id: int,
    ids: Iterable[int] | None = None,
    keep: int | None = None,
    close_sockets: bool = True,
) -> int:
    """End these device sessions of the user (every one when ``ids`` is None;
    never ``keep``): their tokens stop at once and, after commit, the sockets
    opened with them close (unless the caller closes them its own way: a ban
    says why first). The number ended."""
    sessions = DeviceSession.objects.filter(user_id=user_id)
    if ids is not None:
        sessions = sessions.filter(pk__in=list(ids))
    if keep is not None:
        sessions = sessions.exclude(pk=keep)
    with transaction.atomic():
        ended = list(sessions.select_for_update().values_list("pk", flat=True))
        DeviceSession.objects.filter(pk__in=ended).delete()
        if ended and close_sockets:
            sockets_sign_out(user_id=user_id, tokens=[device_mark(pk) for pk in ended])
    return len(ended)


#: How often a device session's ``last_seen`` (and address) follow its requests.
SEEN_EVERY = timedelta(seconds=60)


@cache
def _token_sql() -> str:
    # (names from the models' fields; the digest is a bound parameter)
    return (
        f"SELECT {sql.columns('t', AccessToken)}, {sql.columns('u', User)}, "  # noqa: S608
        f"{sql.columns('s', DeviceSession)} FROM {AccessToken._meta.db_table} t "
        f'JOIN {User._meta.db_table} u ON u."id" = t."user_id" '
        f'JOIN {DeviceSession._meta.db_table} s ON s."id" = t."session_id" '
        f'WHERE t."digest" = %s AND (t."expiry" IS NULL OR t."expiry" > %s)'
    )


def token_of(key: str, now: datetime) -> AccessToken | None:
    """The access token ``key`` names (looked up by its digest, knox's hash:
    what the database keeps), with its user and device session; None if there
    is no such token or it expired by ``now``. One statement, built once per
    process: every API request and every socket an app opens asks it, and
    the ORM compiled the same join anew each time (a seventh of the API
    schema test's samples, bench/RESULTS.md "The test suite")."""
    db = sql.db()
    with sql.cursor(db) as cursor:
        cursor.execute(_token_sql(), [hash_token(key), db.ops.adapt_datetimefield_value(now)])
        row = cursor.fetchone()
    if row is None:
        return None
    tokens, users = len(sql.fields(AccessToken)), len(sql.fields(User))
    token: AccessToken = sql.from_row(db, AccessToken, row[:tokens])
    token.user = sql.from_row(db, User, row[tokens : tokens + users])
    token.session = sql.from_row(db, DeviceSession, row[tokens + users :])
    return token


def session_seen(*, session: DeviceSession, address: str | None, now: datetime) -> None:
    """A request came with one of the session's access tokens: note when and
    from where, at most once every ``SEEN_EVERY`` (one UPDATE)."""
    if now - session.last_seen < SEEN_EVERY:
        return
    session.last_seen = now
    fields = ["last_seen"]
    if address:
        session.address = address
        fields.append("address")
    session.save(update_fields=fields)


def sessions_of(user: User) -> list[DeviceSession]:
    """The user's live device sessions, the most recently seen first."""
    now = timezone.now()
    live = Q(refresh_expiry__gt=now) | Q(access_tokens__expiry__gt=now)
    return list(
        DeviceSession.objects.filter(live, user=user).distinct().order_by("-last_seen", "-pk")
    )


# -- browser sessions (the site's Django sessions) ---------------------------------


def browser_seen(
    *, session_key: str, user: User, user_agent: str, address: str | None, now: datetime
) -> None:
    """A request of a logged-in browser: its session's row says when and from
    where (made at its first request, e.g. right after the log-in that gave
    the session its key)."""
    fields: dict[str, object] = {"user": user, "last_seen": now}
    if address:
        fields["address"] = address
    try:
        with transaction.atomic():
            BrowserSession.objects.update_or_create(
                session_id=session_key,
                defaults=fields,
                create_defaults={
                    **fields,
                    "created": now,  # (logged in when first seen: never after it)
                    "user_agent": user_agent[:200],
                    "address": address,
                },
            )
    except IntegrityError:
        pass  # another request of that browser made the row first


def browser_sessions_of(user: User) -> list[BrowserSession]:
    """The user's browsers logged in (their Django session unexpired and still
    theirs), the most recently seen first."""
    return list(
        BrowserSession.objects.filter(user=user, session__expire_date__gt=timezone.now()).order_by(
            "-last_seen", "-pk"
        )
    )


def browser_sessions_end(*, user_id: int, ids: Iterable[int]) -> int:
    """Log these browsers of the user out: their Django sessions end (the
    rows with them) and, after commit, their sockets close (code 4400). The
    number ended."""
    with transaction.atomic():
        keys = list(
            BrowserSession.objects.filter(user_id=user_id, pk__in=list(ids)).values_list(
                "session_id", flat=True
            )
        )
        Session.objects.filter(session_key__in=keys).delete()
        BrowserSession.objects.filter(session_id__in=keys).delete()
        if keys:
            sockets_sign_out(user_id=user_id, tokens=[credential_mark(key) for key in keys])
    return len(keys)


def sessions_listed(user: User) -> list[DeviceSession | BrowserSession]:
    """The account's devices and browsers, the most recently seen first."""
    rows: list[DeviceSession | BrowserSession] = [*sessions_of(user), *browser_sessions_of(user)]
    return sorted(rows, key=lambda row: row.last_seen, reverse=True)
