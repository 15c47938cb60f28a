import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from vipgame.accounts.models import User

    from .tables import Harness

_names = itertools.count()


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> None:
    from django.conf import settings

    if not settings.configured:  # the pure rules tests run without Django
        return
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_limits() -> None:
    """Each test counts its own rate-limit hits and open sockets (vipgame.limits)."""
    from django.conf import settings

    if not settings.configured:
        return
    import uuid

    from vipgame import limits

    limits.NAMESPACE = uuid.uuid4().hex[:12]


@pytest.fixture
def make_user(db: None) -> Callable[..., "User"]:
    """A registered player (with the sign-up grant), or staff with ``is_staff=True``."""
    from vipgame.accounts.services import user_register

    def make(*, username: str | None = None, is_staff: bool = False, **extra: object) -> "User":
        name = username or f"player{next(_names)}"
        user = user_register(username=name, display_name=name.title(), password="Bai-Tien-Len-42")
        if is_staff:
            user.is_staff = True
            user.is_superuser = True
            user.save(update_fields=["is_staff", "is_superuser"])
        return user

    return make


@pytest.fixture
def tables(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> "Harness":
    """Table services with a frozen clock and a recording scheduler."""
    from games import clock as clock_module
    from games import scheduling

    from .tables import Clock, Harness, RecordingScheduler

    harness = Harness(Clock(), RecordingScheduler())
    marker = request.node.get_closest_marker("django_db")
    if marker is None or not marker.kwargs.get("transaction"):
        # The test's transaction never commits: run after-commit work at once
        # (publishing, and recording the scheduled work for drain() and fire()).
        monkeypatch.setattr(
            "django.db.transaction.on_commit", lambda func, using=None, robust=False: func()
        )
    monkeypatch.setattr(clock_module, "now", harness.clock.now)
    monkeypatch.setattr(scheduling, "scheduler", harness.scheduler)
    return harness
