from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    label = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out, user_login_failed

        from .limits import login_failed
        from .models import password_changed
        from .services import password_was_changed, session_ended

        password_changed.connect(password_was_changed, dispatch_uid="accounts.password_changed")
        user_logged_out.connect(session_ended, dispatch_uid="accounts.session_ended")
        user_login_failed.connect(login_failed, dispatch_uid="accounts.login_failed")
