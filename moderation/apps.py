from axes.apps import AppConfig as AxesAppConfig
from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    default = True  # (AxesConfig below is another AppConfig of this module)
    name = "moderation"
    label = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        from . import admin_words  # noqa: F401  (the admin's words we translate)


class AxesConfig(AxesAppConfig):
    """django-axes with a name in the admin's language (its own is "Axes")."""

    verbose_name = _("Log-in protection (Axes)")
