"""Account recovery: an e-mail address on the account, verified by a link, and
password reset by a link mailed to it (docs/api.md "E-mail and password reset").

* **The address.** ``User.email`` is the verified address, unique whatever its
  case; a new one (at sign-up, or changed with the current password) waits in
  ``User.email_pending`` until the link mailed to it is opened, and the
  verified one stays until then. Only a verified address gets reset mails.
* **Verification links** are ``django.core.signing`` tokens (HMAC with
  ``SECRET_KEY``, a timestamp checked against ``EMAIL_VERIFY_HOURS``) of the
  account's id and a keyed digest of its pending and verified addresses: a
  link opens once (verifying changes the addresses) and only for the address
  it was sent to (a changed address retires it). No address is in the link.
* **Reset links** are Django's ``PasswordResetTokenGenerator`` tokens (the
  one ``PasswordResetConfirmView`` checks): they expire after
  ``PASSWORD_RESET_TIMEOUT`` (``PASSWORD_RESET_MINUTES``) and the new
  password, which they hash, retires them: used once. A reset ends every
  device session and browser session of the account and closes its sockets
  (``accounts.services.credentials_revoke``, by the ``password_changed`` signal).
* **No enumeration.** Asking for a reset answers the same whether or not an
  account has the address or username: the request checks its limits and
  queues one task either way; the task looks the account up and mails it.
  Setting an address another account has verified is accepted the same way;
  that address is mailed that it is in use (no link).
* **Limits** (``kernel.limits``, Redis windows): reset requests per client
  address (``PASSWORD_RESET_RATE``) and per address or username asked for
  (``PASSWORD_RESET_ACCOUNT_RATE``, counted whether an account has it or not),
  both refused with ``throttled``; reset mails per account (the same rate,
  silently: the answer must not tell); verification mails per account
  (``EMAIL_VERIFY_RATE``, ``throttled``: the player's own account).
* Bots never get mails (they have no address and cannot log in to set one;
  every look-up leaves them out).
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import translation
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode

from kernel import limits

from . import mail
from .errors import (
    EmailTaken,
    NoEmailPending,
    ResetLinkInvalid,
    VerificationLinkInvalid,
    WrongPassword,
)
from .limits import TooManyAttempts, password_check_slot
from .models import User

VERIFY_SALT = "accounts.recovery.email-verify"


def email_normal(address: str) -> str:
    """As typed, trimmed, its domain in lower case (the part before ``@`` may
    be case-sensitive; uniqueness ignores case anyway)."""
    return User.objects.normalize_email(address.strip())


def _language(language: str | None) -> str:
    return language or translation.get_language() or settings.LANGUAGE_CODE


# -- the address -------------------------------------------------------------------


def _binding(user: User) -> str:
    """What a verification link is good for: this account, this pending
    address, this verified address (keyed with SECRET_KEY: not reversible)."""
    value = f"{user.pk}|{user.email_pending.lower()}|{user.email.lower()}"
    return salted_hmac(VERIFY_SALT, value).hexdigest()[:32]


def verification_token(user: User) -> str:
    return signing.dumps({"u": user.pk, "b": _binding(user)}, salt=VERIFY_SALT)


def verification_user(token: str) -> User:
    """The account whose pending address this link verifies, or
    ``invalid_verification_link`` (bad, expired, used, or the address changed)."""
    try:
        data = signing.loads(
            token, salt=VERIFY_SALT, max_age=timedelta(hours=settings.EMAIL_VERIFY_HOURS)
        )
    except signing.BadSignature:  # SignatureExpired too
        raise VerificationLinkInvalid() from None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        raise VerificationLinkInvalid()
    user = User.objects.filter(pk=data["u"], is_active=True, is_bot=False).first()
    if (
        user is None
        or not user.email_pending
        or not constant_time_compare(_binding(user), str(data.get("b", "")))
    ):
        raise VerificationLinkInvalid()
    return user


def _taken(address: str, user_id: int) -> bool:
    return User.objects.filter(email__iexact=address).exclude(pk=user_id).exists()


def email_verify(token: str) -> User:
    """Open a verification link: its pending address becomes the account's
    (``email_taken`` if another account verified it first)."""
    found = verification_user(token)
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=found.pk)
        if user.email_pending != found.email_pending or user.email != found.email:
            raise VerificationLinkInvalid()  # changed meanwhile
        address = user.email_pending
        if _taken(address, user.pk):
            raise EmailTaken()
        user.email, user.email_pending = address, ""
        try:
            with transaction.atomic():
                user.save(update_fields=["email", "email_pending"])
        except IntegrityError:
            raise EmailTaken() from None
    return user


def _verification_take(user: User) -> None:
    wait = limits.take("verify-mail", str(user.pk), limits.settings_rate("EMAIL_VERIFY_RATE"))
    if wait:
        raise TooManyAttempts(wait)


def _verification_queue(user: User, language: str | None) -> None:
    mail.queue(mail.VERIFY_TASK, user_id=user.pk, language=_language(language))


def email_at_signup(*, user: User, email: str, language: str | None = None) -> User:
    """The address given at sign-up: pending, and its link mailed."""
    address = email_normal(email)
    if not address or user.is_bot:
        return user
    with transaction.atomic():
        user.email_pending = address
        user.save(update_fields=["email_pending"])
        # Counted towards the account's verification mails (a new account is
        # never over the limit: not refused).
        limits.take("verify-mail", str(user.pk), limits.settings_rate("EMAIL_VERIFY_RATE"))
        _verification_queue(user, language)
    return user


def email_set(*, user: User, email: str, password: str, language: str | None = None) -> User:
    """Change the account's address (the current password first). Empty:
    no address at all (no more resets). The verified address again: a pending
    change is dropped. Another: pending until its link is opened, the verified
    one kept meanwhile; the link is mailed (``EMAIL_VERIFY_RATE``)."""
    with password_check_slot():
        right = user.check_password(password)
    if not right:
        raise WrongPassword()
    address = email_normal(email)
    mailed = bool(address) and address.lower() != user.email.lower()
    if mailed:
        _verification_take(user)
    with transaction.atomic():
        if not address:
            user.email = ""
        user.email_pending = address if mailed else ""
        user.save(update_fields=["email", "email_pending"])
        if mailed:
            _verification_queue(user, language)
    return user


def verification_resend(*, user: User, language: str | None = None) -> None:
    """Mail the pending address's link again (``no_email_pending`` without one)."""
    if not user.email_pending:
        raise NoEmailPending()
    _verification_take(user)
    _verification_queue(user, language)


def verification_mail_send(*, user_id: int, language: str) -> bool:
    """The task's work: mail the account's pending address its link, or, when
    another account has verified that address, a word that it is in use (no
    link: nothing tells the one who typed it). False: nothing to send."""
    user = User.objects.filter(pk=user_id, is_active=True, is_bot=False).first()
    if user is None or not user.email_pending:
        return False
    context: dict[str, Any] = {"user": user, "address": user.email_pending}
    if _taken(user.email_pending, user.pk):
        context["reset_url"] = mail.link(reverse("password_reset"))
        mail.mail_send(
            kind="email_in_use", to=user.email_pending, language=language, context=context
        )
        return True
    path = reverse("email_verify", kwargs={"token": verification_token(user)})
    context |= {"url": mail.link(path), "hours": settings.EMAIL_VERIFY_HOURS}
    mail.mail_send(kind="verify_email", to=user.email_pending, language=language, context=context)
    return True


# -- password reset ----------------------------------------------------------------


def _asked_key(value: str) -> str:
    """A Redis key for what was asked for, not the address itself."""
    return hashlib.sha256(value.strip().casefold().encode()).hexdigest()[:32]


def password_reset_request(
    *, email: str = "", username: str = "", address: str | None, language: str | None = None
) -> None:
    """Ask for a reset mail for the account with this verified address or
    this username (the site's one field passes what was typed as both). The
    limits are checked and one task is queued whether or not there is such an
    account: nothing here depends on it."""
    asked = email or username
    wait = limits.take(
        "reset-address", address or "unknown", limits.settings_rate("PASSWORD_RESET_RATE")
    )
    if not wait:
        wait = limits.take(
            "reset-asked", _asked_key(asked), limits.settings_rate("PASSWORD_RESET_ACCOUNT_RATE")
        )
    if wait:
        raise TooManyAttempts(wait)
    mail.queue(
        mail.RESET_TASK,
        email=email.strip(),
        username=username.strip(),
        language=_language(language),
    )


def reset_targets(*, email: str, username: str) -> list[User]:
    """The accounts a reset asked for reaches: active people with a verified
    address matching it (any case), or with this username."""
    wanted = Q()
    if email:
        wanted |= Q(email__iexact=email)
    if username:
        wanted |= Q(username__iexact=username)
    if not wanted:
        return []
    return list(
        User.objects.filter(wanted, is_active=True, is_bot=False).exclude(email="").order_by("pk")
    )


def reset_uid(user: User) -> str:
    return urlsafe_base64_encode(force_bytes(user.pk))


def reset_mails_send(*, email: str, username: str, language: str, count: bool = True) -> int:
    """The task's work: mail each account found its reset link, at most
    ``PASSWORD_RESET_ACCOUNT_RATE`` per account (past it, silently none;
    ``count=False``: a retry of a send already counted). How many were sent."""
    sent = 0
    for user in reset_targets(email=email, username=username):
        rate = limits.settings_rate("PASSWORD_RESET_ACCOUNT_RATE")
        if count and limits.take("reset-mail", str(user.pk), rate):
            continue
        uid, token = reset_uid(user), default_token_generator.make_token(user)
        path = reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})
        context = {
            "user": user,
            "url": mail.link(path),
            "uid": uid,
            "token": token,
            "minutes": settings.PASSWORD_RESET_MINUTES,
        }
        mail.mail_send(kind="password_reset", to=user.email, language=language, context=context)
        sent += 1
    return sent


def reset_user(uid: str, token: str) -> User:
    """The account a reset link is good for, or ``invalid_reset_link``."""
    try:
        pk = int(urlsafe_base64_decode(uid).decode())
    except (ValueError, TypeError, OverflowError, UnicodeDecodeError):
        raise ResetLinkInvalid() from None
    user = User.objects.filter(pk=pk, is_bot=False).first()
    if user is None or not default_token_generator.check_token(user, token):
        raise ResetLinkInvalid()
    return user


def password_reset_confirm(*, uid: str, token: str, new_password: str) -> User:
    """Set a new password with a reset link (Django's validators apply: a
    ``ValidationError`` leaves everything as it was). Every session of the
    account ends and its sockets close; the link is used up."""
    user = reset_user(uid, token)
    validate_password(new_password, user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
    return user
