from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from django.conf import settings
        from django.core.exceptions import ImproperlyConfigured
        from django.db.models.signals import pre_save

        import games.plugins  # noqa: F401  (registers the games of settings.VIPGAME_GAMES)
        from games.limits import check_new_table, house_range
        from games.models import Table

        # Every new table row passes games.limits.check_table, however made.
        pre_save.connect(check_new_table, sender=Table, dispatch_uid="games.check_new_table")

        # The operator's clocks pass the same ranges as everything else: a
        # number every table has, or a game's table knob (its tables alone take it).
        for name, value in settings.TABLE_DEFAULTS.items():
            allowed = house_range(name)
            if allowed is None:
                raise ImproperlyConfigured(f"TABLE_DEFAULTS: unknown field {name}")
            if not allowed.low <= value <= allowed.high:
                raise ImproperlyConfigured(
                    f"TABLE_DEFAULTS: {name} must be from {allowed.low} to {allowed.high}"
                )
