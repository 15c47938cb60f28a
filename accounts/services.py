from contextvars import ContextVar
from typing import Any

from django.contrib.auth import SESSION_KEY, authenticate, logout
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone

from kernel import limits
from kernel.net import client_ip

from .avatars import AVATARS
from .errors import InvalidCredentials, LockedOut, UnknownAvatar
from .limits import LIMITED, TooManyAttempts, password_check_slot
from .models import DeviceSession, User
from .names import NameTaken, UsernameTaken, display_name_check, username_check
from .sessions import (
    Issued,
    credential_mark,
    device_mark,
    session_start,
    sessions_end,
    sockets_sign_out,
)


@transaction.atomic
def user_register(*, username: str, display_name: str, password: str) -> User:
    """Create a player's user (no wallet: a sign-up is
    ``wallet.services.player_signup``, which calls this). The names must pass
    ``accounts.names`` (a ``NameRefused`` otherwise, nothing created),
    checked again by the database's unique skeletons against a sign-up racing
    for a look-alike."""
    username = username_check(username=username)
    display_name = display_name_check(name=display_name)
    user = User(username=username, display_name=display_name)
    validate_password(password, user)
    user.set_password(password)
    names_save(user=user)
    return user


def display_name_set(*, user: User, display_name: str) -> User:
    """Rename a player: the same rules as at sign-up."""
    user.display_name = display_name_check(name=display_name, user_id=user.pk)
    with transaction.atomic():
        names_save(user=user, update_fields=["display_name"])
    return user


def names_save(*, user: User, update_fields: list[str] | None = None) -> None:
    """Save the user; a unique skeleton taken meanwhile is the name's refusal."""
    try:
        with transaction.atomic():
            user.save(update_fields=update_fields)
    except IntegrityError as err:
        constraint = getattr(getattr(err.__cause__, "diag", None), "constraint_name", "") or ""
        if "display_key" in constraint:
            raise NameTaken() from None
        if "username" in constraint:
            raise UsernameTaken() from None
        raise


@transaction.atomic
def bot_create(*, username: str, display_name: str) -> User:
    """A bot's user: flagged, with an unusable password, so it can never log in
    (its wallet: ``wallet.services.bot_signup``, which calls this)."""
    user = User(username=username, display_name=display_name, is_bot=True)
    user.set_unusable_password()
    user.save()
    return user


def avatar_set(*, user: User, avatar: object) -> User:
    """The player's avatar: one of ``AVATARS`` (``unknown_avatar`` otherwise)."""
    if not isinstance(avatar, str) or avatar not in AVATARS:
        raise UnknownAvatar()
    user.avatar = avatar
    user.save(update_fields=["avatar"])
    return user


def token_login(
    *,
    request: HttpRequest,
    username: str,
    password: str,
    name: str = "",
    platform: str = DeviceSession.Platform.OTHER,
) -> tuple[User, Issued]:
    """Check a player's password through django-axes (failures count towards its
    lock-out) and start a device session (``accounts.sessions``): every log-in
    gets its own tokens, whatever the device. Bots never log in."""
    user = authenticate(request, username=username, password=password)
    wait = getattr(request, LIMITED, None)
    if wait:
        raise TooManyAttempts(wait)
    if getattr(request, "axes_locked_out", False):
        from .lockout import cool_off_minutes

        raise LockedOut(minutes=cool_off_minutes(request))
    if not isinstance(user, User) or user.is_bot:
        raise InvalidCredentials()
    user_logged_in.send(sender=User, request=request, user=user)
    return user, session_start(user=user, **device_of(request, name=name, platform=platform))


def device_of(request: HttpRequest, *, name: str, platform: str) -> dict[str, Any]:
    """What a new device session records of the request that starts it."""
    return {
        "name": name,
        "platform": platform,
        "user_agent": request.META.get("HTTP_USER_AGENT", ""),
        "address": client_ip(request),
    }


def session_ended(sender: Any, request: HttpRequest | None, user: User | None, **_: Any) -> None:
    """Django's ``user_logged_out``: the sockets of the session that ends close."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if user is not None and key:
        sockets_sign_out(user_id=user.pk, session=credential_mark(key))


def token_logout(*, request: HttpRequest, user: User, device: int | None) -> None:
    """Log this client out: its device session (``device``: the one whose token
    came with the request) and, if the request carries one, its browser
    session. Every other device and browser stays logged in."""
    if device is not None:
        sessions_end(user_id=user.pk, ids=[device])
    if request.session.get(SESSION_KEY) is not None:
        logout(request)
    else:
        user_logged_out.send(sender=User, request=request, user=user)


def logout_everywhere(*, request: HttpRequest, user: User) -> int:
    """End every device session and browser session of the user, this one
    too; every socket of theirs closes. The number of device sessions ended."""
    ended = sessions_end(user_id=user.pk)
    Session.objects.filter(session_key__in=user_session_keys(user)).delete()
    sockets_sign_out(user_id=user.pk, everything=True)
    if request.session.get(SESSION_KEY) is not None:
        logout(request)
    return ended


def user_session_keys(user: User) -> list[str]:
    """The user's live sessions (database sessions carry no user column: each
    live session is decoded; bans and password changes are rare)."""
    wanted = str(user.pk)
    return [
        session.session_key
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get(SESSION_KEY)) == wanted
    ]


#: The device session that changes its own password through the API keeps
#: going (``password_change``); every other one ends.
_keeping: ContextVar[int | None] = ContextVar("accounts_keeping", default=None)


def credentials_revoke(*, user: User) -> None:
    """After a password change or reset (any path: the site's form, the API, the
    admin, ``changepassword``): end every device session of the user but the
    one changing it through the API, delete every browser session and, after
    commit, close every socket they have open (code 4400). The browser that
    changed its own password keeps its session: Django gives it a new key right
    after (``update_session_auth_hash``)."""
    keep = _keeping.get()
    sessions_end(user_id=user.pk, keep=keep)
    Session.objects.filter(session_key__in=user_session_keys(user)).delete()
    kept = [device_mark(keep)] if keep is not None else []
    sockets_sign_out(user_id=user.pk, everything=True, keep=kept)


def password_was_changed(sender: type[User], *, user: User, **kwargs: Any) -> None:
    """``password_changed`` receiver (AccountsConfig.ready): revoke everything."""
    credentials_revoke(user=user)


def password_change(
    *, user: User, old_password: str, new_password: str, device: int | None
) -> None:
    """The API's password change: check the old one, validate the new one, and
    end every other session (``credentials_revoke``); the device session that
    asks (``device``) keeps its tokens and sockets."""
    from .errors import WrongPassword

    # Not the write limit (a password change always goes through): wrong
    # current passwords per account, so a token cannot try passwords forever.
    rate = limits.settings_rate("PASSWORD_CHANGE_FAILURE_RATE")
    wait = limits.take("password-change-failures", str(user.pk), rate, record=False)
    if wait:
        raise TooManyAttempts(wait)
    with password_check_slot():
        right = user.check_password(old_password)
    if not right:
        limits.take("password-change-failures", str(user.pk), rate)
        raise WrongPassword()
    validate_password(new_password, user)
    reset = _keeping.set(device)
    try:
        with transaction.atomic():
            user.set_password(new_password)
            user.save(update_fields=["password"])
    finally:
        _keeping.reset(reset)
