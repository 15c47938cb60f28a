"""The time source of the table services (tests freeze or advance it)."""

from datetime import datetime

from django.utils import timezone


def now() -> datetime:
    return timezone.now()
