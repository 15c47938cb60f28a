from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.dispatch import Signal
from django.utils.translation import gettext_lazy as _

from .avatars import CHOICES, default_avatar

# Sent after an existing user's new password is saved (sender: User, user=).
# The accounts app revokes every token and session then (AccountsConfig.ready).
password_changed = Signal()


class User(AbstractUser):
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

    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]
        swappable = "AUTH_USER_MODEL"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # A new password (set_password, then save) on an existing account: every
        # API token and session is revoked and the sockets close (a hash
        # upgrade at log-in clears _password first and is not a change).
        changed = self._password is not None and not self._state.adding  # type: ignore[attr-defined]
        super().save(*args, **kwargs)
        if changed:
            password_changed.send(sender=type(self), user=self)

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username

    @property
    def avatar_key(self) -> str:
        """The avatar picked, else the one the account's id gives."""
        return self.avatar or default_avatar(self.pk)
