from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from knox.models import AbstractAuthToken

from .avatars import CHOICES, default_avatar

# Sent after an existing user's new password is saved (sender: User, user=).
# The accounts app revokes every token and session then (AccountsConfig.ready).
password_changed = Signal()


class User(AbstractUser):  # type: ignore[django-manager-missing]  # knox is untyped
    display_name = models.CharField(_("display name"), max_length=40)
    is_bot = models.BooleanField(
        _("bot"), default=False, help_text=_("Bots play at tables and can never log in.")
    )
    muted_until = models.DateTimeField(_("muted in chat until"), null=True, blank=True)
    muted_reason = models.CharField(_("reason for the mute"), max_length=200, blank=True)
    avatar = models.CharField(
        _("avatar"),
        max_length=20,
        blank=True,
        choices=CHOICES,
        help_text=_("Empty: the avatar given by the account's id."),
    )
    # ``email`` (AbstractUser's) is the verified address: the one reset mails go
    # to, unique among accounts whatever its case. An address given at sign-up or
    # changed waits here until the link mailed to it is opened (accounts.recovery).
    email_pending = models.EmailField(
        _("e-mail address waiting for verification"),
        blank=True,
        default="",
        db_default="",
        help_text=_("Becomes the account's address once the link mailed to it is opened."),
    )

    # Skeletons (accounts.names) kept unique by the database: no two
    # players' display names, nor two usernames, look alike. NULL: an older
    # account whose twin came first (grandfathered by migration 0005): NULLs
    # never collide under a unique index, empty strings would.
    display_key = models.CharField(max_length=200, null=True, blank=True, editable=False)  # noqa: DJ001
    username_key = models.CharField(max_length=600, null=True, blank=True, editable=False)  # noqa: DJ001
    # (username, display_name) as loaded: a key is recomputed only for a changed name.
    _loaded_names: tuple[str | None, str | None] = (None, None)

    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]
        swappable = "AUTH_USER_MODEL"
        constraints = [
            models.UniqueConstraint(
                fields=["display_key"],
                condition=models.Q(is_bot=False),
                name="accounts_user_display_key_unique",
            ),
            models.UniqueConstraint(
                fields=["username_key"], name="accounts_user_username_key_unique"
            ),
            models.UniqueConstraint(
                Lower("email"),
                condition=~models.Q(email=""),
                name="accounts_user_email_unique",
                violation_error_message=_("Another account already uses this e-mail address."),
            ),
        ]

    @classmethod
    def from_db(cls, db: Any, field_names: Any, values: Any) -> "User":
        user = super().from_db(db, field_names, values)
        user._loaded_names = (user.__dict__.get("username"), user.__dict__.get("display_name"))
        return user

    def _keys_update(self, update_fields: Any) -> Any:
        """Skeletons follow the names, computed when a name is new or changed
        (an unchanged grandfathered name keeps its NULL key)."""
        from .names import display_key, username_key

        loaded = self._loaded_names
        fields = set(update_fields) if update_fields is not None else None
        if self.username != loaded[0] and (fields is None or "username" in fields):
            self.username_key = username_key(self.username)
            if fields is not None:
                fields.add("username_key")
        if self.display_name != loaded[1] and (fields is None or "display_name" in fields):
            self.display_key = display_key(self.display_name) if self.display_name else None
            if fields is not None:
                fields.add("display_key")
        return fields

    def clean(self) -> None:
        """The name rules (accounts.names) for forms bound to the model,
        the admin's among them."""
        from django.core.exceptions import ValidationError

        from .names import NameRefused, display_name_check, username_check

        super().clean()
        loaded = self._loaded_names
        errors: dict[str, ValidationError] = {}
        try:
            if self.username and self.username != loaded[0]:
                self.username = username_check(username=self.username, user_id=self.pk)
        except NameRefused as err:
            errors["username"] = ValidationError(err.message, code=err.code)
        try:
            if self.display_name and self.display_name != loaded[1]:
                self.display_name = display_name_check(
                    name=self.display_name, user_id=self.pk, staff=self.is_staff
                )
        except NameRefused as err:
            errors["display_name"] = ValidationError(err.message, code=err.code)
        if errors:
            raise ValidationError(errors)

    def save(self, *args: Any, **kwargs: Any) -> None:
        update_fields = self._keys_update(kwargs.get("update_fields"))
        if update_fields is not None:
            kwargs["update_fields"] = update_fields
        # A new password (set_password, then save) on an existing account: every
        # API token and session is revoked and the sockets close (a hash
        # upgrade at log-in clears _password first and is not a change).
        changed = self._password is not None and not self._state.adding  # type: ignore[attr-defined]
        super().save(*args, **kwargs)
        if changed:
            password_changed.send(sender=type(self), user=self)
        self._loaded_names = (self.username, self.display_name)

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def shown_name(self) -> str:
        """The name other players see: never the log-in name."""
        return public_name(self.display_name, self.pk)

    @property
    def avatar_key(self) -> str:
        """The avatar picked, else the one the account's id gives."""
        return self.avatar or default_avatar(self.pk)


def public_name(display_name: str, user_id: int | None) -> str:
    """A display name, else (an account made without one, e.g. by
    ``createsuperuser``) "#id", the same in every language (a table's state is
    sent to all its players): the log-in name is never shown."""
    return display_name or f"#{user_id}"


class DeviceSession(models.Model):  # type: ignore[django-manager-missing]  # (knox)
    """One log-in of one device (a phone, a tablet, an API client): its own
    access and refresh tokens, listed to the player, ended alone
    (``accounts.sessions``). Ending it deletes the row, its tokens with it."""

    class Platform(models.TextChoices):
        IOS = "ios", "iOS"
        ANDROID = "android", "Android"
        WEB = "web", _("Web")
        DESKTOP = "desktop", _("Desktop")
        OTHER = "other", _("Other")

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="device_sessions", verbose_name=_("user")
    )
    name = models.CharField(_("device name"), max_length=60, blank=True)
    platform = models.CharField(
        _("platform"), max_length=10, choices=Platform.choices, default=Platform.OTHER
    )
    user_agent = models.CharField(_("user agent"), max_length=200, blank=True)
    address = models.GenericIPAddressField(_("address"), null=True, blank=True)
    created = models.DateTimeField(_("logged in"), auto_now_add=True)
    last_seen = models.DateTimeField(_("last seen"))
    # The current refresh token, hashed (knox.crypto.hash_token); older ones
    # are in UsedRefresh until the session ends.
    refresh_digest = models.CharField(max_length=128, unique=True)
    refresh_expiry = models.DateTimeField()

    #: What the list of sessions calls this kind (``BrowserSession``'s is ``browser``).
    kind = "device"

    class Meta:
        verbose_name = _("device session")
        verbose_name_plural = _("device sessions")
        indexes = [models.Index(fields=["user", "-last_seen"], name="accounts_device_user_seen")]

    def __str__(self) -> str:
        return self.name or self.get_platform_display()


class AccessToken(AbstractAuthToken):
    """django-rest-knox's token (``KNOX_TOKEN_MODEL``): hashed at rest,
    short-lived, and of one device session."""

    session: "models.ForeignKey[DeviceSession, DeviceSession]" = models.ForeignKey(
        DeviceSession, on_delete=models.CASCADE, related_name="access_tokens"
    )

    class Meta:
        verbose_name = _("access token")
        verbose_name_plural = _("access tokens")


class UsedRefresh(models.Model):
    """A refresh token already traded for a new pair: shown again, it was
    stolen or copied, and the session it belongs to ends (reuse detection)."""

    digest = models.CharField(max_length=128, primary_key=True)
    session = models.ForeignKey(DeviceSession, on_delete=models.CASCADE, related_name="+")
    used_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.session_id} @ {self.used_at:%Y-%m-%d %H:%M}"


class BrowserSession(models.Model):
    """What the list of sessions shows of a browser logged in to the site (a
    Django session of the ``db`` engine, which has no user column): its user
    agent, address and last request. Kept by ``BrowserSessionMiddleware``;
    it goes with its Django session (log-out, a new key, expiry: the ORM's
    cascade, so no database constraint ties it to Django's table)."""

    session = models.OneToOneField(
        "sessions.Session",
        on_delete=models.CASCADE,
        db_constraint=False,
        related_name="browser",
    )
    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="browser_sessions", verbose_name=_("user")
    )
    user_agent = models.CharField(_("user agent"), max_length=200, blank=True)
    address = models.GenericIPAddressField(_("address"), null=True, blank=True)
    created = models.DateTimeField(_("logged in"), default=timezone.now)
    last_seen = models.DateTimeField(_("last seen"))

    #: As a device session shows in the list of sessions.
    kind = "browser"
    platform = DeviceSession.Platform.WEB

    class Meta:
        verbose_name = _("browser session")
        verbose_name_plural = _("browser sessions")
        indexes = [models.Index(fields=["user", "-last_seen"], name="accounts_browser_user_seen")]

    def __str__(self) -> str:
        return f"{self.user_id} @ {self.address or '-'}"

    @property
    def name(self) -> str:
        """Its browser and system, from the user agent."""
        from .agents import browser_name

        return browser_name(self.user_agent)

    def get_platform_display(self) -> str:
        return str(DeviceSession.Platform.WEB.label)
