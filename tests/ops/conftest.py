import pytest

from kernel.ops import context


@pytest.fixture(autouse=True)
def _no_log_context():
    """Services called from the test thread leave their table and hand bound."""
    context.clear()
    yield
    context.clear()
