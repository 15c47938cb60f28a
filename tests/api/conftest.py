import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from ..services.conftest import money_checked
from .helpers import throttles_off

__all__ = ["api", "keep_connections", "money_checked", "no_throttles"]


@pytest.fixture(autouse=True)
def no_throttles(settings):
    """Throttles are about their own test (test_throttles.py): off elsewhere."""
    throttles_off(settings)


@pytest.fixture
def api():
    """``api(user)``: an API client with the user's token (``api()``: anonymous)."""
    from .helpers import client_for

    return client_for


@pytest.fixture
def keep_connections():
    """Requests go through Django's WSGI handler: keep the connection open
    between requests (as Django's test client does) so the test's transaction lasts."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
