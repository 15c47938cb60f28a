from django.apps import AppConfig
from django.db import models


class ReleaseNextConfig(AppConfig):
    name = "tests.release_next"
    label = "release_next"

    def ready(self) -> None:
        """The new release's code reads and writes the column its migration
        added: every Hand query selects it, every hand dealt stores "next"
        (so a rollback that dropped it before this code stopped would fail
        every deal)."""
        from games.models import Hand

        Hand.add_to_class(COLUMN, models.TextField(null=True, default="next"))


COLUMN = "release_next"
