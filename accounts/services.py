import hashlib
from collections.abc import Sequence
from typing import Any

from django.contrib.auth import SESSION_KEY, authenticate, logout
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.contrib.sessions.models import Session
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from kernel.notify import tell_user_on_commit

from .avatars import AVATARS
from .errors import InvalidCredentials, LockedOut, UnknownAvatar
from .limits import LIMITED, TooManyAttempts, password_check_slot
from .models import User
from .names import NameTaken, UsernameTaken, display_name_check, username_check


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


def token_login(*, request: HttpRequest, username: str, password: str) -> tuple[User, str]:
    """Check a player's password through django-axes (failures count towards its
    lock-out) and return the player's API token, created on first use.

    Bots never log in. The token is the same on every device until log-out.
    """
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
    return user, token_issue(user=user)


def token_issue(*, user: User) -> str:
    """The player's API token (HTTP and WebSocket), created on first use."""
    token, _created = Token.objects.get_or_create(user=user)
    return str(token.key)


def credential_mark(secret: str) -> str:
    """What sockets and messages carry instead of a token or session key."""
    return hashlib.sha256(secret.encode()).hexdigest()[:32]


def sockets_sign_out(*, user_id: int, tokens: Sequence[str] = (), session: str = "") -> None:
    """After commit: close the user's open sockets that were opened with one of
    these tokens or this session (marks from ``credential_mark``)."""
    message = {"type": "account.logged_out", "tokens": list(tokens), "session": session}
    tell_user_on_commit(user_id, message)


def session_ended(sender: Any, request: HttpRequest | None, user: User | None, **_: Any) -> None:
    """Django's ``user_logged_out``: the sockets of the session that ends close."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if user is not None and key:
        sockets_sign_out(user_id=user.pk, session=credential_mark(key))


def token_logout(*, request: HttpRequest, user: User) -> None:
    """Revoke the player's API token (every device) and end this browser session;
    the sockets opened with either close."""
    tokens = Token.objects.filter(user=user)
    marks = [credential_mark(key) for key in tokens.values_list("key", flat=True)]
    tokens.delete()
    sockets_sign_out(user_id=user.pk, tokens=marks)
    if request.session.get(SESSION_KEY) is not None:
        logout(request)
    else:
        user_logged_out.send(sender=User, request=request, user=user)


def user_session_keys(user: User) -> list[str]:
    """The user's live sessions (database sessions carry no user column: each
    live session is decoded; bans and password changes are rare)."""
    wanted = str(user.pk)
    return [
        session.session_key
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get(SESSION_KEY)) == wanted
    ]


def credentials_revoke(*, user: User) -> None:
    """After a password change or reset (any path: the site's form, the API, the
    admin, ``changepassword``): delete every API token and session of the user
    and, after commit, close every socket they have open (code 4400). The
    browser that changed its own password keeps its session: Django gives it a
    new key right after (``update_session_auth_hash``)."""
    Token.objects.filter(user=user).delete()
    Session.objects.filter(session_key__in=user_session_keys(user)).delete()
    message = {"type": "account.logged_out", "all": True}
    user_id = user.pk
    tell_user_on_commit(user_id, message)


def password_was_changed(sender: type[User], *, user: User, **kwargs: Any) -> None:
    """``password_changed`` receiver (AccountsConfig.ready): revoke everything."""
    credentials_revoke(user=user)


def password_change(*, user: User, old_password: str, new_password: str) -> str:
    """The API's password change: check the old one, validate the new one,
    revoke everything (``credentials_revoke``) and return a fresh token."""
    from .errors import WrongPassword

    with password_check_slot():
        right = user.check_password(old_password)
    if not right:
        raise WrongPassword()
    validate_password(new_password, user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        return token_issue(user=user)
