from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "vipgame.ops"
    label = "ops"
    verbose_name = "Operations"

    def ready(self) -> None:
        from vipgame import checks  # noqa: F401  (registers the fail-closed check)
