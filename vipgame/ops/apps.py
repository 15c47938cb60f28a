from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "vipgame.ops"
    label = "ops"
    verbose_name = "Operations"
