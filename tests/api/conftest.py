import pytest

from ..services.conftest import money_checked
from .helpers import throttles_off

__all__ = ["api", "money_checked", "no_throttles"]


@pytest.fixture(autouse=True)
def no_throttles(settings):
    """Throttles are about their own test (test_throttles.py): off elsewhere."""
    throttles_off(settings)


@pytest.fixture
def api():
    """``api(user)``: an API client with the user's token (``api()``: anonymous)."""
    from .helpers import client_for

    return client_for
